package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// Kong Operator's samples of the Dev Portal and of config stores, copied
// unchanged into testdata/kong-operator from github.com/Kong/kong-operator
// (config/samples at cefc3842: portal_*.yaml,
// kongreferencegrant_portalpage_to_portal.yaml, konnect_configstore.yaml,
// konnect_kongvault_configstoreref.yaml). Some name objects they do not
// define, which the tests make: the portal samples' auth configuration
// konnect-api-auth in default; konnect_configstore.yaml's control plane
// my-cp; and the grant sample's portal, whose authRef leaves its namespace
// out (a TODO of the sample), uses an auth configuration of its own
// namespace, portal-admin.
var kongOperatorPortalSamples = []string{
	"portal_customdomain.yaml", "portal_customization.yaml", "portal_emailconfig.yaml",
	"portal_ipallowlist.yaml", "portal_page.yaml", "portal_team.yaml",
	"kongreferencegrant_portalpage_to_portal.yaml",
}

// TestKongOperatorPortalSamplesApplyUnchanged applies every portal sample
// as published (their Portal portal1 is one portal, each file adding an
// entity to it), waits until every object is Programmed, then deletes
// them and waits until they are gone from the cluster and from Konnect.
func TestKongOperatorPortalSamplesApplyUnchanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{
		konnectHosts: []string{"eu.api.konghq.com", "global.api.konghq.com"},
		tokens:       []string{"kpat_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		watchAlso:    []string{metav1.NamespaceDefault, "konnect", "portal-admin", "portal-content"},
	})
	e.authIn(metav1.NamespaceDefault, "konnect-api-auth")
	objects, resource := e.applyKongOperatorSamples(kongOperatorPortalSamples...)
	e.authIn("portal-admin", "konnect-api-auth")
	e.samplesReady(objects, resource)

	portals := e.sim.APIEntities(e.orgID, "portals", "")
	if len(portals) != 2 {
		t.Fatalf("Konnect holds %d portals, want the samples' 2 (portal1, shared-portal)", len(portals))
	}
	for _, p := range portals {
		if p["name"] != "portal1" {
			continue
		}
		id := fmt.Sprint(p["id"])
		for collection, want := range map[string]int{
			"portal-pages": 1, "portal-teams": 1, "portal-ip-allow-lists": 1, "portal-custom-domains": 1, "portal-email-configs": 1,
		} {
			if got := len(e.sim.APIEntities(e.orgID, collection, id)); got != want {
				t.Errorf("portal1 holds %d %s, want %d", got, collection, want)
			}
		}
		if custom, _ := e.sim.APIEntity(e.orgID, "portal-customizations", id, id); custom["css"] == nil {
			t.Errorf("portal1's customization has no CSS: %v", custom)
		}
	}
	e.samplesDeleted(objects, resource)
}

// TestKongOperatorConfigStoreSamplesApplyUnchanged applies the config
// store samples one after the other (both name a KonnectConfigStore
// tls-cert-keys in default, of two control planes): each becomes
// Programmed, the vault of the second carries the store's Konnect ID as
// config.config_store_id, and each is deleted from the cluster and from
// Konnect.
func TestKongOperatorConfigStoreSamplesApplyUnchanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{
		konnectHosts: []string{"us.api.konghq.com", "global.api.konghq.com"},
		tokens:       []string{"kpat_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"},
		watchAlso:    []string{metav1.NamespaceDefault},
	})
	cpID := e.readyIn(metav1.NamespaceDefault, "my-cp")
	t.Cleanup(func() {
		ctx := context.WithoutCancel(e.ctx)
		_ = e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(metav1.NamespaceDefault).Delete(ctx, "my-cp", metav1.DeleteOptions{})
		_ = e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(metav1.NamespaceDefault).Delete(ctx, "my-cp-auth", metav1.DeleteOptions{})
	})

	objects, resource := e.applyKongOperatorSamples("konnect_configstore.yaml")
	e.samplesReady(objects, resource)
	if stores := e.sim.APIEntities(e.orgID, "config-stores", cpID); len(stores) != 1 || stores[0]["name"] != "tls-cert-keys" {
		t.Fatalf("control plane my-cp holds the config stores %v, want tls-cert-keys", stores)
	}
	e.samplesDeleted(objects, resource)

	objects, resource = e.applyKongOperatorSamples("konnect_kongvault_configstoreref.yaml")
	e.samplesReady(objects, resource)
	store, err := e.cs.KonnectV1alpha1().KonnectConfigStores(metav1.NamespaceDefault).Get(e.ctx, "tls-cert-keys", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vaultID := ""
	for _, obj := range objects {
		if obj.GetKind() == "KongVault" {
			got, err := resource(obj).Get(e.ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			vaultID, _, _ = unstructured.NestedString(got.Object, "status", "konnect", "id")
		}
	}
	vault, ok := e.entity(store.Status.ControlPlaneID.GetID(), "vaults", vaultID)
	if config, _ := vault["config"].(map[string]any); !ok || config["config_store_id"] != store.Status.ID {
		t.Fatalf("the vault %v does not name config store %s", vault, store.Status.ID)
	}
	e.samplesDeleted(objects, resource)
}

// authIn creates an auth configuration of the test's token in ns.
func (e *env) authIn(ns, name string) {
	e.t.Helper()
	_, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       konnectv1alpha1.KonnectAPIAuthConfigurationSpec{Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: testToken, ServerURL: e.sim.URL},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		_ = e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(ns).Delete(context.WithoutCancel(e.ctx), name, metav1.DeleteOptions{})
	})
}

// samplesReady waits until every object of the samples is Programmed: an
// auth configuration's token valid; namespaces, grants and Secrets have no
// verdict.
func (e *env) samplesReady(objects []*unstructured.Unstructured, resource func(*unstructured.Unstructured) dynamic.ResourceInterface) {
	e.t.Helper()
	for _, obj := range objects {
		want := "Programmed"
		switch obj.GetKind() {
		case "Namespace", "KongReferenceGrant", "Secret":
			continue
		case "KonnectAPIAuthConfiguration":
			want = "APIAuthValid"
		}
		e.eventually(fmt.Sprintf("%s %s %s", obj.GetKind(), obj.GetName(), want), func() error {
			got, err := resource(obj).Get(e.ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				return err
			}
			return conditionTrue(got, want)
		})
	}
}

// samplesDeleted deletes the samples' objects but their namespaces (their
// grants last), waits until they are gone, and checks that Konnect holds
// none of their entities but the control planes of the test's own
// fixtures.
func (e *env) samplesDeleted(objects []*unstructured.Unstructured, resource func(*unstructured.Unstructured) dynamic.ResourceInterface) {
	e.t.Helper()
	before := len(e.sim.ControlPlanes(e.orgID))
	// Grants last, once what they let across namespaces is gone: deleting
	// an entity uses them as much as writing it.
	for _, grants := range []bool{false, true} {
		e.deleteSamples(objects, resource, grants)
	}
	left := e.sim.Count(e.orgID)
	fixtures := before - countKind(objects, "KonnectGatewayControlPlane")
	if left != fixtures {
		e.t.Fatalf("%d entities left in Konnect after the samples were deleted, want the fixtures' %d control planes", left, fixtures)
	}
}

// deleteSamples deletes the samples' grants (or everything but grants and
// namespaces), in reverse order, and waits until they are gone.
func (e *env) deleteSamples(objects []*unstructured.Unstructured, resource func(*unstructured.Unstructured) dynamic.ResourceInterface, grants bool) {
	e.t.Helper()
	selected := slices.DeleteFunc(slices.Clone(objects), func(obj *unstructured.Unstructured) bool {
		return obj.GetKind() == "Namespace" || (obj.GetKind() == "KongReferenceGrant") != grants
	})
	for _, obj := range slices.Backward(selected) {
		if err := resource(obj).Delete(e.ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			e.t.Fatal(err)
		}
	}
	for _, obj := range selected {
		err := wait.PollUntilContextTimeout(e.ctx, pollPeriod, waitLimit, true, func(ctx context.Context) (bool, error) {
			_, err := resource(obj).Get(ctx, obj.GetName(), metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			e.t.Fatalf("%s %s was not deleted: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
}

func countKind(objects []*unstructured.Unstructured, kind string) int {
	n := 0
	for _, obj := range objects {
		if obj.GetKind() == kind {
			n++
		}
	}
	return n
}
