package konnect

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"testing"
)

const (
	testCP     = "7f9fd312-a987-4628-b4c5-bb4f4fddd5f7"
	testID     = "3b1c9b8e-1111-4a2b-9c3d-000000000001"
	testParent = "3b1c9b8e-2222-4a2b-9c3d-000000000002"
	coreBase   = "/v2/control-planes/" + testCP + "/core-entities/"
)

// opTest is one call of one operation against the fake Konnect: what must
// go over the wire, and what the caller must get back.
type opTest struct {
	name   string
	call   func(ctx context.Context, c *Client) (any, error)
	method string
	path   string
	query  map[string]string // expected query parameters ("" value: must be absent)
	body   string            // expected JSON body; "" = no body
	status int
	answer string
	want   any
}

func runOpTests(t *testing.T, tests []opTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeKonnect(t, func(request) reply { return reply{Status: tt.status, Body: tt.answer} })
			c := fake.client(t, Options{})
			got, err := tt.call(context.Background(), c)
			if err != nil {
				t.Fatalf("call failed: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("result =\n  %#v\nwant\n  %#v", got, tt.want)
			}
			reqs := fake.received()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			req := reqs[0]
			if req.Method != tt.method || req.Path != tt.path {
				t.Errorf("request = %s %s, want %s %s", req.Method, req.Path, tt.method, tt.path)
			}
			for k, v := range tt.query {
				if got := req.Query[k]; (v == "" && len(got) != 0) || (v != "" && (len(got) != 1 || got[0] != v)) {
					t.Errorf("query %s = %q, want %q", k, got, v)
				}
			}
			switch {
			case tt.body == "" && len(req.Body) != 0:
				t.Errorf("request has body %s, want none", req.Body)
			case tt.body != "" && !jsonEqual(t, req.Body, tt.body):
				t.Errorf("request body =\n  %s\nwant\n  %s", req.Body, tt.body)
			}
		})
	}
}

// coreKind generates the five operation tests of one core-entity kind from
// one example: the entity as the caller passes it, the JSON that must be
// sent for it, and how Konnect's answer (that JSON plus id, timestamps and
// the parent reference) reads back.
type coreKind[E any] struct {
	name       string
	collection string // path under core-entities/ of create/upsert/get/delete
	listPath   string // path under core-entities/ of the flat list
	parentRef  string // JSON field of the parent reference in answers, "" for none
	wrapGet    string // the field get answers wrap the entity in, "" for none
	entity     E      // without ID and parent
	sent       string // the JSON body expected for entity
	// withIdentity returns e with ID and parent ID set, as read back.
	withIdentity func(e E) E
	create       func(ctx context.Context, c *Client, e E) (E, error)
	upsert       func(ctx context.Context, c *Client, e E) (E, error)
	get          func(ctx context.Context, c *Client) (E, error)
	delete       func(ctx context.Context, c *Client) error
	list         func(ctx context.Context, c *Client, f ListFilter) ([]E, error)
}

func (k coreKind[E]) answer(t *testing.T) string {
	var doc map[string]any
	if err := json.Unmarshal([]byte(k.sent), &doc); err != nil {
		t.Fatalf("%s: sent JSON: %v", k.name, err)
	}
	answer := maps.Clone(doc)
	answer["id"] = testID
	answer["created_at"] = 1700000000
	answer["updated_at"] = 1700000001
	if k.parentRef != "" {
		answer[k.parentRef] = map[string]any{"id": testParent}
	}
	raw, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func (k coreKind[E]) tests(t *testing.T) []opTest {
	answer := k.answer(t)
	getAnswer := answer
	if k.wrapGet != "" {
		getAnswer = `{"` + k.wrapGet + `":` + answer + `}`
	}
	want := k.withIdentity(k.entity)
	one := k.collection + "/" + testID
	return []opTest{
		{name: k.name + "/create", method: "POST", path: coreBase + k.collection, body: k.sent, status: 201, answer: answer, want: want,
			call: func(ctx context.Context, c *Client) (any, error) { return k.create(ctx, c, k.entity) }},
		{name: k.name + "/upsert ignores the ID in the body", method: "PUT", path: coreBase + one, body: k.sent, status: 200, answer: answer, want: want,
			call: func(ctx context.Context, c *Client) (any, error) { return k.upsert(ctx, c, k.withIdentity(k.entity)) }},
		{name: k.name + "/get", method: "GET", path: coreBase + one, status: 200, answer: getAnswer, want: want,
			call: func(ctx context.Context, c *Client) (any, error) { return k.get(ctx, c) }},
		{name: k.name + "/delete", method: "DELETE", path: coreBase + one, status: 204, want: nil,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, k.delete(ctx, c) }},
		{name: k.name + "/list by tag", method: "GET", path: coreBase + k.listPath, status: 200,
			query:  map[string]string{"tags": "k8s-uid:abc", "size": "1000", "offset": ""},
			answer: `{"data":[` + answer + `],"next":null,"offset":null}`, want: []E{want},
			call: func(ctx context.Context, c *Client) (any, error) {
				return k.list(ctx, c, ListFilter{Tags: []string{"k8s-uid:abc"}})
			}},
	}
}

func ptr[T any](v T) *T { return &v }

var testTags = []string{"k8s-uid:abc", "team:payments"}

const testTagsJSON = `"tags":["k8s-uid:abc","team:payments"]`

func TestCoreEntityOperations(t *testing.T) {
	var tests []opTest
	tests = append(tests, coreKind[Service]{
		name: "service", collection: "services", listPath: "services",
		entity: Service{
			Name: "billing", Host: "billing.internal", Port: ptr(8443), Path: "/v1", Protocol: "https",
			Retries: ptr(3), ConnectTimeout: ptr(1000), ReadTimeout: ptr(2000), WriteTimeout: ptr(3000),
			Enabled: ptr(false), TLSVerify: ptr(true), TLSVerifyDepth: ptr(2),
			TLSSANs:        &TLSSANs{DNSNames: []string{"billing.internal"}, URIs: []string{"spiffe://billing"}},
			CACertificates: []string{"ca-1"}, ClientCertificateID: "cert-1", Tags: testTags,
		},
		sent: `{"name":"billing","host":"billing.internal","port":8443,"path":"/v1","protocol":"https",
			"retries":3,"connect_timeout":1000,"read_timeout":2000,"write_timeout":3000,"enabled":false,
			"tls_verify":true,"tls_verify_depth":2,"tls_sans":{"dnsnames":["billing.internal"],"uris":["spiffe://billing"]},
			"ca_certificates":["ca-1"],"client_certificate":{"id":"cert-1"},` + testTagsJSON + `}`,
		withIdentity: func(e Service) Service { e.ID = testID; return e },
		create: func(ctx context.Context, c *Client, e Service) (Service, error) {
			return c.CreateService(ctx, testCP, e)
		},
		upsert: func(ctx context.Context, c *Client, e Service) (Service, error) {
			return c.UpsertService(ctx, testCP, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (Service, error) { return c.GetService(ctx, testCP, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteService(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]Service, error) {
			return c.ListServices(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[Route]{
		name: "route", collection: "routes", listPath: "routes",
		entity: Route{
			Name: "billing", Protocols: []string{"http", "https"}, Methods: []string{"GET"}, Hosts: []string{"api.example.com"},
			Paths: []string{"/billing"}, Headers: map[string][]string{"x-env": {"prod"}}, SNIs: []string{"api.example.com"},
			HTTPSRedirectStatusCode: ptr(301), RegexPriority: ptr(5), StripPath: ptr(false), PathHandling: "v1",
			PreserveHost: ptr(true), RequestBuffering: ptr(false), ResponseBuffering: ptr(true),
			ServiceID: "svc-1", Tags: testTags,
		},
		sent: `{"name":"billing","protocols":["http","https"],"methods":["GET"],"hosts":["api.example.com"],
			"paths":["/billing"],"headers":{"x-env":["prod"]},"snis":["api.example.com"],"https_redirect_status_code":301,
			"regex_priority":5,"strip_path":false,"path_handling":"v1","preserve_host":true,"request_buffering":false,
			"response_buffering":true,"service":{"id":"svc-1"},` + testTagsJSON + `}`,
		withIdentity: func(e Route) Route { e.ID = testID; return e },
		create:       func(ctx context.Context, c *Client, e Route) (Route, error) { return c.CreateRoute(ctx, testCP, e) },
		upsert: func(ctx context.Context, c *Client, e Route) (Route, error) {
			return c.UpsertRoute(ctx, testCP, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (Route, error) { return c.GetRoute(ctx, testCP, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteRoute(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]Route, error) {
			return c.ListRoutes(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[Route]{
		name: "stream route", collection: "routes", listPath: "routes",
		entity: Route{
			Protocols: []string{"tcp"}, Sources: []RouteEndpoint{{IP: "10.0.0.0/8"}}, Destinations: []RouteEndpoint{{IP: "10.1.0.1", Port: ptr(9000)}},
			ServiceID: "svc-1", Tags: testTags,
		},
		sent:         `{"protocols":["tcp"],"sources":[{"ip":"10.0.0.0/8"}],"destinations":[{"ip":"10.1.0.1","port":9000}],"service":{"id":"svc-1"},` + testTagsJSON + `}`,
		withIdentity: func(e Route) Route { e.ID = testID; return e },
		create:       func(ctx context.Context, c *Client, e Route) (Route, error) { return c.CreateRoute(ctx, testCP, e) },
		upsert: func(ctx context.Context, c *Client, e Route) (Route, error) {
			return c.UpsertRoute(ctx, testCP, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (Route, error) { return c.GetRoute(ctx, testCP, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteRoute(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]Route, error) {
			return c.ListRoutes(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[Consumer]{
		name: "consumer", collection: "consumers", listPath: "consumers",
		entity:       Consumer{Username: "alice", CustomID: "a-1", Tags: testTags},
		sent:         `{"username":"alice","custom_id":"a-1",` + testTagsJSON + `}`,
		withIdentity: func(e Consumer) Consumer { e.ID = testID; return e },
		create: func(ctx context.Context, c *Client, e Consumer) (Consumer, error) {
			return c.CreateConsumer(ctx, testCP, e)
		},
		upsert: func(ctx context.Context, c *Client, e Consumer) (Consumer, error) {
			return c.UpsertConsumer(ctx, testCP, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (Consumer, error) { return c.GetConsumer(ctx, testCP, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteConsumer(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]Consumer, error) {
			return c.ListConsumers(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[Plugin]{
		name: "plugin", collection: "plugins", listPath: "plugins",
		entity: Plugin{
			Name: "rate-limiting", InstanceName: "rl-billing", Config: map[string]any{"minute": float64(5), "policy": "local"},
			Enabled: ptr(true), Protocols: []string{"http"},
			Ordering:  &PluginOrdering{Before: &PluginPhases{Access: []string{"key-auth"}}},
			ServiceID: "svc-1", Tags: testTags,
		},
		sent: `{"name":"rate-limiting","instance_name":"rl-billing","config":{"minute":5,"policy":"local"},"enabled":true,
			"protocols":["http"],"ordering":{"before":{"access":["key-auth"]}},"service":{"id":"svc-1"},` + testTagsJSON + `}`,
		withIdentity: func(e Plugin) Plugin { e.ID = testID; return e },
		create:       func(ctx context.Context, c *Client, e Plugin) (Plugin, error) { return c.CreatePlugin(ctx, testCP, e) },
		upsert: func(ctx context.Context, c *Client, e Plugin) (Plugin, error) {
			return c.UpsertPlugin(ctx, testCP, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (Plugin, error) { return c.GetPlugin(ctx, testCP, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeletePlugin(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]Plugin, error) {
			return c.ListPlugins(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[Upstream]{
		name: "upstream", collection: "upstreams", listPath: "upstreams",
		entity: Upstream{
			Name: "billing.upstream", Algorithm: "consistent-hashing", HashOn: "header", HashOnHeader: "x-user",
			HashOnCookie: "c", HashOnCookiePath: "/", HashOnQueryArg: "q", HashOnURICapture: "u",
			HashFallback: "cookie", HashFallbackHeader: "x-fb", HashFallbackQueryArg: "fq", HashFallbackURICapture: "fu",
			HostHeader: "billing", Slots: ptr(100), StickySessionsCookie: "s", StickySessionsCookiePath: "/s", UseSRVName: ptr(true),
			ClientCertificateID: "cert-1", Tags: testTags,
			Healthchecks: &Healthchecks{
				Threshold: ptr(25.0),
				Active: &ActiveHealthcheck{
					Type: "https", Concurrency: ptr(5), Headers: map[string][]string{"x-probe": {"1"}}, HTTPPath: "/healthz",
					HTTPSSNI: "billing", HTTPSVerifyCertificate: ptr(false), Timeout: ptr(2.5),
					Healthy:   &ActiveHealthy{HTTPStatuses: []int{200}, Interval: ptr(5.0), Successes: ptr(2)},
					Unhealthy: &ActiveUnhealthy{HTTPFailures: ptr(3), HTTPStatuses: []int{500}, Interval: ptr(1.5), TCPFailures: ptr(2), Timeouts: ptr(4)},
				},
				Passive: &PassiveHealthcheck{
					Type:      "http",
					Healthy:   &PassiveHealthy{HTTPStatuses: []int{200, 201}, Successes: ptr(10)},
					Unhealthy: &PassiveUnhealthy{HTTPFailures: ptr(5), HTTPStatuses: []int{503}, TCPFailures: ptr(1), Timeouts: ptr(7)},
				},
			},
		},
		sent: `{"name":"billing.upstream","algorithm":"consistent-hashing","hash_on":"header","hash_on_header":"x-user",
			"hash_on_cookie":"c","hash_on_cookie_path":"/","hash_on_query_arg":"q","hash_on_uri_capture":"u",
			"hash_fallback":"cookie","hash_fallback_header":"x-fb","hash_fallback_query_arg":"fq","hash_fallback_uri_capture":"fu",
			"host_header":"billing","slots":100,"sticky_sessions_cookie":"s","sticky_sessions_cookie_path":"/s","use_srv_name":true,
			"client_certificate":{"id":"cert-1"},` + testTagsJSON + `,
			"healthchecks":{"threshold":25,
				"active":{"type":"https","concurrency":5,"headers":{"x-probe":["1"]},"http_path":"/healthz","https_sni":"billing",
					"https_verify_certificate":false,"timeout":2.5,
					"healthy":{"http_statuses":[200],"interval":5,"successes":2},
					"unhealthy":{"http_failures":3,"http_statuses":[500],"interval":1.5,"tcp_failures":2,"timeouts":4}},
				"passive":{"type":"http","healthy":{"http_statuses":[200,201],"successes":10},
					"unhealthy":{"http_failures":5,"http_statuses":[503],"tcp_failures":1,"timeouts":7}}}}`,
		withIdentity: func(e Upstream) Upstream { e.ID = testID; return e },
		create: func(ctx context.Context, c *Client, e Upstream) (Upstream, error) {
			return c.CreateUpstream(ctx, testCP, e)
		},
		upsert: func(ctx context.Context, c *Client, e Upstream) (Upstream, error) {
			return c.UpsertUpstream(ctx, testCP, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (Upstream, error) { return c.GetUpstream(ctx, testCP, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteUpstream(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]Upstream, error) {
			return c.ListUpstreams(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[Target]{
		name: "target", collection: "upstreams/" + testParent + "/targets", listPath: "targets", parentRef: "upstream",
		entity:       Target{Target: "10.0.0.1:8080", Weight: ptr(50), Failover: ptr(true), Tags: testTags},
		sent:         `{"target":"10.0.0.1:8080","weight":50,"failover":true,` + testTagsJSON + `}`,
		withIdentity: func(e Target) Target { e.ID, e.UpstreamID = testID, testParent; return e },
		create: func(ctx context.Context, c *Client, e Target) (Target, error) {
			return c.CreateTarget(ctx, testCP, testParent, e)
		},
		upsert: func(ctx context.Context, c *Client, e Target) (Target, error) {
			return c.UpsertTarget(ctx, testCP, testParent, testID, e)
		},
		get: func(ctx context.Context, c *Client) (Target, error) {
			return c.GetTarget(ctx, testCP, testParent, testID)
		},
		delete: func(ctx context.Context, c *Client) error { return c.DeleteTarget(ctx, testCP, testParent, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]Target, error) {
			return c.ListTargets(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[Certificate]{
		name: "certificate", collection: "certificates", listPath: "certificates",
		entity:       Certificate{Cert: "CERT", Key: "KEY", CertAlt: "CERT2", KeyAlt: "KEY2", SNIs: []string{"a.example.com"}, Tags: testTags},
		sent:         `{"cert":"CERT","key":"KEY","cert_alt":"CERT2","key_alt":"KEY2","snis":["a.example.com"],` + testTagsJSON + `}`,
		withIdentity: func(e Certificate) Certificate { e.ID = testID; return e },
		create: func(ctx context.Context, c *Client, e Certificate) (Certificate, error) {
			return c.CreateCertificate(ctx, testCP, e)
		},
		upsert: func(ctx context.Context, c *Client, e Certificate) (Certificate, error) {
			return c.UpsertCertificate(ctx, testCP, testID, e)
		},
		get: func(ctx context.Context, c *Client) (Certificate, error) {
			return c.GetCertificate(ctx, testCP, testID)
		},
		delete: func(ctx context.Context, c *Client) error { return c.DeleteCertificate(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]Certificate, error) {
			return c.ListCertificates(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[CACertificate]{
		name: "CA certificate", collection: "ca_certificates", listPath: "ca_certificates",
		entity:       CACertificate{Cert: "CA", CertDigest: "abc", Tags: testTags},
		sent:         `{"cert":"CA","cert_digest":"abc",` + testTagsJSON + `}`,
		withIdentity: func(e CACertificate) CACertificate { e.ID = testID; return e },
		create: func(ctx context.Context, c *Client, e CACertificate) (CACertificate, error) {
			return c.CreateCACertificate(ctx, testCP, e)
		},
		upsert: func(ctx context.Context, c *Client, e CACertificate) (CACertificate, error) {
			return c.UpsertCACertificate(ctx, testCP, testID, e)
		},
		get: func(ctx context.Context, c *Client) (CACertificate, error) {
			return c.GetCACertificate(ctx, testCP, testID)
		},
		delete: func(ctx context.Context, c *Client) error { return c.DeleteCACertificate(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]CACertificate, error) {
			return c.ListCACertificates(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[SNI]{
		name: "SNI", collection: "certificates/" + testParent + "/snis", listPath: "snis", parentRef: "certificate",
		entity:       SNI{Name: "a.example.com", Tags: testTags},
		sent:         `{"name":"a.example.com",` + testTagsJSON + `}`,
		withIdentity: func(e SNI) SNI { e.ID, e.CertificateID = testID, testParent; return e },
		create: func(ctx context.Context, c *Client, e SNI) (SNI, error) {
			return c.CreateSNI(ctx, testCP, testParent, e)
		},
		upsert: func(ctx context.Context, c *Client, e SNI) (SNI, error) {
			return c.UpsertSNI(ctx, testCP, testParent, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (SNI, error) { return c.GetSNI(ctx, testCP, testParent, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteSNI(ctx, testCP, testParent, testID) },
		list:   func(ctx context.Context, c *Client, f ListFilter) ([]SNI, error) { return c.ListSNIs(ctx, testCP, f) },
	}.tests(t)...)
	tests = append(tests, coreKind[Key]{
		name: "key", collection: "keys", listPath: "keys",
		entity:       Key{KID: "kid-1", Name: "signing", JWK: `{"kty":"RSA"}`, PEM: &KeyPEM{PrivateKey: "PRIV", PublicKey: "PUB"}, KeySetID: "set-1", Tags: testTags},
		sent:         `{"kid":"kid-1","name":"signing","jwk":"{\"kty\":\"RSA\"}","pem":{"private_key":"PRIV","public_key":"PUB"},"set":{"id":"set-1"},` + testTagsJSON + `}`,
		withIdentity: func(e Key) Key { e.ID = testID; return e },
		create:       func(ctx context.Context, c *Client, e Key) (Key, error) { return c.CreateKey(ctx, testCP, e) },
		upsert:       func(ctx context.Context, c *Client, e Key) (Key, error) { return c.UpsertKey(ctx, testCP, testID, e) },
		get:          func(ctx context.Context, c *Client) (Key, error) { return c.GetKey(ctx, testCP, testID) },
		delete:       func(ctx context.Context, c *Client) error { return c.DeleteKey(ctx, testCP, testID) },
		list:         func(ctx context.Context, c *Client, f ListFilter) ([]Key, error) { return c.ListKeys(ctx, testCP, f) },
	}.tests(t)...)
	tests = append(tests, coreKind[KeySet]{
		name: "key set", collection: "key-sets", listPath: "key-sets",
		entity:       KeySet{Name: "jwks", Tags: testTags},
		sent:         `{"name":"jwks",` + testTagsJSON + `}`,
		withIdentity: func(e KeySet) KeySet { e.ID = testID; return e },
		create:       func(ctx context.Context, c *Client, e KeySet) (KeySet, error) { return c.CreateKeySet(ctx, testCP, e) },
		upsert: func(ctx context.Context, c *Client, e KeySet) (KeySet, error) {
			return c.UpsertKeySet(ctx, testCP, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (KeySet, error) { return c.GetKeySet(ctx, testCP, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteKeySet(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]KeySet, error) {
			return c.ListKeySets(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[Vault]{
		name: "vault", collection: "vaults", listPath: "vaults",
		entity:       Vault{Name: "env", Prefix: "env-vault", Description: "environment", Config: map[string]any{"prefix": "KONG_"}, Tags: testTags},
		sent:         `{"name":"env","prefix":"env-vault","description":"environment","config":{"prefix":"KONG_"},` + testTagsJSON + `}`,
		withIdentity: func(e Vault) Vault { e.ID = testID; return e },
		create:       func(ctx context.Context, c *Client, e Vault) (Vault, error) { return c.CreateVault(ctx, testCP, e) },
		upsert: func(ctx context.Context, c *Client, e Vault) (Vault, error) {
			return c.UpsertVault(ctx, testCP, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (Vault, error) { return c.GetVault(ctx, testCP, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteVault(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]Vault, error) {
			return c.ListVaults(ctx, testCP, f)
		},
	}.tests(t)...)
	runOpTests(t, tests)
}
