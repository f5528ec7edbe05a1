package konnect

import (
	"context"
	"testing"
)

func TestConsumerGroupAndCredentialOperations(t *testing.T) {
	var tests []opTest
	tests = append(tests, coreKind[ConsumerGroup]{
		name: "consumer group", collection: "consumer_groups", listPath: "consumer_groups", wrapGet: "consumer_group",
		entity:       ConsumerGroup{Name: "gold", Tags: testTags},
		sent:         `{"name":"gold",` + testTagsJSON + `}`,
		withIdentity: func(e ConsumerGroup) ConsumerGroup { e.ID = testID; return e },
		create: func(ctx context.Context, c *Client, e ConsumerGroup) (ConsumerGroup, error) {
			return c.CreateConsumerGroup(ctx, testCP, e)
		},
		upsert: func(ctx context.Context, c *Client, e ConsumerGroup) (ConsumerGroup, error) {
			return c.UpsertConsumerGroup(ctx, testCP, testID, e)
		},
		get: func(ctx context.Context, c *Client) (ConsumerGroup, error) {
			return c.GetConsumerGroup(ctx, testCP, testID)
		},
		delete: func(ctx context.Context, c *Client) error { return c.DeleteConsumerGroup(ctx, testCP, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]ConsumerGroup, error) {
			return c.ListConsumerGroups(ctx, testCP, f)
		},
	}.tests(t)...)
	consumerPath := "consumers/" + testParent + "/"
	tests = append(tests, coreKind[BasicAuth]{
		name: "basic-auth", collection: consumerPath + "basic-auth", listPath: "basic-auths", parentRef: "consumer",
		entity:       BasicAuth{Username: "alice", Password: "s3cret", Tags: testTags},
		sent:         `{"username":"alice","password":"s3cret",` + testTagsJSON + `}`,
		withIdentity: func(e BasicAuth) BasicAuth { e.ID, e.ConsumerID = testID, testParent; return e },
		create: func(ctx context.Context, c *Client, e BasicAuth) (BasicAuth, error) {
			return c.CreateBasicAuth(ctx, testCP, testParent, e)
		},
		upsert: func(ctx context.Context, c *Client, e BasicAuth) (BasicAuth, error) {
			return c.UpsertBasicAuth(ctx, testCP, testParent, testID, e)
		},
		get: func(ctx context.Context, c *Client) (BasicAuth, error) {
			return c.GetBasicAuth(ctx, testCP, testParent, testID)
		},
		delete: func(ctx context.Context, c *Client) error { return c.DeleteBasicAuth(ctx, testCP, testParent, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]BasicAuth, error) {
			return c.ListBasicAuths(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[KeyAuth]{
		name: "key-auth", collection: consumerPath + "key-auth", listPath: "key-auths", parentRef: "consumer",
		entity:       KeyAuth{Key: "k-123", TTL: ptr(3600), Tags: testTags},
		sent:         `{"key":"k-123","ttl":3600,` + testTagsJSON + `}`,
		withIdentity: func(e KeyAuth) KeyAuth { e.ID, e.ConsumerID = testID, testParent; return e },
		create: func(ctx context.Context, c *Client, e KeyAuth) (KeyAuth, error) {
			return c.CreateKeyAuth(ctx, testCP, testParent, e)
		},
		upsert: func(ctx context.Context, c *Client, e KeyAuth) (KeyAuth, error) {
			return c.UpsertKeyAuth(ctx, testCP, testParent, testID, e)
		},
		get: func(ctx context.Context, c *Client) (KeyAuth, error) {
			return c.GetKeyAuth(ctx, testCP, testParent, testID)
		},
		delete: func(ctx context.Context, c *Client) error { return c.DeleteKeyAuth(ctx, testCP, testParent, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]KeyAuth, error) {
			return c.ListKeyAuths(ctx, testCP, f)
		},
	}.tests(t)...)
	tests = append(tests, coreKind[ACL]{
		name: "acl", collection: consumerPath + "acls", listPath: "acls", parentRef: "consumer",
		entity:       ACL{Group: "admins", Tags: testTags},
		sent:         `{"group":"admins",` + testTagsJSON + `}`,
		withIdentity: func(e ACL) ACL { e.ID, e.ConsumerID = testID, testParent; return e },
		create: func(ctx context.Context, c *Client, e ACL) (ACL, error) {
			return c.CreateACL(ctx, testCP, testParent, e)
		},
		upsert: func(ctx context.Context, c *Client, e ACL) (ACL, error) {
			return c.UpsertACL(ctx, testCP, testParent, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (ACL, error) { return c.GetACL(ctx, testCP, testParent, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteACL(ctx, testCP, testParent, testID) },
		list:   func(ctx context.Context, c *Client, f ListFilter) ([]ACL, error) { return c.ListACLs(ctx, testCP, f) },
	}.tests(t)...)
	tests = append(tests, coreKind[JWT]{
		name: "jwt", collection: consumerPath + "jwt", listPath: "jwts", parentRef: "consumer",
		entity:       JWT{Key: "issuer", Algorithm: "RS256", Secret: "x", RSAPublicKey: "PUB", Tags: testTags},
		sent:         `{"key":"issuer","algorithm":"RS256","secret":"x","rsa_public_key":"PUB",` + testTagsJSON + `}`,
		withIdentity: func(e JWT) JWT { e.ID, e.ConsumerID = testID, testParent; return e },
		create: func(ctx context.Context, c *Client, e JWT) (JWT, error) {
			return c.CreateJWT(ctx, testCP, testParent, e)
		},
		upsert: func(ctx context.Context, c *Client, e JWT) (JWT, error) {
			return c.UpsertJWT(ctx, testCP, testParent, testID, e)
		},
		get:    func(ctx context.Context, c *Client) (JWT, error) { return c.GetJWT(ctx, testCP, testParent, testID) },
		delete: func(ctx context.Context, c *Client) error { return c.DeleteJWT(ctx, testCP, testParent, testID) },
		list:   func(ctx context.Context, c *Client, f ListFilter) ([]JWT, error) { return c.ListJWTs(ctx, testCP, f) },
	}.tests(t)...)
	tests = append(tests, coreKind[HMACAuth]{
		name: "hmac-auth", collection: consumerPath + "hmac-auth", listPath: "hmac-auths", parentRef: "consumer",
		entity:       HMACAuth{Username: "alice", Secret: "s", Tags: testTags},
		sent:         `{"username":"alice","secret":"s",` + testTagsJSON + `}`,
		withIdentity: func(e HMACAuth) HMACAuth { e.ID, e.ConsumerID = testID, testParent; return e },
		create: func(ctx context.Context, c *Client, e HMACAuth) (HMACAuth, error) {
			return c.CreateHMACAuth(ctx, testCP, testParent, e)
		},
		upsert: func(ctx context.Context, c *Client, e HMACAuth) (HMACAuth, error) {
			return c.UpsertHMACAuth(ctx, testCP, testParent, testID, e)
		},
		get: func(ctx context.Context, c *Client) (HMACAuth, error) {
			return c.GetHMACAuth(ctx, testCP, testParent, testID)
		},
		delete: func(ctx context.Context, c *Client) error { return c.DeleteHMACAuth(ctx, testCP, testParent, testID) },
		list: func(ctx context.Context, c *Client, f ListFilter) ([]HMACAuth, error) {
			return c.ListHMACAuths(ctx, testCP, f)
		},
	}.tests(t)...)
	runOpTests(t, tests)
}

func TestMembershipOperations(t *testing.T) {
	runOpTests(t, []opTest{
		{
			name: "add consumer to group", method: "POST", path: coreBase + "consumer_groups/grp-1/consumers",
			body: `{"consumer":"con-1"}`, status: 201, answer: `{"consumer_group":{"id":"grp-1","name":"gold"},"consumers":[{"id":"con-1"}]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.AddConsumerToGroup(ctx, testCP, "grp-1", "con-1")
			},
		},
		{
			name: "remove consumer from group", method: "DELETE", path: coreBase + "consumer_groups/grp-1/consumers/con-1", status: 204,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.RemoveConsumerFromGroup(ctx, testCP, "grp-1", "con-1")
			},
		},
		{
			name: "list the groups of a consumer", method: "GET", path: coreBase + "consumers/con-1/consumer_groups", status: 200,
			query:  map[string]string{"size": "1000"},
			answer: `{"data":[{"id":"grp-1","name":"gold","tags":["a"]},{"id":"grp-2","name":"silver"}],"next":null}`,
			want:   []ConsumerGroup{{ID: "grp-1", Name: "gold", Tags: []string{"a"}}, {ID: "grp-2", Name: "silver"}},
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListConsumerGroupsOfConsumer(ctx, testCP, "con-1")
			},
		},
	})
}

func TestPluginScopes(t *testing.T) {
	tests := []struct {
		name  string
		scope Plugin
		refs  string
	}{
		{name: "global", refs: ``},
		{name: "service", scope: Plugin{ServiceID: "s"}, refs: `,"service":{"id":"s"}`},
		{name: "route", scope: Plugin{RouteID: "r"}, refs: `,"route":{"id":"r"}`},
		{name: "consumer", scope: Plugin{ConsumerID: "c"}, refs: `,"consumer":{"id":"c"}`},
		{name: "consumer group", scope: Plugin{ConsumerGroupID: "g"}, refs: `,"consumer_group":{"id":"g"}`},
		{name: "service and consumer", scope: Plugin{ServiceID: "s", ConsumerID: "c"}, refs: `,"service":{"id":"s"},"consumer":{"id":"c"}`},
		{name: "route and consumer group", scope: Plugin{RouteID: "r", ConsumerGroupID: "g"}, refs: `,"route":{"id":"r"},"consumer_group":{"id":"g"}`},
		{
			name: "all four", scope: Plugin{ServiceID: "s", RouteID: "r", ConsumerID: "c", ConsumerGroupID: "g"},
			refs: `,"service":{"id":"s"},"route":{"id":"r"},"consumer":{"id":"c"},"consumer_group":{"id":"g"}`,
		},
	}
	var ops []opTest
	for _, tt := range tests {
		p := tt.scope
		p.Name = "cors"
		want := p
		want.ID = testID
		ops = append(ops, opTest{
			name: tt.name, method: "POST", path: coreBase + "plugins", status: 201,
			body:   `{"name":"cors"` + tt.refs + `}`,
			answer: `{"id":"` + testID + `","name":"cors"` + tt.refs + `}`,
			want:   want,
			call:   func(ctx context.Context, c *Client) (any, error) { return c.CreatePlugin(ctx, testCP, p) },
		})
	}
	runOpTests(t, ops)
}

func TestServiceURLIsExpanded(t *testing.T) {
	runOpTests(t, []opTest{
		{
			name: "url alone becomes protocol, host, port and path", method: "POST", path: coreBase + "services", status: 201,
			body:   `{"protocol":"https","host":"billing.internal","port":8443,"path":"/v1"}`,
			answer: `{"id":"` + testID + `","protocol":"https","host":"billing.internal","port":8443,"path":"/v1"}`,
			want:   Service{ID: testID, Protocol: "https", Host: "billing.internal", Port: ptr(8443), Path: "/v1"},
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateService(ctx, testCP, Service{URL: "https://billing.internal:8443/v1"})
			},
		},
		{
			name: "url next to a host is sent as it is", method: "PUT", path: coreBase + "services/" + testID, status: 200,
			body:   `{"host":"h","url":"http://other/"}`,
			answer: `{"id":"` + testID + `","protocol":"http","host":"other","port":80,"path":"/"}`,
			want:   Service{ID: testID, Protocol: "http", Host: "other", Port: ptr(80), Path: "/"},
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpsertService(ctx, testCP, testID, Service{Host: "h", URL: "http://other/"})
			},
		},
	})
}

func TestControlPlaneAndOrganizationOperations(t *testing.T) {
	cpAnswer := `{"id":"` + testCP + `","name":"prod","description":"production","labels":{"k8s-uid":"u1","env":"prod"},
		"config":{"control_plane_endpoint":"https://cp.example","telemetry_endpoint":"https://tp.example",
		"cluster_type":"CLUSTER_TYPE_CONTROL_PLANE","auth_type":"pinned_client_certs","cloud_gateway":false,
		"proxy_urls":[{"host":"proxy.example","port":443,"protocol":"https"}]},
		"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`
	wantCP := ControlPlane{
		ID: testCP, Name: "prod", Description: "production", ClusterType: "CLUSTER_TYPE_CONTROL_PLANE", AuthType: "pinned_client_certs",
		CloudGateway: ptr(false), ProxyURLs: []ProxyURL{{Host: "proxy.example", Port: 443, Protocol: "https"}},
		Labels: map[string]string{"k8s-uid": "u1", "env": "prod"},
		Config: ControlPlaneConfig{ControlPlaneEndpoint: "https://cp.example", TelemetryEndpoint: "https://tp.example", ClusterType: "CLUSTER_TYPE_CONTROL_PLANE"},
	}
	desired := ControlPlane{
		Name: "prod", Description: "production", ClusterType: "CLUSTER_TYPE_CONTROL_PLANE", AuthType: "pinned_client_certs",
		CloudGateway: ptr(false), ProxyURLs: []ProxyURL{{Host: "proxy.example", Port: 443, Protocol: "https"}},
		Labels: map[string]string{"k8s-uid": "u1", "env": "prod"},
	}
	runOpTests(t, []opTest{
		{
			name: "create control plane", method: "POST", path: "/v2/control-planes", status: 201, answer: cpAnswer, want: wantCP,
			body: `{"name":"prod","description":"production","cluster_type":"CLUSTER_TYPE_CONTROL_PLANE","auth_type":"pinned_client_certs",
				"cloud_gateway":false,"proxy_urls":[{"host":"proxy.example","port":443,"protocol":"https"}],"labels":{"k8s-uid":"u1","env":"prod"}}`,
			call: func(ctx context.Context, c *Client) (any, error) { return c.CreateControlPlane(ctx, desired) },
		},
		{
			name: "update control plane patches only the mutable fields", method: "PATCH", path: "/v2/control-planes/" + testCP,
			status: 200, answer: cpAnswer, want: wantCP,
			body: `{"name":"prod","description":"production","auth_type":"pinned_client_certs",
				"proxy_urls":[{"host":"proxy.example","port":443,"protocol":"https"}],"labels":{"k8s-uid":"u1","env":"prod"}}`,
			call: func(ctx context.Context, c *Client) (any, error) { return c.UpdateControlPlane(ctx, testCP, desired) },
		},
		{
			name: "update control plane clears the description", method: "PATCH", path: "/v2/control-planes/" + testCP,
			status: 200, answer: cpAnswer, want: wantCP, body: `{"name":"prod","description":""}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateControlPlane(ctx, testCP, ControlPlane{Name: "prod"})
			},
		},
		{
			name: "get control plane", method: "GET", path: "/v2/control-planes/" + testCP, status: 200, answer: cpAnswer, want: wantCP,
			call: func(ctx context.Context, c *Client) (any, error) { return c.GetControlPlane(ctx, testCP) },
		},
		{
			name: "delete control plane", method: "DELETE", path: "/v2/control-planes/" + testCP, status: 204,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.DeleteControlPlane(ctx, testCP) },
		},
		{
			name: "list control planes by id, name and labels", method: "GET", path: "/v2/control-planes", status: 200,
			query: map[string]string{
				"filter[id][eq]": testCP, "filter[name][eq]": "prod", "labels": "env:prod,k8s-uid:u1",
				"page[size]": "100", "page[number]": "1",
			},
			answer: `{"data":[` + cpAnswer + `],"meta":{"page":{"number":1,"size":100,"total":1}}}`, want: []ControlPlane{wantCP},
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListControlPlanes(ctx, ControlPlaneFilter{ID: testCP, Name: "prod", Labels: map[string]string{"k8s-uid": "u1", "env": "prod"}})
			},
		},
		{
			name: "set group members", method: "PUT", path: "/v2/control-planes/" + testCP + "/group-memberships", status: 204,
			body: `{"members":[{"id":"m-1"},{"id":"m-2"}]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SetControlPlaneGroupMembers(ctx, testCP, []string{"m-1", "m-2"})
			},
		},
		{
			name: "set no group members sends an empty list", method: "PUT", path: "/v2/control-planes/" + testCP + "/group-memberships",
			status: 204, body: `{"members":[]}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SetControlPlaneGroupMembers(ctx, testCP, nil)
			},
		},
		{
			name: "list group members", method: "GET", path: "/v2/control-planes/" + testCP + "/group-memberships", status: 200,
			query:  map[string]string{"page[size]": "100"},
			answer: `{"data":[` + cpAnswer + `],"meta":{"page":{"size":100,"next":null}}}`, want: []string{testCP},
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListControlPlaneGroupMembers(ctx, testCP)
			},
		},
		{
			name: "create data-plane certificate", method: "POST", path: "/v2/control-planes/" + testCP + "/dp-client-certificates",
			status: 201, body: `{"cert":"PEM"}`, answer: `{"item":{"id":"dp-1","cert":"PEM","created_at":1}}`,
			want: DataPlaneCertificate{ID: "dp-1", Cert: "PEM"},
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateDataPlaneCertificate(ctx, testCP, "PEM")
			},
		},
		{
			name: "get data-plane certificate", method: "GET", path: "/v2/control-planes/" + testCP + "/dp-client-certificates/dp-1",
			status: 200, answer: `{"item":{"id":"dp-1","cert":"PEM"}}`, want: DataPlaneCertificate{ID: "dp-1", Cert: "PEM"},
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetDataPlaneCertificate(ctx, testCP, "dp-1")
			},
		},
		{
			name: "delete data-plane certificate", method: "DELETE", path: "/v2/control-planes/" + testCP + "/dp-client-certificates/dp-1",
			status: 204,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteDataPlaneCertificate(ctx, testCP, "dp-1")
			},
		},
		{
			name: "list data-plane certificates", method: "GET", path: "/v2/control-planes/" + testCP + "/dp-client-certificates",
			status: 200, answer: `{"items":[{"id":"dp-1","cert":"A"},{"id":"dp-2","cert":"B"}],"page":{"total_count":2}}`,
			want: []DataPlaneCertificate{{ID: "dp-1", Cert: "A"}, {ID: "dp-2", Cert: "B"}},
			call: func(ctx context.Context, c *Client) (any, error) { return c.ListDataPlaneCertificates(ctx, testCP) },
		},
		{
			name: "who am I", method: "GET", path: "/v3/organizations/me", status: 200,
			answer: `{"id":"d99c041a-c7cf-46a2-bf3a-44bb5f75400e","name":"Acme","state":"active"}`,
			want:   Organization{ID: "d99c041a-c7cf-46a2-bf3a-44bb5f75400e", Name: "Acme"},
			call:   func(ctx context.Context, c *Client) (any, error) { return c.Me(ctx) },
		},
	})
}
