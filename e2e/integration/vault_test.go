package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

type kongVault = *configurationv1alpha1.KongVault

// vaultObject is an env vault whose prefix is its (cluster-wide unique)
// name, attached to control plane cp of namespace ns.
func vaultObject(name, ns, cp string) kongVault {
	return &configurationv1alpha1.KongVault{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongVaultSpec{
			ControlPlaneRef: cpRefIn(ns, cp),
			Backend:         "env",
			Prefix:          name,
			Config:          &apiextensionsv1.JSON{Raw: []byte(`{"prefix":"APP_"}`)},
		},
	}
}

// grantVaults lets KongVaults (namespace "") use the control planes of ns.
func (e *env) grantVaults(ns string) {
	e.grant(ns, "vaults-to-cp", "konnect.konghq.com", "KonnectGatewayControlPlane",
		grantFrom{"configuration.konghq.com", "KongVault", ""})
}

var vaults = kindCase[kongVault]{
	kind: "KongVault", collection: "vaults", path: "core-entities/vaults", clusterScoped: true,
	client: func(e *env) objectClient[kongVault] { return e.cs.ConfigurationV1alpha1().KongVaults() },
	setup:  func(e *env) { e.grantVaults(e.ns) },
	object: func(e *env, name string) kongVault { return vaultObject(name, e.ns, "cp") },
	change: func(v kongVault) { v.Spec.Description = "changed" },
	changed: func(ent map[string]any) error {
		if ent["description"] != "changed" {
			return fmt.Errorf("description = %v", ent["description"])
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["description"] = "drifted"
		e.reput(cpID, "vaults", ent)
	},
	adopt: func(v kongVault, opts *commonv1alpha1.AdoptOptions) { v.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		config := map[string]any{"prefix": "APP_"}
		if !matching {
			config["prefix"] = "OTHER_"
		}
		return e.put(cpID, "vaults", map[string]any{"name": "env", "prefix": name, "config": config})
	},
}

func TestVault(t *testing.T) { vaults.test(t) }

// TestVaultReferences: a KongVault has no namespace, so its control-plane
// reference must name one and a grant there must admit KongVaults from the
// namespace ""; its entity carries no k8s-namespace tag. A vault whose
// control plane is in a namespace the operator does not watch is left
// alone. (A configStoreRef: TestVaultSendsItsConfigStoresID.)
func TestVaultReferences(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	name := func(n string) string { return e.ns + "-" + n }
	create := func(n string, mutate func(kongVault)) {
		v := vaultObject(name(n), e.ns, "cp")
		if mutate != nil {
			mutate(v)
		}
		vaults.create(e, v)
	}

	t.Run("the control plane's namespace is required", func(t *testing.T) {

		defer e.use(t)()
		create("no-namespace", func(v kongVault) { v.Spec.ControlPlaneRef.KonnectNamespacedRef.Namespace = "" })
		v := vaults.refused(e, name("no-namespace"), commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid)
		if msg := meta.FindStatusCondition(v.Status.Conditions, commonv1alpha1.ConditionControlPlaneRefValid).Message; !strings.Contains(msg, "namespace") {
			t.Fatalf("message %q does not ask for the namespace", msg)
		}
	})
	t.Run("a grant from the namespace \"\" is needed", func(t *testing.T) {
		defer e.use(t)()
		create("granted", nil)
		vaults.refused(e, name("granted"), commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonRefNotPermitted)
		e.settle()
		e.grantVaults(e.ns)
		v := vaults.programmed(e, name("granted"))
		ent, err := vaults.entity(e, cpID, v)
		if err != nil {
			t.Fatal(err)
		}
		if ent["name"] != "env" || ent["prefix"] != name("granted") {
			t.Fatalf("Konnect vault %v", ent)
		}
		if tags := tagsOf(ent); slices.ContainsFunc(tags, func(t string) bool { return strings.HasPrefix(t, "k8s-namespace:") }) {
			t.Fatalf("a cluster-scoped vault's tags name a namespace: %v", tags)
		}
	})
	t.Run("a missing or unprogrammed control plane is waited for", func(t *testing.T) {
		defer e.use(t)()
		create("early", func(v kongVault) { v.Spec.ControlPlaneRef.KonnectNamespacedRef.Name = "later" })
		vaults.waiting(e, name("early"), commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid)
		e.createControlPlane("later", "later-auth")
		vaults.waiting(e, name("early"), commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonNotProgrammed)
		e.createAuthConfig("later-auth")
		vaults.programmed(e, name("early"))
	})
	t.Run("a control plane outside the watched namespaces is not this operator's", func(t *testing.T) {
		defer e.use(t)()
		create("elsewhere", func(v kongVault) { v.Spec.ControlPlaneRef.KonnectNamespacedRef.Namespace = "kube-system" })
		e.stays("the vault is left alone", func() error {
			if v := vaults.get(e, name("elsewhere")); len(v.Status.Conditions) > 0 || len(v.Finalizers) > 0 {
				return fmt.Errorf("the operator took the vault: %v, finalizers %v", v.Status.Conditions, v.Finalizers)
			}
			return nil
		})
	})
}
