package konnect

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

var simTags = []string{"k8s-uid:abc", "team:a"}

// simKind drives one core-entity kind through the simulator: create, get,
// upsert, get again, and list by AND, OR and non-matching tags. Deleting is
// left to the caller, which knows the order parents and children need.
type simKind[E any] struct {
	name    string
	desired E
	id      func(E) string
	// withTags returns e with its tags replaced.
	withTags func(e E, tags []string) E
	create   func(ctx context.Context, e E) (E, error)
	get      func(ctx context.Context, id string) (E, error)
	upsert   func(ctx context.Context, id string, e E) (E, error)
	list     func(ctx context.Context, f ListFilter) ([]E, error)
	delete   func(ctx context.Context, id string) error
}

func (k simKind[E]) exercise(t *testing.T) (id string, deleteIt func()) {
	t.Helper()
	ctx := context.Background()
	created := must[E](t, "create "+k.name)(k.create(ctx, k.desired))
	id = k.id(created)
	if id == "" {
		t.Fatalf("create %s returned no ID", k.name)
	}
	if got := must[E](t, "get "+k.name)(k.get(ctx, id)); !reflect.DeepEqual(got, created) {
		t.Errorf("get %s =\n  %#v\nwant what create returned\n  %#v", k.name, got, created)
	}
	changed := k.withTags(k.desired, append(slices.Clone(simTags), "updated"))
	upserted := must[E](t, "upsert "+k.name)(k.upsert(ctx, id, changed))
	if k.id(upserted) != id {
		t.Errorf("upsert %s moved it to ID %q", k.name, k.id(upserted))
	}
	if got := must[E](t, "get "+k.name)(k.get(ctx, id)); !reflect.DeepEqual(got, upserted) {
		t.Errorf("get %s after upsert =\n  %#v\nwant\n  %#v", k.name, got, upserted)
	}
	for _, tt := range []struct {
		filter ListFilter
		want   bool
	}{
		{ListFilter{Tags: simTags}, true},
		{ListFilter{Tags: []string{"k8s-uid:abc", "updated"}}, true},
		{ListFilter{AnyTags: []string{"nope", "updated"}}, true},
		{ListFilter{Tags: []string{"k8s-uid:abc"}, AnyTags: []string{"nope", "updated"}}, true},
		{ListFilter{Tags: []string{"k8s-uid:abc", "nope"}}, false},
		{ListFilter{AnyTags: []string{"nope", "neither"}}, false},
	} {
		listed := must[[]E](t, "list "+k.name)(k.list(ctx, tt.filter))
		found := slices.ContainsFunc(listed, func(e E) bool { return k.id(e) == id })
		if found != tt.want {
			t.Errorf("list %s with %+v: found = %v, want %v", k.name, tt.filter, found, tt.want)
		}
	}
	return id, func() {
		t.Helper()
		if err := k.delete(ctx, id); err != nil {
			t.Errorf("delete %s: %v", k.name, err)
		}
		if _, err := k.get(ctx, id); !IsNotFound(err) {
			t.Errorf("get %s after delete = %v, want not found", k.name, err)
		}
	}
}

func TestEveryOperationAgainstTheSimulator(t *testing.T) {
	sim, factory := startSim(t, konnectsim.Options{}, Options{})
	c := simClient(t, sim, factory, testToken)
	ctx := context.Background()

	org := must[Organization](t, "me")(c.Me(ctx))
	if want, _ := sim.OrganizationID(simOrg); org.ID != want || org.Name != simOrg {
		t.Fatalf("Me = %+v, want the organisation %s (%s)", org, simOrg, want)
	}

	cp := exerciseControlPlanes(t, c)
	cpID := cp.ID
	exerciseDataPlaneCertificates(t, c, cpID)

	pki := newTestPKI(t)
	var deletes []func() // run in reverse: children before parents

	caCertID, del := simKind[CACertificate]{
		name: "CA certificate", desired: CACertificate{Cert: pki.caCert, Tags: simTags},
		id:       func(e CACertificate) string { return e.ID },
		withTags: func(e CACertificate, tags []string) CACertificate { e.Tags = tags; return e },
		create: func(ctx context.Context, e CACertificate) (CACertificate, error) {
			return c.CreateCACertificate(ctx, cpID, e)
		},
		get: func(ctx context.Context, id string) (CACertificate, error) { return c.GetCACertificate(ctx, cpID, id) },
		upsert: func(ctx context.Context, id string, e CACertificate) (CACertificate, error) {
			return c.UpsertCACertificate(ctx, cpID, id, e)
		},
		list: func(ctx context.Context, f ListFilter) ([]CACertificate, error) {
			return c.ListCACertificates(ctx, cpID, f)
		},
		delete: func(ctx context.Context, id string) error { return c.DeleteCACertificate(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	certID, del := simKind[Certificate]{
		name: "certificate", desired: Certificate{Cert: pki.leafCert, Key: pki.leafKey, Tags: simTags},
		id:       func(e Certificate) string { return e.ID },
		withTags: func(e Certificate, tags []string) Certificate { e.Tags = tags; return e },
		create: func(ctx context.Context, e Certificate) (Certificate, error) {
			return c.CreateCertificate(ctx, cpID, e)
		},
		get: func(ctx context.Context, id string) (Certificate, error) { return c.GetCertificate(ctx, cpID, id) },
		upsert: func(ctx context.Context, id string, e Certificate) (Certificate, error) {
			return c.UpsertCertificate(ctx, cpID, id, e)
		},
		list: func(ctx context.Context, f ListFilter) ([]Certificate, error) {
			return c.ListCertificates(ctx, cpID, f)
		},
		delete: func(ctx context.Context, id string) error { return c.DeleteCertificate(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	_, del = simKind[SNI]{
		name: "SNI", desired: SNI{Name: "api.example.com", Tags: simTags},
		id:       func(e SNI) string { return e.ID },
		withTags: func(e SNI, tags []string) SNI { e.Tags = tags; return e },
		create:   func(ctx context.Context, e SNI) (SNI, error) { return c.CreateSNI(ctx, cpID, certID, e) },
		get:      func(ctx context.Context, id string) (SNI, error) { return c.GetSNI(ctx, cpID, certID, id) },
		upsert:   func(ctx context.Context, id string, e SNI) (SNI, error) { return c.UpsertSNI(ctx, cpID, certID, id, e) },
		list:     func(ctx context.Context, f ListFilter) ([]SNI, error) { return c.ListSNIs(ctx, cpID, f) },
		delete:   func(ctx context.Context, id string) error { return c.DeleteSNI(ctx, cpID, certID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	serviceID, del := simKind[Service]{
		name: "service",
		desired: Service{
			Name: "billing", Host: "billing.internal", Protocol: "https", Port: ptr(443), Path: "/v1", Retries: ptr(3),
			ClientCertificateID: certID, CACertificates: []string{caCertID}, TLSVerify: ptr(true), Tags: simTags,
		},
		id:       func(e Service) string { return e.ID },
		withTags: func(e Service, tags []string) Service { e.Tags = tags; return e },
		create:   func(ctx context.Context, e Service) (Service, error) { return c.CreateService(ctx, cpID, e) },
		get:      func(ctx context.Context, id string) (Service, error) { return c.GetService(ctx, cpID, id) },
		upsert: func(ctx context.Context, id string, e Service) (Service, error) {
			return c.UpsertService(ctx, cpID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]Service, error) { return c.ListServices(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteService(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	routeID, del := simKind[Route]{
		name: "route",
		desired: Route{
			Name: "billing", Protocols: []string{"https"}, Paths: []string{"/billing"}, Methods: []string{"GET", "POST"},
			Headers: map[string][]string{"x-env": {"prod"}}, StripPath: ptr(true), ServiceID: serviceID, Tags: simTags,
		},
		id:       func(e Route) string { return e.ID },
		withTags: func(e Route, tags []string) Route { e.Tags = tags; return e },
		create:   func(ctx context.Context, e Route) (Route, error) { return c.CreateRoute(ctx, cpID, e) },
		get:      func(ctx context.Context, id string) (Route, error) { return c.GetRoute(ctx, cpID, id) },
		upsert:   func(ctx context.Context, id string, e Route) (Route, error) { return c.UpsertRoute(ctx, cpID, id, e) },
		list:     func(ctx context.Context, f ListFilter) ([]Route, error) { return c.ListRoutes(ctx, cpID, f) },
		delete:   func(ctx context.Context, id string) error { return c.DeleteRoute(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	consumerID, del := simKind[Consumer]{
		name: "consumer", desired: Consumer{Username: "alice", CustomID: "a-1", Tags: simTags},
		id:       func(e Consumer) string { return e.ID },
		withTags: func(e Consumer, tags []string) Consumer { e.Tags = tags; return e },
		create:   func(ctx context.Context, e Consumer) (Consumer, error) { return c.CreateConsumer(ctx, cpID, e) },
		get:      func(ctx context.Context, id string) (Consumer, error) { return c.GetConsumer(ctx, cpID, id) },
		upsert: func(ctx context.Context, id string, e Consumer) (Consumer, error) {
			return c.UpsertConsumer(ctx, cpID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]Consumer, error) { return c.ListConsumers(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteConsumer(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	groupID, del := simKind[ConsumerGroup]{
		name: "consumer group", desired: ConsumerGroup{Name: "gold", Tags: simTags},
		id:       func(e ConsumerGroup) string { return e.ID },
		withTags: func(e ConsumerGroup, tags []string) ConsumerGroup { e.Tags = tags; return e },
		create: func(ctx context.Context, e ConsumerGroup) (ConsumerGroup, error) {
			return c.CreateConsumerGroup(ctx, cpID, e)
		},
		get: func(ctx context.Context, id string) (ConsumerGroup, error) { return c.GetConsumerGroup(ctx, cpID, id) },
		upsert: func(ctx context.Context, id string, e ConsumerGroup) (ConsumerGroup, error) {
			return c.UpsertConsumerGroup(ctx, cpID, id, e)
		},
		list: func(ctx context.Context, f ListFilter) ([]ConsumerGroup, error) {
			return c.ListConsumerGroups(ctx, cpID, f)
		},
		delete: func(ctx context.Context, id string) error { return c.DeleteConsumerGroup(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	exerciseConsumerGroupMembership(t, c, sim, org.ID, cpID, groupID, consumerID)

	for _, scope := range []Plugin{
		{Name: "cors"},
		{Name: "rate-limiting", Config: map[string]any{"minute": float64(5), "policy": "local"}, ServiceID: serviceID},
		{Name: "request-termination", RouteID: routeID, ConsumerID: consumerID},
		{Name: "acl", Config: map[string]any{"allow": []any{"admins"}}, ConsumerGroupID: groupID, ServiceID: serviceID},
	} {
		scope.Tags = simTags
		scope.Enabled = ptr(true)
		_, del = simKind[Plugin]{
			name: "plugin " + scope.Name, desired: scope,
			id:       func(e Plugin) string { return e.ID },
			withTags: func(e Plugin, tags []string) Plugin { e.Tags = tags; return e },
			create: func(ctx context.Context, e Plugin) (Plugin, error) {
				created, err := c.CreatePlugin(ctx, cpID, e)
				if err == nil && (created.ServiceID != e.ServiceID || created.RouteID != e.RouteID ||
					created.ConsumerID != e.ConsumerID || created.ConsumerGroupID != e.ConsumerGroupID) {
					t.Errorf("plugin %s created with scope %+v, want %+v", e.Name, created, e)
				}
				return created, err
			},
			get: func(ctx context.Context, id string) (Plugin, error) { return c.GetPlugin(ctx, cpID, id) },
			upsert: func(ctx context.Context, id string, e Plugin) (Plugin, error) {
				return c.UpsertPlugin(ctx, cpID, id, e)
			},
			list:   func(ctx context.Context, f ListFilter) ([]Plugin, error) { return c.ListPlugins(ctx, cpID, f) },
			delete: func(ctx context.Context, id string) error { return c.DeletePlugin(ctx, cpID, id) },
		}.exercise(t)
		deletes = append(deletes, del)
	}

	upstreamID, del := simKind[Upstream]{
		name: "upstream",
		desired: Upstream{
			Name: "billing.upstream", Algorithm: "round-robin", Slots: ptr(100), Tags: simTags,
			Healthchecks: &Healthchecks{Threshold: ptr(0.0), Active: &ActiveHealthcheck{
				Type: "http", HTTPPath: "/healthz", Concurrency: ptr(5), Timeout: ptr(1.0), HTTPSVerifyCertificate: ptr(true),
				Healthy: &ActiveHealthy{Interval: ptr(5.0), Successes: ptr(2), HTTPStatuses: []int{200}},
			}},
		},
		id:       func(e Upstream) string { return e.ID },
		withTags: func(e Upstream, tags []string) Upstream { e.Tags = tags; return e },
		create:   func(ctx context.Context, e Upstream) (Upstream, error) { return c.CreateUpstream(ctx, cpID, e) },
		get:      func(ctx context.Context, id string) (Upstream, error) { return c.GetUpstream(ctx, cpID, id) },
		upsert: func(ctx context.Context, id string, e Upstream) (Upstream, error) {
			return c.UpsertUpstream(ctx, cpID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]Upstream, error) { return c.ListUpstreams(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteUpstream(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	_, del = simKind[Target]{
		name: "target", desired: Target{Target: "10.0.0.1:8080", Weight: ptr(50), Tags: simTags},
		id:       func(e Target) string { return e.ID },
		withTags: func(e Target, tags []string) Target { e.Tags = tags; return e },
		create: func(ctx context.Context, e Target) (Target, error) {
			created, err := c.CreateTarget(ctx, cpID, upstreamID, e)
			if err == nil && created.UpstreamID != upstreamID {
				t.Errorf("target's upstream = %q, want %q", created.UpstreamID, upstreamID)
			}
			return created, err
		},
		get: func(ctx context.Context, id string) (Target, error) { return c.GetTarget(ctx, cpID, upstreamID, id) },
		upsert: func(ctx context.Context, id string, e Target) (Target, error) {
			return c.UpsertTarget(ctx, cpID, upstreamID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]Target, error) { return c.ListTargets(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteTarget(ctx, cpID, upstreamID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	keySetID, del := simKind[KeySet]{
		name: "key set", desired: KeySet{Name: "jwks", Tags: simTags},
		id:       func(e KeySet) string { return e.ID },
		withTags: func(e KeySet, tags []string) KeySet { e.Tags = tags; return e },
		create:   func(ctx context.Context, e KeySet) (KeySet, error) { return c.CreateKeySet(ctx, cpID, e) },
		get:      func(ctx context.Context, id string) (KeySet, error) { return c.GetKeySet(ctx, cpID, id) },
		upsert: func(ctx context.Context, id string, e KeySet) (KeySet, error) {
			return c.UpsertKeySet(ctx, cpID, id, e)
		},
		list:   func(ctx context.Context, f ListFilter) ([]KeySet, error) { return c.ListKeySets(ctx, cpID, f) },
		delete: func(ctx context.Context, id string) error { return c.DeleteKeySet(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	_, del = simKind[Key]{
		name: "key",
		desired: Key{KID: "kid-1", Name: "signing", PEM: &KeyPEM{PublicKey: pki.publicKey, PrivateKey: pki.privateKey},
			KeySetID: keySetID, Tags: simTags},
		id:       func(e Key) string { return e.ID },
		withTags: func(e Key, tags []string) Key { e.Tags = tags; return e },
		create:   func(ctx context.Context, e Key) (Key, error) { return c.CreateKey(ctx, cpID, e) },
		get:      func(ctx context.Context, id string) (Key, error) { return c.GetKey(ctx, cpID, id) },
		upsert:   func(ctx context.Context, id string, e Key) (Key, error) { return c.UpsertKey(ctx, cpID, id, e) },
		list:     func(ctx context.Context, f ListFilter) ([]Key, error) { return c.ListKeys(ctx, cpID, f) },
		delete:   func(ctx context.Context, id string) error { return c.DeleteKey(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	_, del = simKind[Vault]{
		name: "vault", desired: Vault{Name: "env", Prefix: "env-vault", Description: "environment", Config: map[string]any{"prefix": "KONG_"}, Tags: simTags},
		id:       func(e Vault) string { return e.ID },
		withTags: func(e Vault, tags []string) Vault { e.Tags = tags; return e },
		create:   func(ctx context.Context, e Vault) (Vault, error) { return c.CreateVault(ctx, cpID, e) },
		get:      func(ctx context.Context, id string) (Vault, error) { return c.GetVault(ctx, cpID, id) },
		upsert:   func(ctx context.Context, id string, e Vault) (Vault, error) { return c.UpsertVault(ctx, cpID, id, e) },
		list:     func(ctx context.Context, f ListFilter) ([]Vault, error) { return c.ListVaults(ctx, cpID, f) },
		delete:   func(ctx context.Context, id string) error { return c.DeleteVault(ctx, cpID, id) },
	}.exercise(t)
	deletes = append(deletes, del)

	deletes = append(deletes, exerciseCredentials(t, c, cpID, consumerID)...)

	slices.Reverse(deletes)
	for _, del := range deletes {
		del()
	}
	for _, id := range []string{cpID} {
		if err := c.DeleteControlPlane(ctx, id); err != nil {
			t.Errorf("delete control plane: %v", err)
		}
	}
	if n := sim.Count(org.ID); n != 0 {
		t.Errorf("the organisation still holds %d entities after every delete", n)
	}
}
