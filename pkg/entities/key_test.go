package entities

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// newJWK returns the public JWK of a new P-256 key with kid "k".
func newJWK(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	public, err := key.PublicKey.ECDH()
	if err != nil {
		t.Fatal(err)
	}
	point := public.Bytes() // 0x04 || x || y
	coordinate := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	return fmt.Sprintf(`{"kid":"k","kty":"EC","crv":"P-256","x":%q,"y":%q}`, coordinate(point[1:33]), coordinate(point[33:]))
}

func testKey(name string, ref *configurationv1alpha1.KeySetRef) kongKey {
	const jwk = `{"kid":"k","kty":"EC"}`
	return &configurationv1alpha1.KongKey{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongKeySpec{
			ControlPlaneRef: konnectRef("cp"),
			KeySetRef:       ref,
			KongKeyAPISpec:  configurationv1alpha1.KongKeyAPISpec{KID: "k", Name: name, JWK: jwk},
		},
	}
}

func inSet(name string) *configurationv1alpha1.KeySetRef {
	return &configurationv1alpha1.KeySetRef{Type: configurationv1alpha1.KeySetRefNamespacedRef, NamespacedRef: &commonv1alpha1.NameRef{Name: name}}
}

func TestKeyJoinsAKeySetOfItsControlPlane(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	sets := cacheOf[kongKeySet]("kongkeysets")
	put(t, sets, programmedIn(testKeySet("set"), "cp-id", "set-id"), programmedIn(testKeySet("elsewhere"), "cp2-id", "elsewhere-id"), testKeySet("idle"))
	kind := KeyKind(refs, sets)
	cases := []struct {
		name     string
		ref      *configurationv1alpha1.KeySetRef
		ready    bool
		keySetID string
		message  string
	}{
		{"no key set", nil, true, "", "KeySetRef is unset"},
		{"a Programmed key set", inSet("set"), true, "set-id", "KongKeySet ns/set is Programmed"},
		{"a missing key set", inSet("later"), false, "", "KongKeySet ns/later not found"},
		{"an unprogrammed key set", inSet("idle"), false, "", "KongKeySet ns/idle is not Programmed"},
		{"a key set of another control plane", inSet("elsewhere"), false, "", "is in control plane cp2-id, not in cp-id"},
		{"a raw Konnect ID is not used", &configurationv1alpha1.KeySetRef{Type: configurationv1alpha1.KeySetRefKonnectID, KonnectID: "raw"}, true, "", "not supported"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := testKey("key", tc.ref)
			k.ControlPlaneStatus(true)
			k.Status.Konnect.KeySetID = "stale"
			res, err := kind.Resolve(t.Context(), k, controller.ForSync)
			if err != nil || res.Ready != tc.ready {
				t.Fatalf("ready=%v err=%v, want ready=%v; conditions %v", res.Ready, err, tc.ready, res.Conditions)
			}
			if k.Status.Konnect.KeySetID != tc.keySetID {
				t.Errorf("status keySetID %q, want %q", k.Status.Konnect.KeySetID, tc.keySetID)
			}
			i := slices.IndexFunc(res.Conditions, func(c metav1.Condition) bool { return c.Type == commonv1alpha1.ConditionKeySetRefValid })
			if i < 0 || !strings.Contains(res.Conditions[i].Message, tc.message) {
				t.Errorf("KeySetRefValid %v, want a message with %q", res.Conditions, tc.message)
			}
			body, err := kind.Desired(t.Context(), k, res.Placement)
			if err != nil || deref(body.Set.GetID()) != tc.keySetID {
				t.Errorf("body set %v (%v), want %q", body.Set, err, tc.keySetID)
			}
		})
	}
	deleting, err := kind.Resolve(t.Context(), testKey("key", inSet("later")), controller.ForDelete)
	if err != nil || !deleting.Ready || conditionStatus(deleting, commonv1alpha1.ConditionKeySetRefValid) != "" {
		t.Fatalf("deleting needs the key set: ready=%v err=%v conditions %v", deleting.Ready, err, deleting.Conditions)
	}
	if kind.IsManaged(&configurationv1alpha1.KongKey{ObjectMeta: objectMeta("kic"), Spec: configurationv1alpha1.KongKeySpec{KeySetRef: inSet("set")}}) {
		t.Fatal("a key without a control plane of its own is managed through its key set")
	}
}

func TestKeyBodyCarriesAPEMPair(t *testing.T) {
	k := testKey("pem", nil)
	k.Spec.JWK = ""
	k.Spec.PEM = &configurationv1alpha1.PEMKeyPair{PrivateKey: "private", PublicKey: "public"}
	body, err := KeyKind(testRefs(), cacheOf[kongKeySet]("kongkeysets")).Desired(t.Context(), k, controller.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	if body.Kid != "k" || deref(body.Name) != "pem" || body.Jwk != nil || body.Set != nil ||
		deref(body.Pem.GetPrivateKey()) != "private" || deref(body.Pem.GetPublicKey()) != "public" {
		t.Fatalf("body %+v", body)
	}
}

func TestKeyMatchComparesJWKsByValue(t *testing.T) {
	desired := components.Key{Kid: "k", Jwk: ptr(`{"kid":"k","kty":"EC"}`)}
	cases := []struct {
		name   string
		actual components.Key
		want   []string
	}{
		{"same JSON, other layout", components.Key{Kid: "k", Jwk: ptr(`{ "kty": "EC", "kid": "k" }`)}, nil},
		{"another key", components.Key{Kid: "k", Jwk: ptr(`{"kid":"k","kty":"RSA"}`)}, []string{"jwk"}},
		{"a PEM pair where none is wanted", components.Key{Kid: "k", Jwk: desired.Jwk, Pem: &components.Pem{PublicKey: ptr("p")}}, []string{"pem"}},
		{"another kid and name", components.Key{Kid: "other", Name: ptr("n"), Jwk: desired.Jwk}, []string{"kid", "name"}},
	}
	for _, tc := range cases {
		if got := keyMatches(desired, &tc.actual); !slices.Equal(got, tc.want) {
			t.Errorf("%s: differences %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestKeyCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	setID := created(t, s, p, keySetCalls, components.KeySet{Name: ptr("set")})
	uid := controller.TagKeyUID + ":1"
	jwk := newJWK(t)
	exerciseCalls(t, s, p, keyCalls,
		components.Key{Kid: "k", Name: ptr("key"), Jwk: &jwk, Tags: []string{uid}},
		components.Key{Kid: "k", Name: ptr("key"), Jwk: &jwk, Set: &components.Set{ID: &setID}, Tags: []string{uid}}, uid)
}
