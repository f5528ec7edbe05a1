package konnectsim

import (
	"strings"
	"testing"
)

// egFixture is an event gateway with a backend cluster, a listener and a
// virtual cluster, as the tests below start from.
type egFixture struct {
	gateway, backend, listener, cluster string
}

func (c *apiClient) newEventGateway(t *testing.T, name string) egFixture {
	t.Helper()
	f := egFixture{gateway: eventGateways + "/" + c.do("POST", eventGateways, map[string]any{"name": name}).must(t, 201)["id"].(string)}
	f.backend = c.do("POST", f.gateway+"/backend-clusters", map[string]any{
		"name": "kafka", "bootstrap_servers": []any{"kafka:9092"}, "tls": map[string]any{"enabled": false},
		"authentication": map[string]any{"type": "sasl_plain", "username": "gw", "password": "secret"},
	}).must(t, 201)["id"].(string)
	f.listener = c.do("POST", f.gateway+"/listeners", map[string]any{"name": "public", "addresses": []any{"0.0.0.0"}, "ports": []any{9092}}).must(t, 201)["id"].(string)
	f.cluster = c.do("POST", f.gateway+"/virtual-clusters", virtualClusterBody("orders", "orders", map[string]any{"name": "kafka"})).must(t, 201)["id"].(string)
	return f
}

func virtualClusterBody(name, dnsLabel string, destination map[string]any) map[string]any {
	return map[string]any{
		"name": name, "dns_label": dnsLabel, "acl_mode": "passthrough", "destination": destination,
		"authentication": []any{map[string]any{"type": "sasl_plain", "mediation": "terminate",
			"principals": []any{map[string]any{"username": "partner", "password": "p4ss"}}}},
	}
}

func headerPolicy(name string) map[string]any {
	return map[string]any{"type": "modify_headers", "name": name,
		"config": map[string]any{"actions": []any{map[string]any{"op": "set", "key": "x-a", "value": "b"}}}}
}

// TestEventGatewayKeysAreUnique: a gateway's name is unique in the
// organisation; a backend cluster's, listener's, schema registry's and
// virtual cluster's name (and a virtual cluster's DNS label) in its
// gateway; a data-plane certificate once per gateway. Each clash is a
// 409, and the same key in another gateway is fine. A policy's name is no
// key: two policies of one parent may share it.
func TestEventGatewayKeysAreUnique(t *testing.T) {
	_, c := startSim(t, Options{})
	a, b := c.newEventGateway(t, "a"), c.newEventGateway(t, "b")
	c.do("POST", eventGateways, map[string]any{"name": "a"}).must(t, 409)
	c.do("PUT", b.gateway, map[string]any{"name": "a"}).must(t, 409)

	// Keys the fixture holds already in both gateways: a clash in a.
	for name, tc := range map[string]struct {
		path string
		body map[string]any
	}{
		"listener": {"/listeners", map[string]any{"name": "public", "addresses": []any{"0.0.0.0"}, "ports": []any{"9093-9095"}}},
		"backend cluster": {"/backend-clusters", map[string]any{"name": "kafka", "bootstrap_servers": []any{"k2:9092"},
			"tls": map[string]any{"enabled": true}, "authentication": map[string]any{"type": "anonymous"}}},
		"virtual cluster name":      {"/virtual-clusters", virtualClusterBody("orders", "other", map[string]any{"name": "kafka"})},
		"virtual cluster DNS label": {"/virtual-clusters", virtualClusterBody("other", "orders", map[string]any{"name": "kafka"})},
	} {
		t.Run(name, func(t *testing.T) { c.do("POST", a.gateway+tc.path, tc.body).must(t, 409) })
	}
	// New keys: created in a, refused again in a, created in b.
	for name, tc := range map[string]struct {
		path string
		body map[string]any
	}{
		"schema registry": {"/schema-registries", map[string]any{"type": "confluent", "name": "schemas",
			"config": map[string]any{"schema_type": "avro", "endpoint": "https://schemas.example.com"}}},
		"data-plane certificate": {"/data-plane-certificates", map[string]any{"certificate": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}},
	} {
		t.Run(name, func(t *testing.T) {
			in := func(f egFixture) string {
				return f.gateway + strings.NewReplacer("{listener}", f.listener, "{cluster}", f.cluster).Replace(tc.path)
			}
			c.do("POST", in(a), tc.body).must(t, 201)
			c.do("POST", in(a), tc.body).must(t, 409)
			c.do("POST", in(b), tc.body).must(t, 201)
		})
	}
	// Policies of one name, of one parent and across kinds of policy.
	for _, path := range []string{"/consume-policies", "/consume-policies", "/produce-policies"} {
		c.do("POST", a.gateway+"/virtual-clusters/"+a.cluster+path, headerPolicy("stamp")).must(t, 201)
	}
	forward := map[string]any{"type": "forward_to_virtual_cluster", "name": "forward", "config": map[string]any{"type": "sni"}}
	c.do("POST", a.gateway+"/listeners/"+a.listener+"/policies", forward).must(t, 201)
	c.do("POST", a.gateway+"/listeners/"+a.listener+"/policies", forward).must(t, 201)
}

// TestEventGatewayGoesWithWhatItHolds: a backend cluster that a virtual
// cluster maps to cannot be deleted (409) until the virtual cluster is;
// a policy is only reached through its own gateway; deleting a gateway
// deletes everything it holds.
func TestEventGatewayGoesWithWhatItHolds(t *testing.T) {
	ts, c := startSim(t, Options{})
	a, b := c.newEventGateway(t, "a"), c.newEventGateway(t, "b")
	policy := c.do("POST", a.gateway+"/listeners/"+a.listener+"/policies", map[string]any{"type": "forward_to_virtual_cluster",
		"config": map[string]any{"type": "port_mapping", "destination": map[string]any{"name": "orders"}, "advertised_host": "kafka.example.com"}}).must(t, 201)["id"].(string)
	c.do("GET", b.gateway+"/listeners/"+a.listener+"/policies/"+policy, nil).must(t, 404)
	c.do("GET", a.gateway+"/listeners/"+a.listener+"/policies/"+policy, nil).must(t, 200)
	c.do("POST", a.gateway+"/virtual-clusters/"+a.cluster+"/cluster-policies", map[string]any{"type": "acls",
		"config": map[string]any{"rules": []any{map[string]any{"resource_type": "topic", "action": "allow",
			"operations": []any{map[string]any{"name": "read"}}, "resource_names": []any{map[string]any{"match": "*"}}}}}}).must(t, 201)

	c.do("DELETE", b.gateway+"/backend-clusters/"+a.backend, nil).must(t, 404) // another gateway's
	c.do("DELETE", a.gateway+"/backend-clusters/"+a.backend, nil).must(t, 409)
	c.do("DELETE", a.gateway+"/virtual-clusters/"+a.cluster, nil).must(t, 204)
	c.do("DELETE", a.gateway+"/backend-clusters/"+a.backend, nil).must(t, 204)

	org, _ := ts.OrganizationID("org-a")
	before := ts.Count(org)
	c.do("DELETE", b.gateway, nil).must(t, 204)
	if n := ts.Count(org); n != before-4 { // the gateway, its backend cluster, listener and virtual cluster
		t.Fatalf("%d entities left of %d, want %d", n, before, before-4)
	}
	c.do("DELETE", a.gateway, nil).must(t, 204)
	if n := ts.Count(org); n != 0 {
		t.Fatalf("%d entities left", n)
	}
}

// TestEventGatewayAnswersLeaveSecretsOut: passwords and private keys are
// written but never answered, unless given as a vault reference, which is
// answered as it is kept; a virtual cluster named by its backend cluster's
// name answers the cluster's ID and name.
func TestEventGatewayAnswersLeaveSecretsOut(t *testing.T) {
	_, c := startSim(t, Options{})
	f := c.newEventGateway(t, "a")
	backend := c.do("GET", f.gateway+"/backend-clusters/"+f.backend, nil).must(t, 200)
	if auth := backend["authentication"].(map[string]any); auth["password"] != nil || auth["username"] != "gw" {
		t.Fatalf("backend cluster authentication answered as %v", auth)
	}
	byReference := c.do("POST", f.gateway+"/backend-clusters", map[string]any{
		"name": "by-reference", "bootstrap_servers": []any{"kafka:9093"}, "tls": map[string]any{"enabled": false},
		"authentication": map[string]any{"type": "sasl_plain", "username": "gw", "password": "${vault.env['KAFKA_PASSWORD']}"},
	}).must(t, 201)
	if auth := byReference["authentication"].(map[string]any); auth["password"] != "${vault.env['KAFKA_PASSWORD']}" {
		t.Fatalf("a password given as a vault reference answered as %v", auth)
	}
	cluster := c.do("GET", f.gateway+"/virtual-clusters/"+f.cluster, nil).must(t, 200)
	principal := cluster["authentication"].([]any)[0].(map[string]any)["principals"].([]any)[0].(map[string]any)
	if principal["password"] != nil || principal["username"] != "partner" {
		t.Fatalf("principal answered as %v", principal)
	}
	if destination := cluster["destination"].(map[string]any); destination["id"] != f.backend || destination["name"] != "kafka" {
		t.Fatalf("destination answered as %v", destination)
	}
	policy := c.do("POST", f.gateway+"/listeners/"+f.listener+"/policies", map[string]any{"type": "tls_server",
		"config": map[string]any{"certificates": []any{map[string]any{"certificate": "cert", "key": "private"}}}}).must(t, 201)
	if certificate := policy["config"].(map[string]any)["certificates"].([]any)[0].(map[string]any); certificate["key"] != nil {
		t.Fatalf("certificate answered as %v", certificate)
	}
	registry := c.do("POST", f.gateway+"/schema-registries", map[string]any{"type": "confluent", "name": "schemas",
		"config": map[string]any{"schema_type": "json", "endpoint": "https://schemas.example.com",
			"authentication": map[string]any{"type": "basic", "username": "reader", "password": "hidden"}}}).must(t, 201)
	config := registry["config"].(map[string]any)
	if config["authentication"].(map[string]any)["password"] != nil || config["timeout_seconds"] != float64(10) {
		t.Fatalf("schema registry config answered as %v", config)
	}
	c.do("POST", f.gateway+"/virtual-clusters", virtualClusterBody("x", "x", map[string]any{"name": "missing"})).must(t, 400)
}

// TestEventGatewayReplaceWritesDefaults: a replacement (PUT) writes the
// body whole, so what it leaves out is Konnect's default again, and keeps
// what Konnect computes.
func TestEventGatewayReplaceWritesDefaults(t *testing.T) {
	_, c := startSim(t, Options{})
	f := c.newEventGateway(t, "a")
	c.do("PUT", f.gateway+"/listeners/"+f.listener, map[string]any{"name": "public", "description": "d",
		"addresses": []any{"0.0.0.0"}, "ports": []any{9092}, "labels": map[string]any{"team": "x"}}).must(t, 200)
	got := c.do("PUT", f.gateway+"/listeners/"+f.listener, map[string]any{"name": "public",
		"addresses": []any{"0.0.0.0"}, "ports": []any{9092}}).must(t, 200)
	if got["description"] != "" || len(got["labels"].(map[string]any)) != 0 {
		t.Fatalf("listener after a replacement without description and labels: %v", got)
	}
	gateway := c.do("PUT", f.gateway, map[string]any{"name": "a", "description": "renamed"}).must(t, 200)
	if gateway["virtual_clusters_total"] != float64(1) || gateway["description"] != "renamed" {
		t.Fatalf("gateway after a replacement: %v", gateway)
	}
}
