package konnect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// holdWorld is a simulator and a client factory on a fake clock whose
// probe delays are not spread, so that a test knows when each probe is due.
type holdWorld struct {
	t        *testing.T
	sim      *konnectsim.TestServer
	factory  *ClientFactory
	clock    *clocktesting.FakeClock
	metrics  *Metrics
	registry *prometheus.Registry
}

func newHoldWorld(t *testing.T, tokens map[string]string, opts Options) *holdWorld {
	t.Helper()
	w := &holdWorld{t: t, clock: clocktesting.NewFakeClock(epoch), registry: prometheus.NewRegistry()}
	w.metrics = NewMetrics(w.registry)
	opts.Clock, opts.Metrics = w.clock, w.metrics
	w.sim, w.factory = startSim(t, konnectsim.Options{Tokens: tokens}, opts)
	w.factory.holds.random = func() float64 { return 0.5 }
	return w
}

// client returns the factory's client of token, its organisation known.
func (w *holdWorld) client(token string) *Client {
	w.t.Helper()
	c := simClient(w.t, w.sim, w.factory, token)
	if _, err := c.Me(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	return c
}

// sent is how many requests the simulator has logged.
func (w *holdWorld) sent() int { return len(w.sim.Requests()) }

// awaitLogged waits (in real time: the probe runs on a goroutine of its
// own) until the simulator has logged n requests.
func (w *holdWorld) awaitLogged(n int) []konnectsim.RequestRecord {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		log := w.sim.Requests()
		if len(log) >= n {
			return log
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the simulator logged %d requests, want %d", len(log), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// awaitProbeTimer waits until a probe waits for its timer on the fake
// clock.
func (w *holdWorld) awaitProbeTimer() {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !w.clock.HasWaiters() {
		if time.Now().After(deadline) {
			w.t.Fatal("no probe waits on the clock")
		}
		time.Sleep(time.Millisecond)
	}
}

// failAll makes the simulator answer every request (of org, or of every
// organisation when org is "") with 503.
func (w *holdWorld) failAll(org string) {
	w.sim.Faults().Set("*", konnectsim.Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable, Organization: org})
}

func (w *holdWorld) held(c *Client, call func(calls) error) *HeldError {
	w.t.Helper()
	before := w.sent()
	err := call(sdkCalls(c))
	held, ok := IsHeld(err)
	if !ok {
		w.t.Fatalf("got %v, want a HeldError", err)
	}
	if w.sent() != before {
		w.t.Fatal("a held request was sent")
	}
	return held
}

func getMissingControlPlane(c calls) error {
	return c.getControlPlane(context.Background(), "5f1a2b3c-0000-4000-8000-000000000404")
}

// failOutage sends the requests of an outage: as many as hold an
// organisation, each of another control plane, as the objects of an
// organisation would.
func failOutage(t *testing.T, c *Client) {
	t.Helper()
	for i := range holdAfterFailures {
		err := sdkCalls(c).getControlPlane(context.Background(), fmt.Sprintf("5f1a2b3c-0000-4000-8000-%012d", i))
		if _, held := IsHeld(err); held || !IsTransient(err) {
			t.Fatalf("failure %d: got %v, want a transient error, not yet held", i+1, err)
		}
	}
}

// heldSeries gathers MetricHeld: its value by "organization/reason".
func (w *holdWorld) heldSeries() map[string]float64 {
	w.t.Helper()
	families, err := w.registry.Gather()
	if err != nil {
		w.t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != MetricHeld {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out[labels["organization"]+"/"+labels["reason"]] = m.GetGauge().GetValue()
		}
	}
	return out
}

func isReleased(h *HeldError) bool {
	select {
	case <-h.Released():
		return true
	default:
		return false
	}
}

// TestOrganizationIsHeldAfterFailuresInARowProbedAtABackoffAndReleasedAtOnce
// fails every request of the organisation with 503: the fifth failure in a
// row holds it, later requests are refused without being sent, one probe
// (a list of one control plane) asks Konnect after 2s, 4s, 8s, 16s, then
// every 20s, and the probe Konnect answers releases every waiter at once.
func TestOrganizationIsHeldAfterFailuresInARowProbedAtABackoffAndReleasedAtOnce(t *testing.T) {
	w := newHoldWorld(t, nil, Options{})
	c := w.client(testToken)
	w.failAll("")
	failOutage(t, c)
	held := w.held(c, getMissingControlPlane)
	if held.Reason != HoldUnreachable || held.Organization != c.OrganizationID() || !IsTransient(held) || held.Operation != "get control plane" {
		t.Errorf("held: %+v", held)
	}
	if !strings.Contains(held.Describe(), "has not answered the requests of organisation "+c.OrganizationID()) {
		t.Errorf("description: %s", held.Describe())
	}

	var probesAt []time.Duration
	for _, delay := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 20 * time.Second, 20 * time.Second} {
		w.awaitProbeTimer()
		before := w.sent()
		w.clock.Step(delay - time.Millisecond)
		if w.sent() != before {
			t.Fatalf("a probe went before its %s", delay)
		}
		w.clock.Step(time.Millisecond)
		probe := w.awaitLogged(before + 1)[before]
		if probe.Method != http.MethodGet || probe.Path != "/v2/control-planes" || probe.Query != "page%5Bsize%5D=1" || probe.Status != http.StatusServiceUnavailable {
			t.Fatalf("probe: %+v", probe)
		}
		probesAt = append(probesAt, w.clock.Since(epoch))
		if isReleased(held) {
			t.Fatal("released by a probe Konnect answered 503")
		}
	}
	t.Logf("probes at %v", probesAt)
	_ = w.held(c, getMissingControlPlane)

	w.sim.Faults().Clear()
	w.awaitProbeTimer()
	before := w.sent()
	w.clock.Step(maxProbeDelay)
	w.awaitLogged(before + 1)
	select {
	case <-held.Released():
	case <-time.After(10 * time.Second):
		t.Fatal("not released by the probe Konnect answered")
	}
	if err := getMissingControlPlane(sdkCalls(c)); !IsNotFound(err) {
		t.Errorf("after the release: %v, want Konnect's 404", err)
	}
	if got := counterValue(t, w.metrics.holds.holds.WithLabelValues(c.OrganizationID(), HoldUnreachable)); got != 1 {
		t.Errorf("%s = %v, want 1", MetricHolds, got)
	}
	if got := counterValue(t, w.metrics.holds.probes.WithLabelValues(c.OrganizationID(), HoldUnreachable, "success")); got != 1 {
		t.Errorf("successful probes = %v, want 1", got)
	}
}

// TestAnswersOfEntitiesStrayFailuresAndOneFailingEntityDoNotHold: 4xx
// answers about one entity say Konnect answers, an answer between failures
// starts the count again, and one entity Konnect keeps failing is that
// entity's trouble.
func TestAnswersOfEntitiesStrayFailuresAndOneFailingEntityDoNotHold(t *testing.T) {
	w := newHoldWorld(t, nil, Options{})
	c := w.client(testToken)
	w.sim.Faults().Set("get-control-plane", konnectsim.Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable})
	for range 2 * holdAfterFailures {
		if err := getMissingControlPlane(sdkCalls(c)); !IsTransient(err) {
			t.Fatalf("got %v, want the injected 503", err)
		}
	}
	w.sim.Faults().Clear()
	if err := getMissingControlPlane(sdkCalls(c)); !IsNotFound(err) {
		t.Fatalf("got %v, want Konnect's 404", err)
	}
	for range 3 * holdAfterFailures {
		w.sim.Faults().Set("*", konnectsim.Fault{Times: holdAfterFailures - 1, Status: http.StatusBadGateway})
		for i := range holdAfterFailures - 1 {
			if err := sdkCalls(c).getControlPlane(context.Background(), fmt.Sprintf("5f1a2b3c-0000-4000-8000-%012d", i)); !IsTransient(err) {
				t.Fatalf("got %v, want the injected 502", err)
			}
		}
		if err := getMissingControlPlane(sdkCalls(c)); !IsNotFound(err) {
			t.Fatalf("got %v, want Konnect's 404", err)
		}
	}
	if c.reach.Load().isHeld() {
		t.Error("held, though Konnect answered between every few failures")
	}
}

// TestConnectionErrorsHoldATokenWhoseOrganisationIsUnknown: a server that
// refuses connections holds the token's requests before Me could say whose
// it is.
func TestConnectionErrorsHoldATokenWhoseOrganisationIsUnknown(t *testing.T) {
	factory := NewClientFactory(Options{Clock: clocktesting.NewFakeClock(epoch)})
	c, err := factory.Client("https://127.0.0.1:1", testToken)
	if err != nil {
		t.Fatal(err)
	}
	for i := range holdAfterFailures {
		var err error
		if i%2 == 0 {
			_, err = c.Me(context.Background())
		} else {
			err = sdkCalls(c).listControlPlanes(context.Background())
		}
		if !IsTransient(err) {
			t.Fatalf("got %v, want a transient error", err)
		}
	}
	_, err = c.Me(context.Background())
	held, ok := IsHeld(err)
	if !ok || held.Organization != "" || !strings.Contains(held.Describe(), "connection refused") {
		t.Fatalf("got %v, want a hold of the token for the refused connections", err)
	}
}

// TestHeldOrganisationDoesNotDelayAnother: an organisation whose requests
// fail is held; another on the same server is served without delay.
func TestHeldOrganisationDoesNotDelayAnother(t *testing.T) {
	w := newHoldWorld(t, map[string]string{testToken: simOrg, "kpat_neighbour": "neighbour"}, Options{})
	down, up := w.client(testToken), w.client("kpat_neighbour")
	w.failAll(down.OrganizationID())
	failOutage(t, down)
	_ = w.held(down, getMissingControlPlane)
	for range 2 * holdAfterFailures {
		if err := getMissingControlPlane(sdkCalls(up)); !IsNotFound(err) {
			t.Fatalf("the other organisation got %v, want Konnect's 404", err)
		}
	}
}

// TestAHoldSoonAfterTheLastGoesOnProbingAtItsPace: a Konnect that answers
// probes but fails the rest is probed no faster each time it seems back.
func TestAHoldSoonAfterTheLastGoesOnProbingAtItsPace(t *testing.T) {
	w := newHoldWorld(t, nil, Options{})
	c := w.client(testToken)
	w.sim.Faults().Set("get-control-plane", konnectsim.Fault{ErrorRate: 1, Status: http.StatusServiceUnavailable})
	for round, firstProbe := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second} {
		failOutage(t, c)
		held := w.held(c, getMissingControlPlane)
		w.awaitProbeTimer()
		w.clock.Step(firstProbe - time.Millisecond)
		if isReleased(held) {
			t.Fatalf("round %d: probed before %s", round, firstProbe)
		}
		w.clock.Step(time.Millisecond)
		select {
		case <-held.Released():
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: not released", round)
		}
	}
}

// TestHeldMetricSaysWhichOrganisationIsHeld: the gauge is 1 for the held
// organisation and 0 for the others.
func TestHeldMetricSaysWhichOrganisationIsHeld(t *testing.T) {
	w := newHoldWorld(t, map[string]string{testToken: simOrg, "kpat_neighbour": "neighbour"}, Options{})
	down, up := w.client(testToken), w.client("kpat_neighbour")
	w.failAll(down.OrganizationID())
	failOutage(t, down)
	_ = w.held(down, getMissingControlPlane)
	got := w.heldSeries()
	want := map[string]float64{
		down.OrganizationID() + "/" + HoldUnreachable:  1,
		up.OrganizationID() + "/" + HoldUnreachable:    0,
		down.OrganizationID() + "/" + HoldUnauthorized: 0,
		up.OrganizationID() + "/" + HoldUnauthorized:   0,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s{%s} = %v, want %v (all: %v)", MetricHeld, k, got[k], v, got)
		}
	}
	if got := counterValue(t, w.metrics.holds.requests.WithLabelValues(down.OrganizationID(), HoldUnreachable)); got != 1 {
		t.Errorf("%s = %v, want 1", MetricHeldRequests, got)
	}
}

// TestWriteFenceRefusesWritesAndLetsReadsThrough: a refused write is not
// sent and says why; reads go on.
func TestWriteFenceRefusesWritesAndLetsReadsThrough(t *testing.T) {
	lost := fmt.Errorf("the leader-election lease ran out")
	w := newHoldWorld(t, nil, Options{WriteFence: func() error { return lost }})
	c := w.client(testToken)
	before := w.sent()
	_, err := sdkCalls(c).createControlPlane(context.Background(), "fenced")
	var refused *WriteRefusedError
	if !errors.As(err, &refused) || refused.Operation != "create control plane" || !strings.Contains(err.Error(), lost.Error()) {
		t.Fatalf("got %v, want the write refused", err)
	}
	if w.sent() != before {
		t.Fatal("the refused write was sent")
	}
	if err := sdkCalls(c).listControlPlanes(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(w.sim.Requests()[before:], func(r konnectsim.RequestRecord) bool { return r.Method == http.MethodGet }) {
		t.Error("the read was not sent")
	}
}

// TestAKonnectThatLeavesRequestsUnansweredIsHeldBeforeTheyTimeOut: two
// requests waiting 10s for an answer, with none answered meanwhile, hold
// the organisation at the next request, which is not sent; the answers,
// when they come, release it.
func TestAKonnectThatLeavesRequestsUnansweredIsHeldBeforeTheyTimeOut(t *testing.T) {
	w := newHoldWorld(t, nil, Options{})
	c := w.client(testToken)
	answer := make(chan struct{})
	w.sim.Faults().Set("get-control-plane", konnectsim.Fault{Until: answer})
	done := make(chan error, 2)
	for i := range 2 {
		go func() {
			done <- sdkCalls(c).getControlPlane(context.Background(), fmt.Sprintf("5f1a2b3c-0000-4000-8000-%012d", i))
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for w.sim.Served().Gated < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the requests did not reach the simulator")
		}
		time.Sleep(time.Millisecond)
	}
	w.clock.Step(stallAfter - time.Millisecond)
	if err := sdkCalls(c).listControlPlanes(context.Background()); err != nil {
		t.Fatalf("before the requests waited %s: %v", stallAfter, err)
	}
	w.clock.Step(stallAfter)
	held := w.held(c, func(c calls) error { return c.listControlPlanes(context.Background()) })
	if !strings.Contains(held.Describe(), "no answer to the requests sent for "+stallAfter.String()) {
		t.Errorf("held: %s", held.Describe())
	}
	close(answer)
	for range 2 {
		if err := <-done; !IsNotFound(err) {
			t.Errorf("a request left waiting: %v, want Konnect's 404", err)
		}
	}
	if !isReleased(held) {
		t.Error("the answers did not release the organisation")
	}
}

// TestForgettingTheProbersTokenProbesWithAnotherOfTheOrganisation: the
// probes of a held organisation stop using a token the operator forgot,
// and use another token of the organisation instead.
func TestForgettingTheProbersTokenProbesWithAnotherOfTheOrganisation(t *testing.T) {
	const other = "kpat_otherTokenOfTheOrganisation"
	w := newHoldWorld(t, map[string]string{testToken: simOrg, other: simOrg}, Options{})
	forgotten, kept := w.client(testToken), w.client(other)
	w.failAll("")
	failOutage(t, forgotten)
	held := w.held(forgotten, getMissingControlPlane)
	w.factory.Forget(w.sim.URL, testToken)

	w.sim.Faults().Clear()
	w.awaitProbeTimer()
	before := w.sent()
	w.clock.Step(maxProbeDelay)
	probe := w.awaitLogged(before + 1)[before]
	if probe.Credential != konnectsim.CredentialOf(other) {
		t.Errorf("the probe carried token %s, want the organisation's other one %s", probe.Credential, konnectsim.CredentialOf(other))
	}
	select {
	case <-held.Released():
	case <-time.After(10 * time.Second):
		t.Fatal("not released by the probe")
	}
	if err := getMissingControlPlane(sdkCalls(kept)); !IsNotFound(err) {
		t.Errorf("after the release: %v", err)
	}
}

// TestAProbeThatHangsDoesNotPushTheNextOneBack: the probes' pace counts
// from each probe's start, so a probe that hangs until it times out is
// followed by the next at the same moment as one answered at once would
// be, and a Konnect that came back meanwhile is asked within maxProbeDelay.
func TestAProbeThatHangsDoesNotPushTheNextOneBack(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	h := newHold(HoldUnreachable, "https://example.konghq.com", clk, nil)
	h.random = func() float64 { return 0.5 } // no spread
	h.step = 8                               // at maxProbeDelay already
	h.prober = &Client{}
	started := make(chan time.Time)
	h.probe = func(context.Context, *Client) error {
		started <- clk.Now()
		clk.Step(probeTimeout) // it hangs until it times out
		return &TransientError{Message: "timed out"}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go h.probeUntilReleased(ctx)
	var at []time.Duration
	for range 3 {
		for !clk.HasWaiters() {
			time.Sleep(time.Millisecond)
		}
		// Step to the first whole second the timer fires at: once it has
		// fired, nothing waits on the clock until the probe has begun.
		clk.Step(time.Second)
		for clk.HasWaiters() {
			clk.Step(time.Second)
		}
		at = append(at, (<-started).Sub(epoch))
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i] - at[i-1]; gap != maxProbeDelay {
			t.Errorf("probes began at %v: %s between two, want maxProbeDelay (%s) from start to start", at, gap, maxProbeDelay)
		}
	}
}
