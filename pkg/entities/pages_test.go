package entities

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// TestPagesReadAsTheSDKDoes checks each collection whose pages the drift
// lister reads with encoding/json (coreCalls.collection): the entities
// equal the SDK's reading of the same pages, and the SDK's type fills in
// nothing of its own (defaults, constants) that encoding/json would leave
// out, unless the type decodes itself through the SDK.
func TestPagesReadAsTheSDKDoes(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	consumer := p
	consumer.ParentID = simulatedConsumer(t, s, p, "alice")
	tags := []string{controller.KindTag("KongConsumer"), "team:a"}
	t.Run("consumers", func(t *testing.T) {
		create(t, s, p, consumerCalls, consumerDesired{Consumer: components.Consumer{Username: ptr("bob"), CustomID: ptr("c-1"), Tags: tags}})
		checkPagesReadAsTheSDKDoes(t, s, p, consumerCalls, 2)
	})
	t.Run("basic-auths", func(t *testing.T) {
		create(t, s, consumer, basicAuthCalls, components.BasicAuthWithoutParents{Username: "u", Password: "p", Tags: tags})
		checkPagesReadAsTheSDKDoes(t, s, p, basicAuthCalls, 1)
	})
	t.Run("key-auths", func(t *testing.T) {
		create(t, s, consumer, apiKeyCalls, components.KeyAuthWithoutParents{Key: ptr("k"), TTL: ptr[int64](60), Tags: tags})
		checkPagesReadAsTheSDKDoes(t, s, p, apiKeyCalls, 1)
	})
	t.Run("acls", func(t *testing.T) {
		create(t, s, consumer, aclCalls, components.ACLWithoutParents{Group: "admins", Tags: tags})
		checkPagesReadAsTheSDKDoes(t, s, p, aclCalls, 1)
	})
	t.Run("jwts", func(t *testing.T) {
		create(t, s, consumer, jwtCalls, components.JWTWithoutParents{Key: ptr("iss"), Secret: ptr("s"), Tags: tags})
		checkPagesReadAsTheSDKDoes(t, s, p, jwtCalls, 1)
	})
	t.Run("hmac-auths", func(t *testing.T) {
		create(t, s, consumer, hmacCalls, components.HMACAuthWithoutParents{Username: "h", Secret: ptr("s"), Tags: tags})
		checkPagesReadAsTheSDKDoes(t, s, p, hmacCalls, 1)
	})
}

func create[D, A any](t *testing.T, s simulated, p controller.Placement, calls coreCalls[D, A], body D) {
	t.Helper()
	if _, err := calls.doCreate(t.Context(), s.api, p, body); err != nil {
		t.Fatal(err)
	}
}

// checkPagesReadAsTheSDKDoes lists p's whole collection both ways.
func checkPagesReadAsTheSDKDoes[D, A any](t *testing.T, s simulated, p controller.Placement, calls coreCalls[D, A], want int) {
	t.Helper()
	if calls.collection == "" {
		t.Fatalf("the %s collection is read by the SDK alone", calls.entity)
	}
	var zero A
	if err := decodedAsJSON(reflect.TypeOf(zero), nil); err != nil {
		t.Fatalf("%T cannot be read with encoding/json: %v", zero, err)
	}
	viaPages, err := calls.listKind(t.Context(), s.api, p, "", true)
	if err != nil {
		t.Fatal(err)
	}
	sdkOnly := s.api
	sdkOnly.Pages = nil
	viaSDK, err := calls.listKind(t.Context(), sdkOnly, p, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(viaSDK) != want {
		t.Fatalf("the SDK listed %d %ss, want %d", len(viaSDK), calls.entity, want)
	}
	if !reflect.DeepEqual(viaPages, viaSDK) {
		a, _ := json.Marshal(viaPages)
		b, _ := json.Marshal(viaSDK)
		t.Errorf("read with encoding/json:\n%s\nread by the SDK:\n%s", a, b)
	}
	if controller.MustSnapshot(&viaPages[0]).Differences(controller.MustSnapshot(&viaSDK[0])) != nil {
		t.Error("the snapshots of the two readings differ")
	}
}

// decodedAsJSON reports a field of t that the SDK's decoding fills in
// where encoding/json would not: one with a default or a constant, in a
// type that does not decode itself (an UnmarshalJSON method, which
// encoding/json calls too).
func decodedAsJSON(t reflect.Type, seen map[reflect.Type]bool) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return nil
	}
	if seen == nil {
		seen = map[reflect.Type]bool{}
	}
	seen[t] = true
	for f := range t.Fields() {
		if _, ok := f.Tag.Lookup("default"); ok {
			return &fieldError{t, f.Name, "default"}
		}
		if _, ok := f.Tag.Lookup("const"); ok {
			return &fieldError{t, f.Name, "const"}
		}
		if err := decodedAsJSON(f.Type, seen); err != nil {
			return err
		}
	}
	return nil
}

type fieldError struct {
	t          reflect.Type
	field, tag string
}

func (e *fieldError) Error() string {
	return e.t.String() + "." + e.field + " has a " + e.tag + " the SDK fills in"
}

func TestPagesAreRefusedAsTheSDKsAre(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	factory := konnect.NewClientFactory(konnect.Options{RootCAs: s.sim.CAPool, RequestsPerSecond: 1e6, Burst: 1e6})
	wrong, err := factory.API(s.sim.URL, "kpat_wrong")
	if err != nil {
		t.Fatal(err)
	}
	_, viaPages := consumerCalls.listKind(t.Context(), wrong, p, "", true)
	sdkOnly := wrong
	sdkOnly.Pages = nil
	_, viaSDK := consumerCalls.listKind(t.Context(), sdkOnly, p, "", true)
	if !konnect.IsAuth(viaPages) || !konnect.IsAuth(viaSDK) {
		t.Fatalf("a wrong token: %v read with encoding/json, %v by the SDK; want both refused as unauthorised", viaPages, viaSDK)
	}
	if viaPages.Error() != viaSDK.Error() {
		t.Errorf("a wrong token: %q read with encoding/json, %q by the SDK", viaPages, viaSDK)
	}
	missing := controller.Placement{ControlPlaneID: "00000000-0000-4000-8000-000000000000"}
	if _, err := consumerCalls.listKind(t.Context(), s.api, missing, "", true); !konnect.IsNotFound(err) {
		t.Errorf("a missing control plane read with encoding/json: %v, want not found", err)
	}
}

func TestTheGuardSeesWhatTheSDKFillsIn(t *testing.T) {
	type port struct {
		Port *int64 `default:"80" json:"port"`
	}
	type service struct {
		Ports []port `json:"ports"`
	}
	if err := decodedAsJSON(reflect.TypeFor[service](), nil); err == nil {
		t.Error("a default the SDK fills in went unnoticed")
	}
	// A type that decodes itself through the SDK is read alike either way.
	if err := decodedAsJSON(reflect.TypeFor[components.ServiceOutput](), nil); err != nil {
		t.Error(err)
	}
}
