package konnectsim

import (
	"slices"
	"testing"
)

// TestRicherBodiesConform: fuller bodies than the minimal ones (expression
// routes, service URLs, scoped plugins, keys in sets, PEM keys, partial
// healthchecks, certificates with SNIs) are accepted and answered in shapes
// the document allows (Start fails the test on any violation).
func TestRicherBodiesConform(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("shapes", map[string]any{
		"description": "d", "cluster_type": "CLUSTER_TYPE_K8S_INGRESS_CONTROLLER", "auth_type": "pki_client_certs",
		"proxy_urls": []any{map[string]any{"host": "proxy.example", "port": 443, "protocol": "https"}},
	})
	// The document requires host even next to url; url wins.
	svc := c.do("POST", coreURL(cp, "services"), map[string]any{"name": "by-url", "host": "ignored", "url": "https://api.example:8443/v1"}).must(t, 201)
	if svc["protocol"] != "https" || svc["host"] != "api.example" || svc["port"] != 8443.0 || svc["path"] != "/v1" || svc["url"] != nil {
		t.Errorf("service from url = %v", svc)
	}
	svcID := svc["id"].(string)
	expr := c.do("POST", coreURL(cp, "routes"), map[string]any{
		"name": "expr", "expression": `http.path == "/x"`, "service": map[string]any{"id": svcID},
	}).must(t, 201)
	if expr["priority"] != 0.0 || expr["regex_priority"] != nil {
		t.Errorf("expression route = %v", expr)
	}
	c.do("POST", coreURL(cp, "routes"), map[string]any{"name": "mixed", "expression": "true", "paths": []any{"/"}}).must(t, 400)
	if len(ts.TakeViolations()) != 1 {
		t.Error("a route mixing expression and paths was not a violation")
	}
	c.do("POST", coreURL(cp, "services/"+svcID+"/routes"), map[string]any{
		"name": "json", "methods": []any{"GET"}, "hosts": []any{"a.example"}, "headers": map[string]any{"x-a": []any{"1"}},
		"protocols": []any{"http", "https"}, "strip_path": false,
	}).must(t, 201)
	consumer := c.do("POST", coreURL(cp, "consumers"), map[string]any{"custom_id": "only-custom"}).must(t, 201)["id"].(string)
	group := c.do("POST", coreURL(cp, "consumer_groups"), map[string]any{"name": "gold"}).must(t, 201)["id"].(string)
	for _, path := range []string{"consumers/" + consumer + "/plugins", "consumer_groups/" + group + "/plugins", "routes/json/plugins"} {
		c.do("POST", coreURL(cp, path), map[string]any{"name": "rate-limiting", "config": map[string]any{"minute": 10}}).must(t, 201)
	}
	if n := len(c.do("GET", coreURL(cp, "consumer_groups/"+group+"/plugins"), nil).must(t, 200)["data"].([]any)); n != 1 {
		t.Errorf("consumer group lists %d plugins", n)
	}
	set := c.do("POST", coreURL(cp, "key-sets"), map[string]any{"name": "set"}).must(t, 201)["id"].(string)
	_, pemKey := testCertPEM(t, "key", false)
	c.do("POST", coreURL(cp, "key-sets/"+set+"/keys"), map[string]any{"kid": "k1", "pem": map[string]any{"private_key": pemKey}}).must(t, 201)
	c.do("POST", coreURL(cp, "keys"), map[string]any{"kid": "k1", "jwk": `{"kid":"k1","kty":"oct"}`}).must(t, 201)
	c.do("POST", coreURL(cp, "keys"), map[string]any{"kid": "k2", "jwk": `{"kid":"other","kty":"oct"}`}).must(t, 400)
	c.do("DELETE", coreURL(cp, "key-sets/"+set), nil).must(t, 204)
	if n := len(c.do("GET", coreURL(cp, "keys"), nil).must(t, 200)["data"].([]any)); n != 1 {
		t.Errorf("%d keys after deleting the set, want only the set-less one", n)
	}
	up := c.do("POST", coreURL(cp, "upstreams"), map[string]any{
		"name": "u", "healthchecks": map[string]any{"active": map[string]any{"http_path": "/healthz"}},
	}).must(t, 201)
	active := up["healthchecks"].(map[string]any)["active"].(map[string]any)
	if active["http_path"] != "/healthz" || active["concurrency"] != 10.0 {
		t.Errorf("partial healthchecks were not completed: %v", active)
	}
	cert, key := testCertPEM(t, "site.example", false)
	certID := c.do("POST", coreURL(cp, "certificates"), map[string]any{"cert": cert, "key": key}).must(t, 201)["id"].(string)
	c.do("POST", coreURL(cp, "snis"), map[string]any{"name": "b.example", "certificate": map[string]any{"id": certID}}).must(t, 201)
	c.do("POST", coreURL(cp, "certificates/"+certID+"/snis"), map[string]any{"name": "a.example"}).must(t, 201)
	got := c.do("GET", coreURL(cp, "certificates/"+certID), nil).must(t, 200)
	if !slices.Equal(stringsOf(got["snis"]), []string{"a.example", "b.example"}) {
		t.Errorf("certificate snis = %v", got["snis"])
	}
	c.do("POST", coreURL(cp, "vaults"), map[string]any{"name": "env", "prefix": "my-env", "config": map[string]any{"prefix": "APP_"}, "description": "d"}).must(t, 201)
	basic := c.do("POST", coreURL(cp, "consumers/"+consumer+"/basic-auth"), map[string]any{"username": "b", "password": "pw"}).must(t, 201)
	if basic["password"] == "pw" {
		t.Error("basic-auth password returned in clear; Konnect returns its hash")
	}
	jwt := c.do("POST", coreURL(cp, "consumers/"+consumer+"/jwt"), map[string]any{}).must(t, 201)
	if jwt["key"] == nil || jwt["secret"] == nil {
		t.Errorf("jwt without key/secret was not completed: %v", jwt)
	}
}
