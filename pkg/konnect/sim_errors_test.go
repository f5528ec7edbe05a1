package konnect

import (
	"context"
	"errors"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/google/uuid"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// TestErrorClassesAgainstTheSimulator provokes every error class from the
// simulator (which answers in Konnect's three error dialects and puts a new
// trace id into every problem) and checks the class, the status and that the
// text is the same on a second attempt.
func TestErrorClassesAgainstTheSimulator(t *testing.T) {
	sim, factory := startSim(t, konnectsim.Options{Tokens: map[string]string{testToken: simOrg, "kpat_other": "other"}}, Options{Timeout: 300 * time.Millisecond})
	client := simClient(t, sim, factory, testToken)
	c := sdkCalls(client)
	ctx := context.Background()
	cp := must[string](t, "create control plane")(c.createControlPlane(ctx, "errors"))
	service := must[string](t, "create service")(c.createService(ctx, cp, components.Service{Name: ptr("billing"), Host: "billing.internal"}))
	if err := c.createRoute(ctx, cp, service, "/b"); err != nil {
		t.Fatal(err)
	}
	missing := uuid.NewString()
	strangerClient := simClient(t, sim, factory, "kpat_unknown")
	stranger := sdkCalls(strangerClient)
	otherOrg := sdkCalls(simClient(t, sim, factory, "kpat_other"))

	tests := []struct {
		name      string
		call      func() error
		class     string
		status    int
		reference bool // an InvalidInputError about a missing reference only
	}{
		{name: "missing core entity", class: "NotFound", status: 404,
			call: func() error { return c.getService(ctx, cp, missing) }},
		{name: "missing control plane", class: "NotFound", status: 404,
			call: func() error { return c.getControlPlane(ctx, missing) }},
		{name: "control plane of another organisation", class: "NotFound", status: 404,
			call: func() error { return otherOrg.deleteControlPlane(ctx, cp) }},
		{name: "missing DP certificate", class: "NotFound", status: 404,
			call: func() error { return c.getDataPlaneCertificate(ctx, cp, missing) }},
		{name: "missing parent of a child", class: "NotFound", status: 404,
			call: func() error { return c.createTarget(ctx, cp, missing, "a:1") }},
		{name: "duplicate service name (400 unique)", class: "Conflict", status: 400,
			call: func() error {
				_, err := c.createService(ctx, cp, components.Service{Name: ptr("billing"), Host: "x"})
				return err
			}},
		{name: "duplicate control plane name (409)", class: "Conflict", status: 409,
			call: func() error { _, err := c.createControlPlane(ctx, "errors"); return err }},
		{name: "route to a missing service", class: "InvalidInput", status: 400, reference: true,
			call: func() error {
				return c.createRoute(ctx, cp, missing, "/x")
			}},
		{name: "consumer without username or custom id", class: "InvalidInput", status: 400,
			call: func() error { return c.createConsumer(ctx, cp, components.Consumer{}) }},
		{name: "service that still has routes", class: "InvalidInput", status: 400,
			call: func() error { return c.deleteService(ctx, cp, service) }},
		{name: "unknown token on the organisation API", class: "Auth", status: 401,
			call: func() error { _, err := strangerClient.Me(ctx); return err }},
		{name: "unknown token on a core entity", class: "Auth", status: 401,
			call: func() error { _, err := stranger.listServices(ctx, cp); return err }},
		{name: "unknown token on the control-plane API", class: "Auth", status: 401,
			call: func() error { return stranger.listControlPlanes(ctx) }},
		{name: "injected 503", class: "Transient", status: 503,
			call: func() error {
				sim.Faults().Set("get-service", konnectsim.Fault{Status: 503, Times: 1})
				return c.getService(ctx, cp, service)
			}},
		{name: "injected 500 on a control plane", class: "Transient", status: 500,
			call: func() error {
				sim.Faults().Set("get-control-plane", konnectsim.Fault{Status: 500, Times: 1})
				return c.getControlPlane(ctx, cp)
			}},
		{name: "hanging request", class: "Transient", status: 0,
			call: func() error {
				sim.Faults().Set("list-service", konnectsim.Fault{Hang: true, Times: 1})
				_, err := c.listServices(ctx, cp)
				return err
			}},
	}
	// Every attempt meets Konnect itself: a hold (see hold.go) would refuse,
	// unsent, the second attempt of a rejected token, or of the fifth
	// failure in a row. Ending the stranger's hold and one answer end them.
	meetKonnect := func() {
		strangerClient.auth.end()
		if err := c.getControlPlane(ctx, cp); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var texts []string
			for attempt := range 2 {
				meetKonnect()
				err := tt.call()
				if got := errorClass(err); got != tt.class {
					t.Fatalf("attempt %d: class = %s, want %s (%v)", attempt+1, got, tt.class, err)
				}
				if got := statusOf(err); got != tt.status {
					t.Errorf("attempt %d: status = %d, want %d", attempt+1, got, tt.status)
				}
				var invalid *InvalidInputError
				if errors.As(err, &invalid) && invalid.OnlyReferences() != tt.reference {
					t.Errorf("OnlyReferences() = %v, want %v (%v)", invalid.OnlyReferences(), tt.reference, err)
				}
				texts = append(texts, err.Error())
			}
			if texts[0] != texts[1] {
				t.Errorf("text changed between attempts:\n  %s\n  %s", texts[0], texts[1])
			}
		})
	}
}

// TestUnknownOutcomeCanBeRecoveredByTag: a create whose answer is lost still
// happened, so the caller finds the entity by its tag instead of creating
// a second one.
func TestUnknownOutcomeCanBeRecoveredByTag(t *testing.T) {
	sim, factory := startSim(t, konnectsim.Options{}, Options{})
	c := sdkCalls(simClient(t, sim, factory, testToken))
	ctx := context.Background()
	cp := must[string](t, "create control plane")(c.createControlPlane(ctx, "outcome"))
	sim.Faults().Set("create-service", konnectsim.Fault{Status: 502, AfterEffect: true, Times: 1})
	_, err := c.createService(ctx, cp, components.Service{Name: ptr("s"), Host: "h", Tags: []string{"k8s-uid:u-9"}})
	if !IsTransient(err) {
		t.Fatalf("create with a lost answer = %v, want transient", err)
	}
	found := must[[]components.ServiceOutput](t, "list by uid")(c.listServices(ctx, cp, "k8s-uid:u-9"))
	if len(found) != 1 || *found[0].Name != "s" {
		t.Fatalf("lookup by tag found %+v, want the one service", found)
	}
}

// TestRateLimitsAgainstTheSimulator: the client paces itself to the budget
// the simulator states, sends nothing once the window is spent, and a
// client that has not seen the headers reads the delay of a 429 without
// Retry-After from RateLimit-Reset.
func TestRateLimitsAgainstTheSimulator(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 15, 0, time.UTC)) // 45s left in the minute
	sim, factory := startSim(t, konnectsim.Options{RateLimitPerMinute: 3, OmitRetryAfter: true, Clock: clk}, Options{Clock: clk})
	client := simClient(t, sim, factory, testToken)
	c := sdkCalls(client)
	ctx := context.Background()
	must[Organization](t, "me")(client.Me(ctx))                                    // 2 left
	cp := must[string](t, "create control plane")(c.createControlPlane(ctx, "rl")) // 1 left
	if got, want := client.limiter().currentRate(), 1.0/45; math.Abs(got-want) > 1e-9 {
		t.Fatalf("rate with one request left for 45s = %v/s, want %v/s", got, want)
	}
	if err := c.getControlPlane(ctx, cp); err != nil { // the bucket's one token; 0 left
		t.Fatal(err)
	}
	sent := len(sim.Requests())

	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := c.getControlPlane(short, cp)
	if delay, limited := IsRateLimited(err); !limited || delay != 45*time.Second {
		t.Fatalf("call with the window spent = %v, want a RateLimitedError with 45s", err)
	}
	if len(sim.Requests()) != sent {
		t.Fatal("the client sent a request although the window was spent")
	}

	// A client that has not seen the headers gets the simulator's 429,
	// without Retry-After: the delay comes from RateLimit-Reset.
	fresh := sdkCalls(simClient(t, sim, NewClientFactory(Options{RootCAs: sim.CAPool, Clock: clk}), testToken))
	err = fresh.getControlPlane(short, cp)
	var limited *RateLimitedError
	if !errors.As(err, &limited) || limited.StatusCode != 429 || !limited.DelayKnown || limited.RetryAfter != 45*time.Second {
		t.Fatalf("429 without Retry-After = %v, want RateLimitedError(429) with RateLimit-Reset's 45s", err)
	}

	clk.Step(45 * time.Second)
	if err := c.getControlPlane(short, cp); err != nil {
		t.Fatalf("get control plane in the next window: %v", err)
	}
}

// TestRateLimitedAnswersAgainstTheSimulator: a 429 with Retry-After pauses
// the organisation's limiter that long; a bare 429 names no delay and
// pauses nothing.
func TestRateLimitedAnswersAgainstTheSimulator(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 15, 0, time.UTC))
	sim, factory := startSim(t, konnectsim.Options{Clock: clk}, Options{Clock: clk})
	c := sdkCalls(simClient(t, sim, factory, testToken))
	ctx := context.Background()
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cp := must[string](t, "create control plane")(c.createControlPlane(ctx, "rl"))

	sim.Faults().Force429(1, 7*time.Second)
	err := c.getControlPlane(ctx, cp)
	if delay, ok := IsRateLimited(err); !ok || delay != 7*time.Second {
		t.Fatalf("forced 429 = %v, want RateLimitedError with Retry-After's 7s", err)
	}
	err = c.getControlPlane(short, cp)
	if delay, ok := IsRateLimited(err); !ok || delay != 7*time.Second {
		t.Fatalf("call during the pause = %v, want the limiter to refuse with 7s", err)
	}
	clk.Step(7 * time.Second)
	if err := c.getControlPlane(short, cp); err != nil {
		t.Fatalf("get control plane after the pause: %v", err)
	}

	sim.Faults().Set("get-control-plane", konnectsim.Fault{Status: http.StatusTooManyRequests, Times: 1})
	err = c.getControlPlane(ctx, cp)
	var limited *RateLimitedError
	if !errors.As(err, &limited) || limited.StatusCode != 429 || limited.DelayKnown || limited.RetryAfter != 0 {
		t.Fatalf("bare 429 = %v, want RateLimitedError(429) that names no delay", err)
	}
	if err := c.getControlPlane(short, cp); err != nil {
		t.Fatalf("get control plane right after a bare 429: %v", err)
	}
	if got := sim.Served(); got.RateLimited != 1 || got.RateLimitedWithoutDelay != 1 {
		t.Fatalf("simulator served %+v, want one 429 with a delay and one without", got)
	}
}
