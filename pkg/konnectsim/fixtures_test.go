package konnectsim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// testCertPEM makes a PEM certificate and key; ca marks it a CA.
func testCertPEM(t testing.TB, cn string, ca bool) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		BasicConstraintsValid: true, IsCA: ca, DNSNames: []string{cn},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
}

// kindCase is a valid minimal entity of one kind, with the parent it needs.
type kindCase struct {
	collection string
	// parent, when set, is created first; its id is put under parentField.
	parent      string
	parentField string
	// nested is the URL segment under the parent (e.g. "routes", "key-auth").
	nested string
	body   func(t testing.TB, i int) map[string]any
	// defaults the response must carry.
	defaults map[string]any
	// uniqueField is the field whose clash makes a second create fail; "" = none.
	uniqueField string
}

func name(prefix string, i int) string { return prefix + "-" + string(rune('a'+i%26)) + itoa(i) }

func itoa(i int) string {
	return big.NewInt(int64(i)).String()
}

var kindCases = []kindCase{
	{collection: "services", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"name": name("svc", i), "host": "example.com"}
	}, defaults: map[string]any{"port": 80.0, "protocol": "http", "retries": 5.0, "connect_timeout": 60000.0, "enabled": true}, uniqueField: "name"},
	{collection: "routes", parent: "services", parentField: "service", nested: "routes", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"name": name("route", i), "paths": []any{"/"}}
	}, defaults: map[string]any{"strip_path": true, "https_redirect_status_code": 426.0, "regex_priority": 0.0}, uniqueField: "name"},
	{collection: "plugins", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"name": "rate-limiting", "instance_name": name("rl", i), "config": map[string]any{"minute": 5}}
	}, defaults: map[string]any{"enabled": true}, uniqueField: "instance_name"},
	{collection: "consumers", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"username": name("user", i), "custom_id": name("cid", i)}
	}, uniqueField: "username"},
	{collection: "consumer_groups", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"name": name("group", i)}
	}, uniqueField: "name"},
	{collection: "upstreams", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"name": name("up", i)}
	}, defaults: map[string]any{"algorithm": "round-robin", "slots": 10000.0}, uniqueField: "name"},
	{collection: "targets", parent: "upstreams", parentField: "upstream", nested: "targets", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"target": name("host", i) + ":80"}
	}, defaults: map[string]any{"weight": 100.0}, uniqueField: "target"},
	{collection: "certificates", body: func(t testing.TB, i int) map[string]any {
		cert, key := testCertPEM(t, name("cert", i)+".example.com", false)
		return map[string]any{"cert": cert, "key": key}
	}},
	{collection: "ca_certificates", body: func(t testing.TB, i int) map[string]any {
		cert, _ := testCertPEM(t, name("ca", i), true)
		return map[string]any{"cert": cert}
	}},
	{collection: "snis", parent: "certificates", parentField: "certificate", nested: "snis", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"name": name("sni", i) + ".example.com"}
	}, uniqueField: "name"},
	{collection: "keys", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"kid": name("kid", i), "name": name("key", i), "jwk": `{"kty":"oct","k":"c2VjcmV0"}`}
	}, uniqueField: "name"},
	{collection: "key-sets", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"name": name("set", i)}
	}, uniqueField: "name"},
	{collection: "vaults", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"name": "env", "prefix": name("vault", i)}
	}, uniqueField: "prefix"},
	{collection: "key-auths", parent: "consumers", parentField: "consumer", nested: "key-auth", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"key": name("apikey", i)}
	}, uniqueField: "key"},
	{collection: "basic-auths", parent: "consumers", parentField: "consumer", nested: "basic-auth", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"username": name("basic", i), "password": "secret"}
	}, uniqueField: "username"},
	{collection: "acls", parent: "consumers", parentField: "consumer", nested: "acls", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"group": name("acl", i)}
	}, uniqueField: "group"},
	{collection: "jwts", parent: "consumers", parentField: "consumer", nested: "jwt", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"key": name("iss", i)}
	}, defaults: map[string]any{"algorithm": "HS256"}, uniqueField: "key"},
	{collection: "hmac-auths", parent: "consumers", parentField: "consumer", nested: "hmac-auth", body: func(_ testing.TB, i int) map[string]any {
		return map[string]any{"username": name("hmac", i)}
	}, uniqueField: "username"},
}

func findKindCase(collection string) kindCase {
	for _, kc := range kindCases {
		if kc.collection == collection {
			return kc
		}
	}
	panic(collection)
}

// createPath is where a kind is created: flat, or nested under a fresh parent.
func (c *apiClient) createPath(cp string, kc kindCase, i int) (path, parentID string) {
	c.t.Helper()
	if kc.parent == "" {
		return coreURL(cp, kc.collection), ""
	}
	parent := findKindCase(kc.parent)
	parentID = c.do("POST", coreURL(cp, kc.parent), parent.body(c.t, 1000+i)).must(c.t, 201)["id"].(string)
	return coreURL(cp, kc.parent+"/"+parentID+"/"+kc.nested), parentID
}
