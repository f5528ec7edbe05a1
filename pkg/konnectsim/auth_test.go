package konnectsim

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// TestUnauthorized: unknown and missing tokens are 401 in each API's
// dialect, carry a trace id, and cost no rate-limit budget.
func TestUnauthorized(t *testing.T) {
	ts, c := startSim(t, Options{RateLimitPerMinute: 100})
	cp := c.newCP("auth", nil)
	cases := []struct {
		name, path, token, contentType string
		field                          string // a body field that must be present
	}{
		{"control planes, unknown token", "/v2/control-planes", "kpat_unknown", contentProblem, "instance"},
		{"organisation, no token", "/v3/organizations/me", "", contentProblem, "instance"},
		{"core entities", coreURL(cp, "services"), "kpat_unknown", contentJSON, "message"},
		{"flat targets declare a problem", coreURL(cp, "targets"), "kpat_unknown", contentProblem, "instance"},
		{"DP certificates", "/v2/control-planes/" + cp + "/dp-client-certificates", "kpat_unknown", contentJSON, "message"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			anon := newClient(t, ts, tc.token)
			r := anon.do("GET", tc.path, nil)
			body := r.must(t, http.StatusUnauthorized)
			if got := r.header.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tc.contentType)
			}
			if _, ok := body[tc.field]; !ok {
				t.Errorf("body %v lacks %q", body, tc.field)
			}
			if r.header.Get("RateLimit-Remaining") != "" {
				t.Error("a 401 carries rate-limit headers")
			}
		})
	}
	// The trace id differs per request, as Konnect's does.
	anon := newClient(t, ts, "kpat_unknown")
	first := anon.do("GET", "/v2/control-planes", nil).body["instance"]
	second := anon.do("GET", "/v2/control-planes", nil).body["instance"]
	if first == second || !strings.HasPrefix(first.(string), "kong:trace:") {
		t.Errorf("trace ids %v and %v: want distinct kong:trace: ids", first, second)
	}
}

// TestOrganizationsAreIsolated: a token sees only its organisation.
func TestOrganizationsAreIsolated(t *testing.T) {
	ts, c := startSim(t, Options{})
	other := newClient(t, ts, otherToken)
	cp := c.newCP("mine", nil)
	other.do("GET", "/v2/control-planes/"+cp, nil).must(t, 404)
	other.do("GET", coreURL(cp, "services"), nil).must(t, 404)
	if n := len(other.do("GET", "/v2/control-planes", nil).must(t, 200)["data"].([]any)); n != 0 {
		t.Errorf("other organisation lists %d control planes", n)
	}
	// The same name is free in another organisation.
	other.newCP("mine", nil)
	me := c.do("GET", "/v3/organizations/me", nil).must(t, 200)
	them := other.do("GET", "/v3/organizations/me", nil).must(t, 200)
	if me["id"] == them["id"] || me["name"] != "org-a" {
		t.Errorf("me = %v, other = %v", me, them)
	}
	if id, _ := ts.OrganizationID("org-a"); id != me["id"] || ts.Count(id) != 1 || ts.Count("org-a") != 1 {
		t.Errorf("organisation looked up by name and id disagree: %s vs %v", id, me["id"])
	}
}

// TestRateLimit: every authenticated response carries the budget; past it
// Konnect answers 429 with Retry-After (or without, when told), and the next
// minute window restores it. Organisations have separate budgets.
func TestRateLimit(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 12, 0, 10, 0, time.UTC))
	ts, c := startSim(t, Options{RateLimitPerMinute: 3, Clock: clk})
	for i := 1; i <= 3; i++ {
		r := c.do("GET", "/v3/organizations/me", nil)
		r.must(t, 200)
		for header, want := range map[string]string{
			"RateLimit-Limit": "3", "RateLimit-Remaining": strconv.Itoa(3 - i), "RateLimit-Reset": "50",
			"X-RateLimit-Limit-Minute": "3", "X-RateLimit-Remaining-Minute": strconv.Itoa(3 - i),
		} {
			if got := r.header.Get(header); got != want {
				t.Errorf("request %d: %s = %q, want %q", i, header, got, want)
			}
		}
	}
	limited := c.do("GET", "/v2/control-planes", nil)
	limited.must(t, http.StatusTooManyRequests)
	if limited.header.Get("Retry-After") != "50" || limited.header.Get("RateLimit-Remaining") != "0" {
		t.Errorf("429 headers: %v", limited.header)
	}
	newClient(t, ts, otherToken).do("GET", "/v3/organizations/me", nil).must(t, 200)
	clk.SetTime(clk.Now().Add(50 * time.Second))
	c.do("GET", "/v3/organizations/me", nil).must(t, 200)
	// /_sim/orgs counts each organisation's requests over every window.
	var orgs []orgSummary
	if err := json.Unmarshal(newClient(t, ts, "").do("GET", "/_sim/orgs", nil).raw, &orgs); err != nil {
		t.Fatal(err)
	}
	spent := map[string][2]int{}
	for _, o := range orgs {
		spent[o.Name] = [2]int{o.Requests, o.RateLimited}
	}
	if want := map[string][2]int{"org-a": {4, 1}, "org-b": {1, 0}}; !reflect.DeepEqual(spent, want) {
		t.Errorf("/_sim/orgs requests and 429s = %v, want %v", spent, want)
	}

	_, quiet := startSim(t, Options{RateLimitPerMinute: 1, Clock: clk, OmitRetryAfter: true})
	quiet.do("GET", "/v3/organizations/me", nil).must(t, 200)
	r := quiet.do("GET", "/v3/organizations/me", nil)
	r.must(t, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") != "" || r.header.Get("RateLimit-Reset") == "" {
		t.Errorf("with OmitRetryAfter: Retry-After %q, RateLimit-Reset %q", r.header.Get("Retry-After"), r.header.Get("RateLimit-Reset"))
	}
}

// TestUnlimitedHasNoRateLimitHeaders: without a limit there is nothing to report.
func TestUnlimitedHasNoRateLimitHeaders(t *testing.T) {
	_, c := startSim(t, Options{})
	if r := c.do("GET", "/v3/organizations/me", nil); r.header.Get("RateLimit-Limit") != "" {
		t.Errorf("RateLimit-Limit = %q without a limit", r.header.Get("RateLimit-Limit"))
	}
}

// The request log says which token each request carried, known or not,
// by hash: a test tells tokens apart without the log holding one.
func TestTheRequestLogNamesTheTokenOfEachRequestByItsHash(t *testing.T) {
	ts, c := startSim(t, Options{})
	c.do("GET", "/v3/organizations/me", nil).must(t, http.StatusOK)
	newClient(t, ts, "kpat_stranger").do("GET", "/v3/organizations/me", nil).must(t, http.StatusUnauthorized)
	newClient(t, ts, "kpat_stranger").do("GET", "/no/such/path", nil).must(t, http.StatusNotFound)
	newClient(t, ts, "").do("GET", "/v3/organizations/me", nil).must(t, http.StatusUnauthorized)
	var got []string
	for _, r := range ts.Requests() {
		got = append(got, r.Credential)
		if strings.Contains(r.Credential, "kpat") {
			t.Fatalf("the log holds a token: %+v", r)
		}
	}
	want := []string{CredentialOf(testToken), CredentialOf("kpat_stranger"), CredentialOf("kpat_stranger"), ""}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("credentials %q, want %q", got, want)
	}
	if CredentialOf(testToken) == CredentialOf(otherToken) || len(CredentialOf(testToken)) != 16 {
		t.Fatalf("CredentialOf does not tell tokens apart: %q", CredentialOf(testToken))
	}
}
