package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// secretKept reports whether the operator's in-use finalizer is on a
// Secret of the env's namespace.
func (e *env) secretKept(name string) (bool, error) {
	s, err := e.kube.CoreV1().Secrets(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	return slices.Contains(s.Finalizers, commonv1alpha1.FinalizerSecretInUse), nil
}

// An auth configuration naming another namespace's token Secret keeps it
// only while a grant of that namespace allows it to read it: one that was
// never allowed, being deleted or not, never keeps the Secret (nor its
// namespace) from going.
func TestAnotherNamespacesSecretIsKeptOnlyUnderAGrant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{otherNamespace: true})
	victim, tenant := e, e.in(e.other)
	victim.tokenSecret("token", testToken, tokenLabels)
	tenant.updateOrCreateAuthConfigReading("auth", victim.ns, "token")
	tenant.eventually("the tenant's configuration refused", func() error {
		return conditionIs(tenant.authConfig("auth"), commonv1alpha1.ConditionResolvedRefs, metav1.ConditionFalse, commonv1alpha1.ReasonRefNotPermitted)
	})
	notKept := func() error {
		kept, err := victim.secretKept("token")
		if err != nil {
			return err
		}
		if kept {
			return fmt.Errorf("the victim's Secret is kept")
		}
		return nil
	}
	victim.stays("the Secret is not kept without a grant", notKept)

	// Under a grant, it is kept while the configuration reads it; the
	// grant revoked, it is let go.
	victim.createGrant("allow", kindAuth, tenant.ns, kindSecret, "token")
	victim.eventually("the Secret kept under the grant", func() error {
		if kept, err := victim.secretKept("token"); err != nil || !kept {
			return fmt.Errorf("kept=%v, %w", kept, err)
		}
		return nil
	})
	victim.deleteGrant("allow")
	victim.eventually("the Secret let go once the grant is revoked", notKept)
	tenant.eventually("the tenant's configuration refused again", func() error {
		return conditionIs(tenant.authConfig("auth"), commonv1alpha1.ConditionResolvedRefs, metav1.ConditionFalse, commonv1alpha1.ReasonRefNotPermitted)
	})

	// Used by a control plane of its own namespace (which, refused, never
	// reaches Konnect), deleting the configuration waits: being deleted is
	// what once let a configuration keep a Secret it was never allowed.
	tenant.createControlPlane("cp", "auth")

	// The configuration being deleted (its control plane keeps it) still
	// keeps nothing of the victim's, and the victim's Secret goes at once.
	if err := tenant.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(tenant.ns).Delete(e.ctx, "auth", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	tenant.eventually("the tenant's configuration waits for its control plane", func() error {
		ac := tenant.authConfig("auth")
		if ac.DeletionTimestamp == nil {
			return fmt.Errorf("not being deleted")
		}
		return conditionIs(ac, "DeletionBlocked", metav1.ConditionTrue, "InUse")
	})
	victim.stays("the Secret is not kept by a configuration being deleted", notKept)
	if err := victim.kube.CoreV1().Secrets(victim.ns).Delete(e.ctx, "token", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	victim.eventually("the victim's Secret gone", func() error {
		if _, err := victim.kube.CoreV1().Secrets(victim.ns).Get(e.ctx, "token", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %w", err)
		}
		return nil
	})
}

// updateOrCreateAuthConfigReading creates an auth configuration that
// reads its token from the Secret namespace/name, on the simulator.
func (e *env) updateOrCreateAuthConfigReading(name, namespace, secret string) {
	e.t.Helper()
	_, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: konnectv1alpha1.KonnectAPIAuthConfigurationSpec{
			Type:      konnectv1alpha1.KonnectAPIAuthTypeSecretRef,
			SecretRef: &corev1.SecretReference{Namespace: namespace, Name: secret},
			ServerURL: e.sim.URL,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
}

// unlabelledSecret creates a Secret without any label of the operator's.
func (e *env) unlabelledSecret(name string, data map[string]string) {
	e.t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: data}
	if _, err := e.kube.CoreV1().Secrets(e.ns).Create(e.ctx, s, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// A Secret without the label Kong Operator asks for is never read, whoever
// names it: a certificate's, a CA certificate's, a plugin configuration's,
// a consumer credential's. Each object says which label its Secret lacks,
// nothing of it reaches Konnect, and the label is all it takes.
func TestUnlabelledSecretsAreNeverRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	pair, ca := newKeyPair(t, "unlabelled.example", false), newKeyPair(t, "unlabelled-ca.example", true)
	const marker = "read-by-the-operator"
	e.unlabelledSecret("tls", map[string]string{"tls.crt": pair.Cert, "tls.key": pair.Key})
	e.unlabelledSecret("ca", map[string]string{"ca.crt": ca.Cert})
	e.unlabelledSecret("plugin-config", map[string]string{"config": `{"key_names": ["` + marker + `"]}`})
	e.unlabelledSecret("key", map[string]string{"key": marker})

	e.createCertificate("cert", fromSecrets(&commonv1alpha1.NamespacedRef{Name: "tls"}, nil))
	e.createCACertificate("ca", caFromSecret(&commonv1alpha1.NamespacedRef{Name: "ca"}))
	plugin := &configurationv1.KongPlugin{
		ObjectMeta: metav1.ObjectMeta{Name: "auth"}, PluginName: "key-auth",
		ConfigFrom: &configurationv1.ConfigSource{SecretValue: configurationv1.SecretValueFromSource{Secret: "plugin-config", Key: "config"}},
	}
	if _, err := e.cs.ConfigurationV1().KongPlugins(e.ns).Create(e.ctx, plugin, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.createBinding("auth", "auth", func(b *configurationv1alpha1.KongPluginBinding) {
		b.Spec.Scope = configurationv1alpha1.KongPluginBindingScopeGlobalInControlPlane
	})
	e.createConsumer("alice")
	e.updateConsumer("alice", func(c *configurationv1.KongConsumer) { c.Credentials = []string{"key"} })

	type check struct {
		what, condition, label string
		get                    func() conditioned
	}
	checks := []check{
		{"KongCertificate", commonv1alpha1.ConditionSecretRefValid, "konghq.com/secret=true", func() conditioned { return certificates.get(e, "cert") }},
		{"KongCACertificate", commonv1alpha1.ConditionSecretRefValid, "konghq.com/secret=true", func() conditioned { return caCertificates.get(e, "ca") }},
		{"KongPluginBinding", commonv1alpha1.ConditionPluginRefValid, "konghq.com/secret=true", func() conditioned { return e.binding("auth") }},
		{"KongConsumer", commonv1alpha1.ConditionCredentialSecretRefsValid, "konghq.com/credential", func() conditioned { return e.consumer("alice") }},
	}
	for _, c := range checks {
		e.eventually(c.what+" names the label its Secret lacks", func() error {
			obj := c.get()
			cond := meta.FindStatusCondition(obj.GetConditions(), c.condition)
			if cond == nil || cond.Status != metav1.ConditionFalse {
				return fmt.Errorf("%s is %+v", c.condition, cond)
			}
			if !strings.Contains(cond.Message, "lacks the label "+c.label) {
				return fmt.Errorf("%s says %q, not the label %s", c.condition, cond.Message, c.label)
			}
			return nil
		})
	}
	e.stays("nothing of the unlabelled Secrets reaches Konnect", func() error {
		for _, collection := range []string{"certificates", "ca_certificates", "plugins", "key-auths"} {
			if n := len(e.entities(cpID, collection)); n != 0 {
				return fmt.Errorf("%d %s in Konnect", n, collection)
			}
		}
		for _, c := range checks {
			for _, cond := range c.get().GetConditions() {
				if strings.Contains(cond.Message, marker) {
					return fmt.Errorf("%s's %s carries a value of a Secret", c.what, cond.Type)
				}
			}
		}
		return nil
	})

	// The label is all it takes.
	e.labelSecret("tls", commonv1alpha1.LabelSecret, "true")
	e.eventually("the certificate Programmed once its Secret is labelled", func() error {
		return programmed(certificates.get(e, "cert"))
	})
}

// labelSecret puts a label on a Secret of the env's namespace.
func (e *env) labelSecret(name, key, value string) {
	e.t.Helper()
	s, err := e.kube.CoreV1().Secrets(e.ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels[key] = value
	if _, err := e.kube.CoreV1().Secrets(e.ns).Update(e.ctx, s, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}
