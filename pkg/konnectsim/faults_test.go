package konnectsim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestFaultStatusForNextRequests: a fault with Times fails exactly that
// many requests of its operation, in the operation's dialect, without side
// effects; other operations are untouched.
func TestFaultStatusForNextRequests(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("faults", nil)
	ts.Faults().Set("create-service", Fault{Status: http.StatusServiceUnavailable, Times: 2})
	svc := map[string]any{"name": "s", "host": "x"}
	for range 2 {
		body := c.do("POST", coreURL(cp, "services"), svc).must(t, http.StatusServiceUnavailable)
		if body["code"] != float64(codeUnavailable) {
			t.Errorf("injected body = %v, want Kong-admin code %d", body, codeUnavailable)
		}
	}
	c.do("GET", coreURL(cp, "services"), nil).must(t, 200)
	c.do("POST", coreURL(cp, "services"), svc).must(t, 201)
	if n := len(ts.Entities("org-a", cp, "services")); n != 1 {
		t.Errorf("%d services stored, want 1 (failed creates have no effect)", n)
	}
	ts.Faults().Set("GET /v2/control-planes/{controlPlaneId}", Fault{Status: 500, Times: 1})
	r := c.do("GET", "/v2/control-planes/"+cp, nil)
	if r.must(t, 500); r.header.Get("Content-Type") != contentProblem {
		t.Errorf("control-plane fault Content-Type = %q, want problem", r.header.Get("Content-Type"))
	}
	if got := ts.CallCount("POST", core+"/services"); got != 3 {
		t.Errorf("CallCount(create service) = %d, want 3 (failed requests count)", got)
	}
}

// TestFaultAfterEffect: the write happens, but the client sees a failure,
// so it cannot know its outcome.
func TestFaultAfterEffect(t *testing.T) {
	ts, c := startSim(t, Options{})
	cp := c.newCP("after", nil)
	ts.Faults().Set("create-service", Fault{Status: http.StatusBadGateway, AfterEffect: true, Times: 1})
	c.do("POST", coreURL(cp, "services"), map[string]any{"name": "s", "host": "x", "tags": []any{"k8s-uid:1"}}).must(t, http.StatusBadGateway)
	found := c.do("GET", coreURL(cp, "services?tags=k8s-uid:1"), nil).must(t, 200)["data"].([]any)
	if len(found) != 1 {
		t.Fatalf("after-effect create left %d services, want 1", len(found))
	}
}

// TestFaultHangsUntilClientGivesUp: a hanging request answers nothing until
// the client's timeout; with HangFor the gateway answers 504.
func TestFaultHangsUntilClientGivesUp(t *testing.T) {
	ts, c := startSim(t, Options{})
	ts.Faults().Set("get-organizations-me", Fault{Hang: true, Times: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/v3/organizations/me", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	start := time.Now()
	resp, err := c.http.Do(req)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("hanging request answered %d", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("err = %v after %v, want the client's deadline", err, time.Since(start))
	}
	c.do("GET", "/v3/organizations/me", nil).must(t, 200)

	ts.Faults().Set("get-organizations-me", Fault{Hang: true, HangFor: 50 * time.Millisecond, Times: 1})
	c.do("GET", "/v3/organizations/me", nil).must(t, http.StatusGatewayTimeout)
}

// TestFaultGatesUntilReleased: a request meeting a fault with Until is
// answered only once the test closes the channel, and then as usual.
func TestFaultGatesUntilReleased(t *testing.T) {
	ts, c := startSim(t, Options{})
	release := make(chan struct{})
	ts.Faults().Set("get-organizations-me", Fault{Until: release})
	var released atomic.Bool
	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", ts.URL+"/v3/organizations/me", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := c.http.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		_ = resp.Body.Close()
		// Whatever the machine's speed: the answer comes after the release.
		answered <- fmt.Sprintf("%d released=%t", resp.StatusCode, released.Load())
	}()
	waitFor(t, "the request gated", func() bool { return ts.Served().Gated == 1 })
	released.Store(true)
	close(release)
	if got := <-answered; got != "200 released=true" {
		t.Fatalf("gated request answered %q, want 200 after the release", got)
	}
	ts.Faults().Remove("get-organizations-me")
	c.do("GET", "/v3/organizations/me", nil).must(t, 200)
}

// TestFaultLatencyAndRate: latency delays every request; an error rate
// fails about that share of requests.
func TestFaultLatencyAndRate(t *testing.T) {
	ts, c := startSim(t, Options{})
	ts.Faults().Set("*", Fault{Latency: 30 * time.Millisecond})
	start := time.Now()
	c.do("GET", "/v3/organizations/me", nil).must(t, 200)
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("request took %v, want at least the 30ms latency", d)
	}
	ts.Faults().Clear()
	ts.Faults().Seed(7)
	ts.Faults().Set("get-organizations-me", Fault{ErrorRate: 0.3, Status: 500})
	failed := 0
	for range 200 {
		if c.do("GET", "/v3/organizations/me", nil).status == 500 {
			failed++
		}
	}
	if failed < 30 || failed > 90 {
		t.Errorf("%d of 200 requests failed at rate 0.3", failed)
	}
}

// TestLatencyDelaysEveryRequestWhateverTheFaults: Options.Latency delays
// every Konnect request, failed or not, to a path Konnect serves or not; a
// fault's latency comes on top of it, and replacing or clearing the faults
// leaves it.
func TestLatencyDelaysEveryRequestWhateverTheFaults(t *testing.T) {
	const latency = 40 * time.Millisecond
	ts, c := startSim(t, Options{Latency: latency})
	cases := []struct {
		name   string
		fault  *Fault // installed on "*"; nil clears the faults
		path   string
		status int
		least  time.Duration
	}{
		{"no fault", nil, "/v3/organizations/me", http.StatusOK, latency},
		{"a path Konnect does not serve", nil, "/v9/nothing", http.StatusNotFound, latency},
		{"a 503 on every operation", &Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable}, "/v3/organizations/me", http.StatusServiceUnavailable, latency},
		{"a latency of its own", &Fault{Latency: 30 * time.Millisecond}, "/v3/organizations/me", http.StatusOK, latency + 30*time.Millisecond},
		{"faults cleared", nil, "/v3/organizations/me", http.StatusOK, latency},
	}
	for _, tc := range cases {
		if tc.fault == nil {
			ts.Faults().Clear()
		} else {
			ts.Faults().Set("*", *tc.fault)
		}
		start := time.Now()
		c.do("GET", tc.path, nil).must(t, tc.status)
		if took := time.Since(start); took < tc.least {
			t.Errorf("%s: answered %d after %v, want at least %v", tc.name, tc.status, took, tc.least)
		}
	}
}

// TestForced429: the next N authenticated requests get 429 with the given
// Retry-After, whatever the operation.
func TestForced429(t *testing.T) {
	ts, c := startSim(t, Options{})
	ts.Faults().Force429(2, 3*time.Second)
	for _, path := range []string{"/v3/organizations/me", "/v2/control-planes"} {
		r := c.do("GET", path, nil)
		r.must(t, http.StatusTooManyRequests)
		if r.header.Get("Retry-After") != "3" {
			t.Errorf("Retry-After = %q, want 3", r.header.Get("Retry-After"))
		}
	}
	c.do("GET", "/v3/organizations/me", nil).must(t, 200)
}

// TestInspectionAPI: counters, faults, forced 429s and the request log are
// reachable over HTTP under /_sim/, need no token, and are not counted.
func TestInspectionAPI(t *testing.T) {
	ts, c := startSim(t, Options{RateLimitPerMinute: 1})
	anon := newClient(t, ts, "")
	c.do("GET", "/v3/organizations/me", nil).must(t, 200)
	calls := anon.do("GET", "/_sim/calls", nil).must(t, 200)
	if calls["GET /v3/organizations/me"] != 1.0 || len(calls) != 1 {
		t.Errorf("calls = %v", calls)
	}
	anon.do("PUT", "/_sim/faults/get-organizations-me", map[string]any{"status": 503, "times": 1}).must(t, 204)
	if f := ts.Faults().List()["get-organizations-me"]; f.Status != 503 || f.Times != 1 {
		t.Errorf("fault installed over HTTP = %+v", f)
	}
	anon.do("DELETE", "/_sim/faults", nil).must(t, 204)
	anon.do("POST", "/_sim/force429", map[string]any{"count": 1, "retryAfter": "2s"}).must(t, 204)
	anon.do("PUT", "/_sim/faults/x", map[string]any{"latency": "soon"}).must(t, 400)
	raw := anon.do("GET", "/_sim/requests", nil).raw
	if !strings.Contains(string(raw), `"operationId":"get-organizations-me"`) || strings.Contains(string(raw), testToken) {
		t.Errorf("request log = %s", raw)
	}
	logged := ts.Requests()
	since := func(at time.Time) []RequestRecord {
		var out []RequestRecord
		r := anon.do("GET", "/_sim/requests?since="+url.QueryEscape(at.Format(time.RFC3339Nano)), nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET /_sim/requests?since: %d %s", r.status, r.raw)
		}
		if err := json.Unmarshal(r.raw, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := since(logged[0].Time.Add(-time.Nanosecond)); len(got) != len(logged) {
		t.Errorf("since just before the first request: %d requests, want all %d", len(got), len(logged))
	}
	if got := since(logged[len(logged)-1].Time); len(got) != 0 {
		t.Errorf("since the last request: %d requests, want none", len(got))
	}
	anon.do("GET", "/_sim/requests?since=yesterday", nil).must(t, 400)
	anon.do("DELETE", "/_sim/calls", nil).must(t, 204)
	if len(ts.Calls()) != 0 || len(ts.Requests()) != 0 {
		t.Error("DELETE /_sim/calls did not reset the counters and log")
	}
}
