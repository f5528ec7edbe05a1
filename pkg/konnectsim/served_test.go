package konnectsim

import (
	"context"
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// TestFaultBare429: a fault with status 429 answers as Konnect's
// connection-level limiter does: no delay, no rate-limit headers, and the
// organisation's budget untouched.
func TestFaultBare429(t *testing.T) {
	ts, c := startSim(t, Options{RateLimitPerMinute: 100})
	ts.Faults().Set("*", Fault{Status: http.StatusTooManyRequests, Times: 2})
	for _, path := range []string{"/v3/organizations/me", "/v2/control-planes"} {
		r := c.do("GET", path, nil)
		r.must(t, http.StatusTooManyRequests)
		for _, name := range rateLimitHeaders {
			if v := r.header.Get(name); v != "" {
				t.Errorf("GET %s: bare 429 carries %s: %s", path, name, v)
			}
		}
	}
	r := c.do("GET", "/v3/organizations/me", nil)
	r.must(t, http.StatusOK)
	if got := r.header.Get("RateLimit-Remaining"); got != "99" {
		t.Errorf("RateLimit-Remaining after two bare 429s and one success = %s, want 99: the bare 429s spent the budget", got)
	}
	if got := ts.Served(); got != (Served{RateLimitedWithoutDelay: 2}) {
		t.Errorf("Served = %+v, want two 429s without a delay", got)
	}
}

// TestFaultsOfSeveralKeysMix: a request meets its operation's fault and
// then the one of "*", so that kinds of faults can be combined.
func TestFaultsOfSeveralKeysMix(t *testing.T) {
	ts, c := startSim(t, Options{})
	ts.Faults().Seed(11)
	ts.Faults().Set("get-organizations-me", Fault{ErrorRate: 0.5, Status: http.StatusServiceUnavailable, Latency: 2 * time.Millisecond})
	ts.Faults().Set("*", Fault{ErrorRate: 0.5, Status: http.StatusInternalServerError})
	byStatus := map[int]int{}
	for range 400 {
		byStatus[c.do("GET", "/v3/organizations/me", nil).status]++
	}
	// 503 half the time; of the rest, 500 half the time.
	for status, want := range map[int]int{503: 200, 500: 100, 200: 100} {
		if got := byStatus[status]; got < want*6/10 || got > want*14/10 {
			t.Errorf("%d answers %d of 400 times, want about %d (all: %v)", status, got, want, byStatus)
		}
	}
	if got := ts.Served().ServerErrors; got != byStatus[500]+byStatus[503] {
		t.Errorf("Served().ServerErrors = %d, want %d", got, byStatus[500]+byStatus[503])
	}
}

// TestServedCountsWhatFaultsProvoked: 429s with and without a delay, 5xx
// and hangs are counted, reset with the calls, and shown under /_sim/served.
func TestServedCountsWhatFaultsProvoked(t *testing.T) {
	ts, c := startSim(t, Options{RateLimitPerMinute: 4, OmitRetryAfter: true})
	ts.Faults().Force429(1, 2*time.Second) // RateLimit-Reset only: still a delay
	c.do("GET", "/v3/organizations/me", nil).must(t, http.StatusTooManyRequests)
	ts.Faults().Set("get-organizations-me", Fault{Status: http.StatusBadGateway, Times: 1})
	c.do("GET", "/v3/organizations/me", nil).must(t, http.StatusBadGateway)
	for range 3 {
		c.do("GET", "/v3/organizations/me", nil).must(t, http.StatusOK)
	}
	c.do("GET", "/v3/organizations/me", nil).must(t, http.StatusTooManyRequests) // the budget is spent
	ts.Faults().Set("get-organizations-me", Fault{Status: http.StatusTooManyRequests, Times: 1})
	c.do("GET", "/v3/organizations/me", nil).must(t, http.StatusTooManyRequests)

	ts.Faults().Set("get-organizations-me", Fault{Hang: true, Times: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v3/organizations/me", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if resp, err := c.http.Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("hanging request answered %d", resp.StatusCode)
	}

	want := Served{RateLimited: 2, RateLimitedWithoutDelay: 1, ServerErrors: 1, Hangs: 1}
	waitFor(t, "the hang to be counted", func() bool { return ts.Served() == want })
	anon := newClient(t, ts, "")
	body := anon.do("GET", "/_sim/served", nil).must(t, http.StatusOK)
	if body["rateLimited"] != 2.0 || body["rateLimitedWithoutDelay"] != 1.0 || body["serverErrors"] != 1.0 || body["hangs"] != 1.0 {
		t.Errorf("/_sim/served = %v, want %+v", body, want)
	}
	ts.ResetCalls()
	if got := ts.Served(); got != (Served{}) {
		t.Errorf("Served after ResetCalls = %+v, want zero", got)
	}
}

// waitFor polls cond; it bounds how long a broken test hangs.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 5*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}
