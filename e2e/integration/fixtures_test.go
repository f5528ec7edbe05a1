package integration

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/testkeys"
)

func newUUID() string { return uuid.NewString() }

// keyPair is a certificate and its private key in PEM.
type keyPair = testkeys.Pair

// newKeyPair makes a self-signed certificate for cn; ca marks it a
// certificate authority.
func newKeyPair(t testing.TB, cn string, ca bool) keyPair {
	t.Helper()
	pair, err := testkeys.SelfSigned(cn, ca)
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

// newPEMKey makes an EC key pair in PEM (public, private).
func newPEMKey(t testing.TB) (public, private string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}))
}

// newJWK makes a public EC JSON Web Key with the given kid.
func newJWK(t testing.TB, kid string) string {
	t.Helper()
	jwk, err := testkeys.JWK(kid)
	if err != nil {
		t.Fatal(err)
	}
	return jwk
}

// konnect is Konnect's API through Kong's SDK, as any client of the test's
// simulator sees it, for changes made behind the operator's back.
func (e *env) konnect() konnect.API {
	e.t.Helper()
	api, err := konnect.NewClientFactory(konnect.Options{RootCAs: e.sim.CAPool, RequestsPerSecond: 100, Burst: 100}).API(e.sim.URL, testToken)
	if err != nil {
		e.t.Fatal(err)
	}
	return api
}

// addNamespace creates another namespace for the test, "<namespace>-other",
// and restarts the operator to watch it too (envOptions.otherNamespace does
// the same without a restart). The test's cleanup empties and deletes it
// with the test's own (deleteEverything).
func (e *env) addNamespace() string {
	e.t.Helper()
	ns := e.ns + "-other"
	if _, err := e.kube.CoreV1().Namespaces().Create(e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.stopOperator()
	e.others = append(e.others, ns)
	e.startOperator()
	return ns
}

// readyIn creates an auth configuration and a Programmed control plane
// named name in namespace ns, and returns its Konnect ID.
func (e *env) readyIn(ns, name string) string {
	e.t.Helper()
	_, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(ns).Create(e.ctx, &konnectv1alpha1.KonnectAPIAuthConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-auth"},
		Spec:       konnectv1alpha1.KonnectAPIAuthConfigurationSpec{Type: konnectv1alpha1.KonnectAPIAuthTypeToken, Token: testToken, ServerURL: e.sim.URL},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	cp := e.controlPlaneObject(name, name+"-auth")
	cp.Spec.CreateControlPlaneRequest.Name = ns + "-" + name
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(ns).Create(e.ctx, cp, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	var id string
	e.eventually("control plane "+ns+"/"+name+" Programmed", func() error {
		got, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		id = got.Status.ID
		return programmed(got)
	})
	return id
}

// grantFrom is one "from" entry of a KongReferenceGrant.
type grantFrom struct{ group, kind, namespace string }

// grant lets the given referrers refer to objects of group/kind in ns.
func (e *env) grant(ns, name, toGroup, toKind string, from ...grantFrom) {
	e.t.Helper()
	g := &configurationv1alpha1.KongReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongReferenceGrantSpec{
			To: []configurationv1alpha1.ReferenceGrantTo{{Group: toGroup, Kind: toKind}},
		},
	}
	for _, f := range from {
		g.Spec.From = append(g.Spec.From, configurationv1alpha1.ReferenceGrantFrom{Group: f.group, Kind: f.kind, Namespace: f.namespace})
	}
	if _, err := e.cs.ConfigurationV1alpha1().KongReferenceGrants(ns).Create(e.ctx, g, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// certificateSecretLabels are the labels that let the operator read a
// certificate's Secret.
var certificateSecretLabels = map[string]string{commonv1alpha1.LabelSecret: "true"}

// tlsSecret creates a kubernetes.io/tls Secret holding pair, labelled for
// certificates.
func (e *env) tlsSecret(ns, name string, pair keyPair) {
	e.t.Helper()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: certificateSecretLabels},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{"tls.crt": []byte(pair.Cert), "tls.key": []byte(pair.Key)},
	}
	if _, err := e.kube.CoreV1().Secrets(ns).Create(e.ctx, s, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// der returns the DER inside a PEM block: how the Secrets of Kong
// Operator's samples hold certificates and keys.
func der(t testing.TB, pemText string) []byte {
	t.Helper()
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		t.Fatalf("no PEM block in %q", pemText)
	}
	return block.Bytes
}

// binarySecret creates an opaque Secret with binary data, labelled for
// certificates.
func (e *env) binarySecret(ns, name string, data map[string][]byte) {
	e.t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: certificateSecretLabels}, Data: data}
	if _, err := e.kube.CoreV1().Secrets(ns).Create(e.ctx, s, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// secret creates an opaque Secret with data, labelled for certificates.
func (e *env) secret(ns, name string, data map[string]string) {
	e.t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: certificateSecretLabels}, StringData: data}
	if _, err := e.kube.CoreV1().Secrets(ns).Create(e.ctx, s, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// updateSecret replaces a Secret's data.
func (e *env) updateSecret(ns, name string, data map[string]string) {
	e.t.Helper()
	s, err := e.kube.CoreV1().Secrets(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	s.Data = nil
	s.StringData = data
	if _, err := e.kube.CoreV1().Secrets(ns).Update(e.ctx, s, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// cpRefIn names a control plane in another namespace.
func cpRefIn(ns, name string) *commonv1alpha1.ControlPlaneRef {
	ref := cpRef(name)
	ref.KonnectNamespacedRef.Namespace = ns
	return ref
}
