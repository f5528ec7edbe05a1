package integration

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

type kongCACertificate = *configurationv1alpha1.KongCACertificate

func caCertificateObject(name, cert string) kongCACertificate {
	return &configurationv1alpha1.KongCACertificate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongCACertificateSpec{
			ControlPlaneRef:          cpRef("cp"),
			Type:                     configurationv1alpha1.CertificateSourceInline,
			KongCACertificateAPISpec: configurationv1alpha1.KongCACertificateAPISpec{Cert: cert},
		},
	}
}

var caCertificates = kindCase[kongCACertificate]{
	kind: "KongCACertificate", collection: "ca_certificates", path: "core-entities/ca_certificates",
	client: func(e *env) objectClient[kongCACertificate] {
		return e.cs.ConfigurationV1alpha1().KongCACertificates(e.ns)
	},
	object: func(e *env, name string) kongCACertificate {
		return caCertificateObject(name, e.pairFor(name, true).Cert)
	},
	setControlPlane: func(c kongCACertificate, ref *commonv1alpha1.ControlPlaneRef) {
		c.Spec.ControlPlaneRef = ref
	},
	change:  func(c kongCACertificate) { c.Spec.Tags = append(c.Spec.Tags, "trust:internal") },
	changed: tagged("trust:internal"),
	drift:   untag("ca_certificates", "trust:internal"),
	adopt:   func(c kongCACertificate, opts *commonv1alpha1.AdoptOptions) { c.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		pair := e.pairFor(name, true)
		if !matching {
			pair = e.pairFor(name+"-other", true)
		}
		return e.put(cpID, "ca_certificates", map[string]any{"cert": pair.Cert})
	},
}

func TestCACertificate(t *testing.T) { caCertificates.test(t) }

func caFromSecret(ref *commonv1alpha1.NamespacedRef) func(kongCACertificate) {
	return func(c kongCACertificate) {
		c.Spec.Type = configurationv1alpha1.CertificateSourceSecretRef
		c.Spec.Cert = ""
		c.Spec.SecretRef = ref
	}
}

func (e *env) createCACertificate(name string, mutate ...func(kongCACertificate)) {
	e.t.Helper()
	c := caCertificates.object(e, name)
	for _, m := range mutate {
		m(c)
	}
	caCertificates.create(e, c)
}

// TestCACertificateFromSecret: a secretRef CA certificate sends its
// Secret's ca.crt and follows its changes at once; a missing Secret or key
// is reported on SecretRefValid, and a Secret in another namespace needs a
// grant to core/Secret.
func TestCACertificateFromSecret(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	other := e.addNamespace()
	cert := func(name string) any {
		t.Helper()
		ent, err := caCertificates.entity(e, cpID, caCertificates.programmed(e, name))
		if err != nil {
			t.Fatal(err)
		}
		return ent["cert"]
	}

	t.Run("ca.crt is sent and followed", func(t *testing.T) {

		defer e.use(t)()
		first := newKeyPair(t, "ca-one.example", true).Cert
		e.secret(e.ns, "ca", map[string]string{"ca.crt": first})
		e.createCACertificate("from-secret", caFromSecret(&commonv1alpha1.NamespacedRef{Name: "ca"}))
		if got := cert("from-secret"); got != first {
			t.Fatalf("Konnect CA certificate %v, want the Secret's", got)
		}
		e.settle()
		second := newKeyPair(t, "ca-two.example", true).Cert
		e.updateSecret(e.ns, "ca", map[string]string{"ca.crt": second})
		e.eventually("the Secret's change reaches Konnect", func() error {
			if got := cert("from-secret"); got != second {
				return fmt.Errorf("Konnect still holds the old CA certificate")
			}
			return nil
		})
	})
	t.Run("ca.crt in DER is sent as PEM", func(t *testing.T) {
		defer e.use(t)()
		ca := newKeyPair(t, "ca-der.example", true).Cert
		e.binarySecret(e.ns, "ca-der", map[string][]byte{"ca.crt": der(t, ca)})
		e.createCACertificate("der", caFromSecret(&commonv1alpha1.NamespacedRef{Name: "ca-der"}))
		if got := cert("der"); got != ca {
			t.Fatalf("Konnect CA certificate %v, want the Secret's in PEM", got)
		}
	})
	t.Run("a Secret without ca.crt is refused until it has one", func(t *testing.T) {
		defer e.use(t)()
		e.createCACertificate("keyless", caFromSecret(&commonv1alpha1.NamespacedRef{Name: "incomplete"}))
		caCertificates.waiting(e, "keyless", commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid)
		e.secret(e.ns, "incomplete", map[string]string{"tls.crt": "not what is needed"})
		caCertificates.refused(e, "keyless", commonv1alpha1.ConditionSecretRefValid, commonv1alpha1.ReasonInvalid)
		ca := newKeyPair(t, "ca-three.example", true).Cert
		e.updateSecret(e.ns, "incomplete", map[string]string{"ca.crt": ca})
		if got := cert("keyless"); got != ca {
			t.Fatalf("Konnect CA certificate %v", got)
		}
	})
	t.Run("a Secret in another namespace needs a grant", func(t *testing.T) {
		defer e.use(t)()
		e.secret(other, "remote-ca", map[string]string{"ca.crt": newKeyPair(t, "ca-four.example", true).Cert})
		e.createCACertificate("cross", caFromSecret(&commonv1alpha1.NamespacedRef{Name: "remote-ca", Namespace: other}))
		caCertificates.refused(e, "cross", commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonRefNotPermitted)
		e.settle()
		e.grant(other, "ca-to-secrets", "core", "Secret", grantFrom{"configuration.konghq.com", "KongCACertificate", e.ns})
		cert("cross")
	})
}
