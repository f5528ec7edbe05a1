package konnectsim

import (
	"strings"
	"testing"
)

// TestTrustedCACertificateDeleteRefused: like Kong, the simulator refuses to
// delete a CA certificate that a service trusts, and allows it once the
// service no longer does.
func TestTrustedCACertificateDeleteRefused(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("trust", nil)
	caPEM, _ := testCertPEM(t, "ca.example", true)
	ca := c.do("POST", coreURL(cp, "ca_certificates"), map[string]any{"cert": caPEM}).must(t, 201)["id"].(string)
	svc := c.do("POST", coreURL(cp, "services"), map[string]any{
		"name": "trusting", "host": "x", "protocol": "https", "ca_certificates": []any{ca},
	}).must(t, 201)["id"].(string)

	refused := c.do("DELETE", coreURL(cp, "ca_certificates/"+ca), nil).must(t, 400)
	if msg, _ := refused["message"].(string); !strings.Contains(msg, "is still referenced by services (id = "+svc+")") {
		t.Fatalf("message = %q, want it to name the trusting service", msg)
	}
	c.do("PUT", coreURL(cp, "services/"+svc), map[string]any{"name": "trusting", "host": "x", "protocol": "https"}).must(t, 200)
	c.do("DELETE", coreURL(cp, "ca_certificates/"+ca), nil).must(t, 204)
}

// TestCertificateVaultReferences: cert and key (and the alternate pair) may
// be vault references, which are stored as given rather than parsed; a
// malformed PEM is still refused.
func TestCertificateVaultReferences(t *testing.T) {
	_, c := startSim(t, Options{})
	cp := c.newCP("vaulted", nil)
	certPEM, keyPEM := testCertPEM(t, "a.example", false)
	cases := []struct {
		name   string
		body   map[string]any
		status int
	}{
		{"both references", map[string]any{"cert": "{vault://env/cert}", "key": "{vault://env/key}"}, 201},
		{"key reference", map[string]any{"cert": certPEM, "key": "{vault://hcv/tls/key}"}, 201},
		{"alternate pair references", map[string]any{"cert": certPEM, "key": keyPEM, "cert_alt": "{vault://env/alt-cert}", "key_alt": "{vault://env/alt-key}"}, 201},
		{"not PEM and not a reference", map[string]any{"cert": "{vault:broken", "key": keyPEM}, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			got := c.do("POST", coreURL(cp, "certificates"), tc.body).must(t, tc.status)
			if tc.status == 201 && got["cert"] != tc.body["cert"] {
				t.Errorf("cert stored as %v, want %v", got["cert"], tc.body["cert"])
			}
		})
	}
}
