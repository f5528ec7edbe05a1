package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// Kong Operator's samples that take certificates from Secrets, copied
// unchanged into testdata/kong-operator from github.com/Kong/kong-operator
// (config/samples/kongreferencegrant.yaml at a638b8cd,
// config/samples/kongreferencegrant_kongcertificate_secretrefalt.yaml at
// 5a2fdf7b, config/samples/konnect_kongcacertificate_secretref.yaml at
// 1e310b56). The first two name a control plane, my-control-plane in
// cert-namespace, that they do not define; the test makes it.
//
// Their certificates are placeholders that nothing can parse: the RSA and
// ECDSA pairs repeat "0Z6Z" where a key should be, and the CA certificate
// has a "-" in its base64 and a 49th of September for a date. OpenSSL, and
// so Konnect, refuses them, as the simulator does. Their certificates'
// Secrets lack the label konghq.com/secret, by which Kong Operator caches
// the Secrets it may read: the operator says so, and reads none of them.
// Labelled, everything on the operator's side of them must work: the
// Secrets are read (in another namespace behind a grant), and what fails
// is Konnect's answer.
var kongOperatorCertificateSamples = []string{
	"kongreferencegrant.yaml",
	"kongreferencegrant_kongcertificate_secretrefalt.yaml",
	"konnect_kongcacertificate_secretref.yaml",
}

// TestKongOperatorCertificateSecretSamples applies the samples unchanged:
// the certificates whose Secrets lack the label say so. Once labelled,
// every reference resolves (the grants allow them) and Konnect refuses
// only the placeholder material. With real key pairs written into the same
// Secrets every certificate is Programmed; a later change of a Secret
// reaches Konnect at once, and a deleted Secret is reported on
// SecretRefValid.
func TestKongOperatorCertificateSecretSamples(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{
		// The sample's auth configuration names Konnect's US host, and
		// Konnect's organization lookup is served from the global one.
		konnectHosts: []string{"us.api.konghq.com", "global.api.konghq.com"},
		tokens:       []string{"kpat_XXXXXXXXXXXXXXXXXXX"},
		watchAlso:    []string{metav1.NamespaceDefault, "cert-namespace", "secret-namespace", "tls-secrets-namespace"},
	})
	if _, err := e.kube.CoreV1().Namespaces().Create(e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cert-namespace"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cpID := e.readyIn("cert-namespace", "my-control-plane")
	objects, resource := e.applyKongOperatorSamples(kongOperatorCertificateSamples...)
	t.Cleanup(func() {
		// Before the test's own namespace is checked for leftovers in
		// Konnect, what the samples made must be gone from it.
		ctx := context.WithoutCancel(e.ctx)
		for _, obj := range slices.Backward(objects) {
			if err := resource(obj).Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting %s %s: %v", obj.GetKind(), obj.GetName(), err)
			}
		}
		for _, obj := range objects {
			err := wait.PollUntilContextTimeout(ctx, pollPeriod, patience, true, func(ctx context.Context) (bool, error) {
				_, err := resource(obj).Get(ctx, obj.GetName(), metav1.GetOptions{})
				return apierrors.IsNotFound(err), nil
			})
			if err != nil {
				t.Errorf("%s %s was not deleted: %v", obj.GetKind(), obj.GetName(), err)
			}
		}
	})
	sample := func(kind, name string) *unstructured.Unstructured {
		t.Helper()
		for _, obj := range objects {
			if obj.GetKind() == kind && obj.GetName() == name {
				got, err := resource(obj).Get(e.ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
		}
		t.Fatalf("the samples hold no %s %s", kind, name)
		return nil
	}
	type certificateSample struct {
		kind, name string
		secrets    []string // namespace/name
	}
	samples := []certificateSample{
		{"KongCertificate", "cross-namespace-cert", []string{"secret-namespace/my-tls-secret"}},
		{"KongCertificate", "dual-cert-cross-namespace", []string{"tls-secrets-namespace/rsa-tls-secret", "tls-secrets-namespace/ecdsa-tls-secret"}},
		{"KongCACertificate", "ca-cert-from-secret", []string{"default/my-ca-cert-secret"}},
	}
	for _, s := range samples {
		for _, secret := range s.secrets {
			namespace, name, _ := strings.Cut(secret, "/")
			got, err := e.kube.CoreV1().Secrets(namespace).Get(e.ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.kind == "KongCertificate" && got.Labels[commonv1alpha1.LabelSecret] != "" {
				t.Fatalf("Secret %s carries %s; the samples leave it unlabelled", secret, commonv1alpha1.LabelSecret)
			}
		}
	}

	t.Run("as shipped, the unlabelled Secrets are not read", func(t *testing.T) {
		defer e.use(t)()
		for _, s := range samples {
			if s.kind != "KongCertificate" {
				continue
			}
			e.eventually(s.kind+" "+s.name+" names the label its Secret lacks", func() error {
				return conditionSays(sample(s.kind, s.name), commonv1alpha1.ConditionSecretRefValid, "False", "lacks the label konghq.com/secret=true")
			})
		}
		for _, s := range samples {
			for _, secret := range s.secrets {
				namespace, name, _ := strings.Cut(secret, "/")
				e.in(namespace).labelSecret(name, commonv1alpha1.LabelSecret, "true")
			}
		}
	})

	t.Run("labelled, only Konnect refuses the placeholder certificates", func(t *testing.T) {
		defer e.use(t)()
		for _, s := range samples {
			e.eventually(s.kind+" "+s.name+" refused by Konnect", func() error {
				got := sample(s.kind, s.name)
				if err := conditionTrue(got, commonv1alpha1.ConditionSecretRefValid); err != nil {
					return err
				}
				if s.kind == "KongCertificate" {
					if err := conditionTrue(got, commonv1alpha1.ConditionResolvedRefs); err != nil {
						return err
					}
				}
				return conditionSays(got, commonv1alpha1.ConditionProgrammed, "False", "invalid certificate")
			})
		}
	})

	pairs := map[string]keyPair{}
	t.Run("with real pairs in the same Secrets, every sample is Programmed", func(t *testing.T) {
		defer e.use(t)()
		for _, s := range samples {
			for _, secret := range s.secrets {
				namespace, name, _ := strings.Cut(secret, "/")
				pair := newKeyPair(t, name+".example", s.kind == "KongCACertificate")
				pairs[secret] = pair
				data := map[string]string{"tls.crt": pair.Cert, "tls.key": pair.Key}
				if s.kind == "KongCACertificate" {
					data = map[string]string{"ca.crt": pair.Cert}
				}
				e.updateSecret(namespace, name, data)
			}
		}
		for _, s := range samples {
			e.eventually(s.kind+" "+s.name+" Programmed", func() error {
				return conditionTrue(sample(s.kind, s.name), commonv1alpha1.ConditionProgrammed)
			})
		}
		dual := e.entityOf(cpID, "certificates", sample("KongCertificate", "dual-cert-cross-namespace"))
		rsa, ecdsa := pairs["tls-secrets-namespace/rsa-tls-secret"], pairs["tls-secrets-namespace/ecdsa-tls-secret"]
		if dual["cert"] != rsa.Cert || dual["key"] != rsa.Key || dual["cert_alt"] != ecdsa.Cert || dual["key_alt"] != ecdsa.Key {
			t.Fatalf("Konnect certificate %v does not hold the Secrets' pairs", dual)
		}
	})

	t.Run("a change of a Secret reaches Konnect at once", func(t *testing.T) {
		defer e.use(t)()
		e.settle()
		rotated := newKeyPair(t, "my-tls-secret.example", false)
		e.updateSecret("secret-namespace", "my-tls-secret", map[string]string{"tls.crt": rotated.Cert, "tls.key": rotated.Key})
		// The sync period is an hour, longer than eventually moves the
		// clock: only the Secret's own change can bring this about.
		e.eventually("the rotated pair in Konnect", func() error {
			if ent := e.entityOf(cpID, "certificates", sample("KongCertificate", "cross-namespace-cert")); ent["cert"] != rotated.Cert {
				return fmt.Errorf("Konnect still holds the previous certificate")
			}
			return nil
		})
	})

	t.Run("a deleted Secret is reported as not found", func(t *testing.T) {
		defer e.use(t)()
		if err := e.kube.CoreV1().Secrets("tls-secrets-namespace").Delete(e.ctx, "ecdsa-tls-secret", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e.eventually("SecretRefValid False", func() error {
			return conditionSays(sample("KongCertificate", "dual-cert-cross-namespace"), commonv1alpha1.ConditionSecretRefValid,
				"False", "Secret tls-secrets-namespace/ecdsa-tls-secret not found")
		})
	})
}

// conditionSays checks that an unstructured object's condition has status
// and a message that contains message.
func conditionSays(obj *unstructured.Unstructured, conditionType, status, message string) error {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, raw := range conditions {
		c, _ := raw.(map[string]any)
		if c["type"] != conditionType {
			continue
		}
		if msg, _ := c["message"].(string); c["status"] != status || !strings.Contains(msg, message) {
			return fmt.Errorf("%s %s: %s is %v (%v), want %s saying %q", obj.GetKind(), obj.GetName(), conditionType, c["status"], c["message"], status, message)
		}
		return nil
	}
	return fmt.Errorf("%s %s has no %s condition", obj.GetKind(), obj.GetName(), conditionType)
}

// entityOf returns the Konnect entity of a Programmed sample object.
func (e *env) entityOf(cpID, collection string, obj *unstructured.Unstructured) map[string]any {
	e.t.Helper()
	id, _, _ := unstructured.NestedString(obj.Object, "status", "konnect", "id")
	ent, ok := e.entity(cpID, collection, id)
	if !ok {
		e.t.Fatalf("Konnect holds no %s %s for %s %s", collection, id, obj.GetKind(), obj.GetName())
	}
	return ent
}
