package konnectsim

import (
	"net/http"
	"testing"
)

// TestTokensAreIssuedAndRevokedWhileClientsRun: a token revoked over
// /_sim/ is answered 401 from then on, one issued is accepted for its
// organisation, and the request log tells them apart by their hashes and
// names the client, never showing a token.
func TestTokensAreIssuedAndRevokedWhileClientsRun(t *testing.T) {
	ts, c := startSim(t, Options{})
	orgA, _ := ts.OrganizationID("org-a")
	c.do("GET", "/v3/organizations/me", nil).must(t, http.StatusOK)
	inspect := newClient(t, ts, "")
	inspect.do("POST", "/_sim/revoked-tokens", map[string]string{"token": testToken}).must(t, http.StatusNoContent)
	c.do("GET", "/v3/organizations/me", nil).must(t, http.StatusUnauthorized)
	inspect.do("POST", "/_sim/revoked-tokens", map[string]string{"token": testToken}).must(t, http.StatusNotFound)

	const issued = "kpat_issuedWhileRunning000000000000000000000000000"
	if got := inspect.do("POST", "/_sim/tokens", map[string]string{"token": issued, "organization": orgA}).must(t, http.StatusOK)["organization"]; got != orgA {
		t.Fatalf("issued for organisation %v, want %s", got, orgA)
	}
	me := newClient(t, ts, issued).do("GET", "/v3/organizations/me", nil).must(t, http.StatusOK)
	if me["id"] != orgA {
		t.Errorf("the issued token is of %v, want %s", me["id"], orgA)
	}

	var hashes []string
	for _, r := range ts.Requests() {
		hashes = append(hashes, r.Credential)
		if r.UserAgent == "" {
			t.Errorf("request %s %s logged without its User-Agent", r.Method, r.Path)
		}
	}
	want := []string{CredentialOf(testToken), CredentialOf(testToken), CredentialOf(issued)}
	if len(hashes) != len(want) || hashes[0] != want[0] || hashes[1] != want[1] || hashes[2] != want[2] {
		t.Errorf("token hashes logged %v, want %v", hashes, want)
	}
	if CredentialOf(testToken) == CredentialOf(issued) {
		t.Errorf("CredentialOf does not tell tokens apart: %q, %q", CredentialOf(testToken), CredentialOf(issued))
	}
}

// TestFaultOfOneOrganisationLeavesTheOthersServed: a fault limited to an
// organisation fails its requests alone.
func TestFaultOfOneOrganisationLeavesTheOthersServed(t *testing.T) {
	ts, a := startSim(t, Options{})
	b := newClient(t, ts, otherToken)
	orgA, _ := ts.OrganizationID("org-a")
	ts.Faults().Set("*", Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable, Organization: orgA})
	a.do("GET", "/v2/control-planes", nil).must(t, http.StatusServiceUnavailable)
	b.do("GET", "/v2/control-planes", nil).must(t, http.StatusOK)
}
