package entities

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"slices"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// testKeyPair returns a self-signed certificate for host and its private
// key, both PEM.
func testKeyPair(t *testing.T, host string) (certPEM, keyPEM string) {
	t.Helper()
	pair, cert, err := konnectsim.SelfSignedCertificate(host)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(pair.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(cert), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// withSecrets gives refs an informer cache of Secrets.
func withSecrets(refs *Refs) *Refs {
	refs.Secrets = cacheOf[*corev1.Secret]("secrets")
	return refs
}

// tlsSecret is a kubernetes.io/tls Secret labelled for certificates.
func tlsSecret(namespace, name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{commonv1alpha1.LabelSecret: "true"}},
		Type:       corev1.SecretTypeTLS, Data: map[string][]byte{},
	}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

// labelledFalse sets the certificate label of s to false, as on a Secret the cache
// holds for another use.
func labelledFalse(s *corev1.Secret) *corev1.Secret {
	s.Labels = map[string]string{commonv1alpha1.LabelSecret: "false"}
	return s
}

func testCertificate(name string) kongCertificate {
	return &configurationv1alpha1.KongCertificate{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongCertificateSpec{
			ControlPlaneRef:        konnectRef("cp"),
			KongCertificateAPISpec: configurationv1alpha1.KongCertificateAPISpec{Cert: "inline-cert", Key: "inline-key", Tags: []string{"team:a"}},
		},
	}
}

func fromSecretRefs(main, alt *commonv1alpha1.NamespacedRef) func(kongCertificate) {
	return func(c kongCertificate) {
		c.Spec.Type = configurationv1alpha1.CertificateSourceSecretRef
		c.Spec.Cert, c.Spec.Key = "", ""
		c.Spec.SecretRef, c.Spec.SecretRefAlt = main, alt
	}
}

func TestCertificateSecretsAreResolvedOnlyToWrite(t *testing.T) {
	refs := withSecrets(testRefs())
	programmedControlPlane(t, refs, "cp", "cp-id")
	put(t, refs.Secrets,
		tlsSecret(testNamespace, "rsa", map[string]string{secretKeyTLSCert: "c", secretKeyTLSKey: "k"}),
		tlsSecret(testNamespace, "no-key", map[string]string{secretKeyTLSCert: "c"}),
		tlsSecret("other", "remote", map[string]string{secretKeyTLSCert: "c", secretKeyTLSKey: "k"}),
		labelledFalse(tlsSecret(testNamespace, "credential", map[string]string{secretKeyTLSCert: "c", secretKeyTLSKey: "k"})))
	kind := CertificateKind(refs)
	cases := []struct {
		name           string
		mutate         func(kongCertificate)
		grant          bool
		ready          bool
		secretRefValid metav1.ConditionStatus
		resolvedRefs   metav1.ConditionStatus
		message        string
	}{
		{name: "inline material needs no Secret", mutate: func(kongCertificate) {}, ready: true},
		{name: "a Secret with both keys", mutate: fromSecretRefs(&commonv1alpha1.NamespacedRef{Name: "rsa"}, nil), ready: true, secretRefValid: "True"},
		{
			name:   "a missing Secret",
			mutate: fromSecretRefs(&commonv1alpha1.NamespacedRef{Name: "rsa"}, &commonv1alpha1.NamespacedRef{Name: "ecdsa"}),
			ready:  false, secretRefValid: "False", message: "Secret ns/ecdsa not found",
		},
		{
			// Named explicitly or not, a Secret is read only with the label
			// Kong Operator asks for.
			name:   "a Secret labelled konghq.com/secret=false",
			mutate: fromSecretRefs(&commonv1alpha1.NamespacedRef{Name: "credential"}, nil),
			ready:  false, secretRefValid: "False", message: "Secret ns/credential lacks the label konghq.com/secret=true (it has konghq.com/secret=false)",
		},
		{
			name:   "a Secret without tls.key",
			mutate: fromSecretRefs(&commonv1alpha1.NamespacedRef{Name: "no-key"}, nil),
			ready:  false, secretRefValid: "False", message: `Secret ns/no-key has no data key "tls.key"`,
		},
		{
			name:   "a Secret in another namespace without a grant",
			mutate: fromSecretRefs(&commonv1alpha1.NamespacedRef{Name: "remote", Namespace: "other"}, nil),
			ready:  false, resolvedRefs: "False",
		},
		{
			name:   "a Secret in another namespace with a grant",
			mutate: fromSecretRefs(&commonv1alpha1.NamespacedRef{Name: "remote", Namespace: "other"}, nil),
			grant:  true, ready: true, secretRefValid: "True", resolvedRefs: "True",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.grant {
				grant(t, refs, "other", kindCertificate, testNamespace, groupCore, kindSecret)
			}
			c := testCertificate("cert")
			tc.mutate(c)
			res, err := kind.Resolve(t.Context(), c, controller.ForSync)
			if err != nil || res.Ready != tc.ready {
				t.Fatalf("ready=%v err=%v, want ready=%v; conditions %v", res.Ready, err, tc.ready, res.Conditions)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionSecretRefValid); got != tc.secretRefValid {
				t.Errorf("SecretRefValid %q, want %q", got, tc.secretRefValid)
			}
			if got := conditionStatus(res, commonv1alpha1.ConditionResolvedRefs); got != tc.resolvedRefs {
				t.Errorf("ResolvedRefs %q, want %q", got, tc.resolvedRefs)
			}
			if tc.message != "" && !slices.ContainsFunc(res.Conditions, func(c metav1.Condition) bool { return strings.Contains(c.Message, tc.message) }) {
				t.Errorf("no condition says %q: %v", tc.message, res.Conditions)
			}
			deleting, err := kind.Resolve(t.Context(), c, controller.ForDelete)
			if err != nil || conditionStatus(deleting, commonv1alpha1.ConditionSecretRefValid) != "" || deleting.Placement.ControlPlaneID != "cp-id" {
				t.Errorf("deleting looked at the Secrets or lost the control plane: %+v, %v", deleting, err)
			}
		})
	}
}

func TestCertificateBodyTakesTheMaterialFromItsSource(t *testing.T) {
	refs := withSecrets(testRefs())
	put(t, refs.Secrets,
		tlsSecret(testNamespace, "rsa", map[string]string{secretKeyTLSCert: "rsa-cert", secretKeyTLSKey: "rsa-key"}),
		tlsSecret(testNamespace, "ecdsa", map[string]string{secretKeyTLSCert: "ec-cert", secretKeyTLSKey: "ec-key"}))
	kind := CertificateKind(refs)
	body := func(c kongCertificate) components.CertificateRequest2 {
		t.Helper()
		b, err := kind.Desired(t.Context(), c, controller.Placement{})
		if err != nil {
			t.Fatal(err)
		}
		if b.CertificateRequest2 == nil {
			t.Fatalf("the body is not a certificate with its key: %+v", b)
		}
		return *b.CertificateRequest2
	}

	inline := body(testCertificate("inline"))
	if inline.Cert != "inline-cert" || inline.Key != "inline-key" || inline.CertAlt != nil || inline.KeyAlt != nil {
		t.Errorf("inline body %+v", inline)
	}
	if !slices.Contains(inline.Tags, "team:a") || !slices.Contains(inline.Tags, "k8s-kind:KongCertificate") {
		t.Errorf("tags %v", inline.Tags)
	}

	c := testCertificate("secrets")
	fromSecretRefs(&commonv1alpha1.NamespacedRef{Name: "rsa"}, &commonv1alpha1.NamespacedRef{Name: "ecdsa"})(c)
	got := body(c)
	if got.Cert != "rsa-cert" || got.Key != "rsa-key" || deref(got.CertAlt) != "ec-cert" || deref(got.KeyAlt) != "ec-key" {
		t.Errorf("body from Secrets %+v", got)
	}
	put(t, refs.Secrets, tlsSecret(testNamespace, "rsa", map[string]string{secretKeyTLSCert: "renewed-cert", secretKeyTLSKey: "renewed-key"}))
	if got := body(c); got.Cert != "renewed-cert" || got.Key != "renewed-key" {
		t.Errorf("a changed Secret is not read again: %+v", got)
	}

	b, err := kind.Desired(t.Context(), c, controller.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(b)
	if err != nil || !strings.Contains(string(raw), `"cert_alt":"ec-cert"`) {
		t.Errorf("the body is sent as %s (%v)", raw, err)
	}
}

func TestCertificateMatchComparesBothPairs(t *testing.T) {
	desired := components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: "c\n", Key: "k", KeyAlt: ptr("ka")})
	cases := []struct {
		name   string
		actual components.Certificate
		want   []string
	}{
		{"the same pairs, other white space", components.Certificate{Cert: "c", Key: "k\n", KeyAlt: ptr("ka\n")}, nil},
		{"another certificate", components.Certificate{Cert: "other", Key: "k", KeyAlt: ptr("ka")}, []string{"cert"}},
		{"the alternative pair missing", components.Certificate{Cert: "c", Key: "k"}, []string{"key_alt"}},
		{"an alternative pair too many", components.Certificate{Cert: "c", Key: "k", CertAlt: ptr("ca"), KeyAlt: ptr("ka")}, []string{"cert_alt"}},
	}
	for _, tc := range cases {
		if got := certificateMatches(desired, &tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCertificateCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	uid := controller.TagKeyUID + ":1"
	cert, key := testKeyPair(t, "one.example.com")
	other, otherKey := testKeyPair(t, "two.example.com")
	exerciseCalls(t, s, p, certificateCalls,
		components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: cert, Key: key, Tags: []string{uid}}),
		components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: other, Key: otherKey, Tags: []string{uid}}), uid)
}
