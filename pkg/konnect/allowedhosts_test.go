package konnect

import (
	"strings"
	"testing"
)

func TestAllowedHostsMatchServersAsTheyAreNormalised(t *testing.T) {
	allowed, err := ParseAllowedHosts(append([]string{"proxy.example.com:8443", " https://Tenant.Example.com/ "}, DefaultAllowedHosts...))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		serverURL string
		allowed   bool
	}{
		{"eu.api.konghq.com", true},
		{"https://us.api.konghq.com:443/", true},
		{"EU.API.KONGHQ.COM", true},
		{"eu.api.konghq.com:8443", false}, // a host alone allows port 443 only
		{"proxy.example.com:8443", true},
		{"proxy.example.com", false},
		{"tenant.example.com", true},
		{"eu.api.konghq.com.attacker.example", false},
		{"http://eu.api.konghq.com", false},
		{"", false},
	} {
		if got := allowed.Allows(tc.serverURL); got != tc.allowed {
			t.Errorf("Allows(%q) = %v, want %v", tc.serverURL, got, tc.allowed)
		}
	}
	if got := allowed.String(); !strings.HasPrefix(got, "proxy.example.com:8443,tenant.example.com,us.api.konghq.com") {
		t.Errorf("String() = %q", got)
	}
}

func TestAllowedHostsRefuseWhatCannotBeAServer(t *testing.T) {
	for _, hosts := range [][]string{nil, {" "}, {"https://host/path"}, {"ftp://host"}} {
		if _, err := ParseAllowedHosts(hosts); err == nil {
			t.Errorf("ParseAllowedHosts(%q) took it", hosts)
		}
	}
}

// No client is made, hence no token sent, for a server outside the list.
func TestTheFactoryMakesNoClientForAServerNotAllowed(t *testing.T) {
	allowed, err := ParseAllowedHosts([]string{"eu.api.konghq.com"})
	if err != nil {
		t.Fatal(err)
	}
	f := NewClientFactory(Options{AllowedHosts: allowed})
	if _, err := f.Client("https://tenant.example.com", "kpat_x"); !IsInvalidInput(err) || !strings.Contains(err.Error(), "not among the Konnect API hosts") {
		t.Fatalf("a client for a server not allowed: %v", err)
	}
	if _, err := f.Client("eu.api.konghq.com", "kpat_x"); err != nil {
		t.Fatalf("a client for an allowed server: %v", err)
	}
}
