package entities

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

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
		create(t, s, p, consumerCalls, ConsumerDesired{Consumer: components.Consumer{Username: ptr("bob"), CustomID: ptr("c-1"), Tags: tags}})
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
	pages := &countedPages{PageReader: s.api.Pages}
	api := s.api
	api.Pages = pages
	viaPages, err := calls.listKind(t.Context(), api, p, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if pages.read == 0 {
		t.Fatalf("the %ss were not read through the page reader", calls.entity)
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

// countedPages counts the pages read.
type countedPages struct {
	konnect.PageReader
	read int
}

func (c *countedPages) ReadPage(ctx context.Context, path string, page konnect.Page) (konnect.RawPage, error) {
	c.read++
	return c.PageReader.ReadPage(ctx, path, page)
}

// TestListedConsumersAreDecodedWhenAsked lists consumers for the drift
// lister: each comes undecoded, with a sum that stays while the consumer
// and its groups do, and decodes to what the SDK's reading gives.
func TestListedConsumersAreDecodedWhenAsked(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	tags := []string{controller.KindTag("KongConsumer"), "k8s-cluster:c1"}
	for _, name := range []string{"alice", "bob", "carol"} {
		create(t, s, p, consumerCalls, ConsumerDesired{Consumer: components.Consumer{Username: ptr(name), Tags: tags}})
	}
	kind := ConsumerKind(testRefs(), cacheOf[kongConsumerGroup]("kongconsumergroups"), nil)
	sums := func() map[string]uint64 {
		t.Helper()
		listed, err := kind.List(t.Context(), s.api, p, false)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]uint64{}
		for _, l := range listed {
			if l.Decode == nil || l.Sum == 0 || l.Snapshot.Known() {
				t.Fatalf("%s was listed decoded or without a sum", l.ID)
			}
			out[l.ID] = l.Sum
		}
		return out
	}
	listed, err := kind.List(t.Context(), s.api, p, false)
	if err != nil {
		t.Fatal(err)
	}
	sdkOnly := s.api
	sdkOnly.Pages = nil
	viaSDK, err := kind.List(t.Context(), sdkOnly, p, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 3 || len(viaSDK) != 3 {
		t.Fatalf("listed %d consumers and %d through the SDK, want 3", len(listed), len(viaSDK))
	}
	for i := range listed {
		d, err := listed[i].Decode()
		if err != nil {
			t.Fatal(err)
		}
		want := viaSDK[i]
		if d.ID != listed[i].ID || d.ID != want.ID || d.Owner != "c1" || d.Owner != want.Owner || d.Snapshot.Differences(want.Snapshot) != nil || d.Differences == nil {
			t.Errorf("decoded %s (owner %q) as %s (owner %q) through the SDK", d.ID, d.Owner, want.ID, want.Owner)
		}
	}

	before := sums()
	if again := sums(); !maps.Equal(before, again) {
		t.Fatalf("the sums of unchanged consumers changed: %v, then %v", before, again)
	}
	changed, joined := listed[0].ID, listed[1].ID
	was, err := consumerCalls.doGet(t.Context(), s.api, p, changed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := consumerCalls.doUpsert(t.Context(), s.api, p, changed, ConsumerDesired{Consumer: components.Consumer{Username: was.Username, CustomID: ptr("c-1"), Tags: tags}}); err != nil {
		t.Fatal(err)
	}
	group, err := s.api.ConsumerGroups.CreateConsumerGroup(t.Context(), p.ControlPlaneID, components.ConsumerGroup{Name: "gold"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.api.ConsumerGroups.AddConsumerToGroup(t.Context(), operations.AddConsumerToGroupRequest{
		ControlPlaneID: p.ControlPlaneID, ConsumerGroupID: *group.ConsumerGroup.ID, RequestBody: &operations.AddConsumerToGroupRequestBody{ConsumerID: &joined},
	}); err != nil {
		t.Fatal(err)
	}
	after := sums()
	for id, sum := range after {
		if moved := sum != before[id]; moved != (id == changed || id == joined) {
			t.Errorf("consumer %s: sum changed %v", id, moved)
		}
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
