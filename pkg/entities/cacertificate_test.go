package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

func testCACertificate(name string, secret *commonv1alpha1.NamespacedRef) kongCACertificate {
	c := &configurationv1alpha1.KongCACertificate{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongCACertificateSpec{
			ControlPlaneRef:          konnectRef("cp"),
			KongCACertificateAPISpec: configurationv1alpha1.KongCACertificateAPISpec{Cert: "inline-ca"},
		},
	}
	if secret != nil {
		c.Spec.Type, c.Spec.SecretRef, c.Spec.Cert = configurationv1alpha1.CertificateSourceSecretRef, secret, ""
	}
	return c
}

func TestCACertificateFromASecretNeedsItsCACert(t *testing.T) {
	refs := withSecrets(testRefs())
	programmedControlPlane(t, refs, "cp", "cp-id")
	put(t, refs.Secrets,
		tlsSecret(testNamespace, "ca", map[string]string{secretKeyCACert: "ca-from-secret"}),
		tlsSecret(testNamespace, "tls-only", map[string]string{secretKeyTLSCert: "c", secretKeyTLSKey: "k"}))
	kind := CACertificateKind(refs)
	cases := []struct {
		name           string
		obj            kongCACertificate
		ready          bool
		secretRefValid string
		cert           string
	}{
		{"inline", testCACertificate("inline", nil), true, "", "inline-ca"},
		{"a Secret with ca.crt", testCACertificate("ca", &commonv1alpha1.NamespacedRef{Name: "ca"}), true, "True", "ca-from-secret"},
		{"a Secret without ca.crt", testCACertificate("tls", &commonv1alpha1.NamespacedRef{Name: "tls-only"}), false, "False", ""},
		{"a missing Secret", testCACertificate("missing", &commonv1alpha1.NamespacedRef{Name: "missing"}), false, "False", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := kind.Resolve(t.Context(), tc.obj, controller.ForSync)
			if err != nil || res.Ready != tc.ready || string(conditionStatus(res, commonv1alpha1.ConditionSecretRefValid)) != tc.secretRefValid {
				t.Fatalf("ready=%v err=%v conditions %v; want ready=%v SecretRefValid=%q", res.Ready, err, res.Conditions, tc.ready, tc.secretRefValid)
			}
			if !tc.ready {
				return
			}
			body, err := kind.Desired(t.Context(), tc.obj, res.Placement)
			if err != nil || body.Cert != tc.cert || !slices.Contains(body.Tags, controller.UIDTag(tc.obj)) {
				t.Fatalf("body %+v (%v), want cert %q", body, err, tc.cert)
			}
		})
	}
}

func TestCACertificateMatchIgnoresWhiteSpace(t *testing.T) {
	desired := components.CACertificate{Cert: "pem\n"}
	if got := caCertificateMatches(desired, &components.CACertificate{Cert: "  pem"}); got != nil {
		t.Errorf("differences %v for the same certificate", got)
	}
	if got := caCertificateMatches(desired, &components.CACertificate{Cert: "other"}); !slices.Equal(got, []string{"cert"}) {
		t.Errorf("differences %v for another certificate", got)
	}
}

func TestCACertificateCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	ca, _ := testKeyPair(t, "ca.example.com")
	other, _ := testKeyPair(t, "other-ca.example.com")
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, caCertificateCalls,
		components.CACertificate{Cert: ca, Tags: []string{uid}}, components.CACertificate{Cert: other, Tags: []string{uid}}, uid)
}
