package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The chaos tests run the built operator against a namespace of objects
// whose token lives in a Secret, and break things while it works: SIGKILLs
// at random moments, leader failovers, a Konnect that fails, throttles and
// hangs. Each ends with everything Programmed at its latest spec, exactly
// one Konnect entity per object (by its UID tag), and, once the namespace
// is deleted, nothing stuck in the cluster and nothing left in Konnect.
// They are sized to take a few minutes together on two cores.

// chaosServices is n of each world: n services, n routes, n consumers;
// $KONNECT_CHAOS_SERVICES sets another (100 makes the 302 objects of
// issue 12's report).
var chaosServices = func() int {
	if n, err := strconv.Atoi(os.Getenv("KONNECT_CHAOS_SERVICES")); err == nil && n > 0 {
		return n
	}
	return 40
}()

// convergeLimit bounds each wait for convergence. Under the soak's faults
// an unlucky object can fail several times in a row, and the work queue's
// per-object backoff doubles each time: the limit leaves room for that
// tail, while convergence takes seconds without faults and a minute or
// two with them.
const convergeLimit = 6 * time.Minute

// ChaosOperatorKilledWhileConverging SIGKILLs the operator at random
// moments while it creates the objects, while it updates them, and ten
// times while their namespace is being deleted: each time a new operator
// starts with nothing in memory.
func ChaosOperatorKilledWhileConverging(t *testing.T) {
	ctx := t.Context()
	w := newChaosWorld(ctx, t, "kills", chaosServices)
	converged := func() bool { return w.converged(ctx) == nil }

	// Each phase is applied while no operator runs, and the first SIGKILL
	// comes once Konnect has seen the phase's first write: however slowly
	// kubectl applies (on a loaded machine, slower than the operator
	// writes), the kills land while the operator converges.
	begin := time.Now()
	w.apply(ctx, 1)
	w.start(false)
	w.waitWrites(ctx, begin, 1)
	createKills, firstKill := w.killRepeatedly(5, 300*time.Millisecond, 100*time.Millisecond, 1200*time.Millisecond, converged)
	took := w.waitConverged(ctx, begin, convergeLimit)
	t.Logf("create: %d objects, %d SIGKILLs, converged in %s; %d Konnect writes after the first SIGKILL",
		w.objects(), createKills, took.Round(time.Millisecond), w.writesSince(ctx, firstKill))
	if w.writesSince(ctx, firstKill) == 0 {
		t.Error("the create was over before the first SIGKILL")
	}

	w.ops[len(w.ops)-1].stop(10 * time.Second)
	begin = time.Now()
	w.apply(ctx, 2)
	w.start(false)
	w.waitWrites(ctx, begin, 1)
	updateKills, firstKill := w.killRepeatedly(5, 300*time.Millisecond, 100*time.Millisecond, 1200*time.Millisecond, converged)
	took = w.waitConverged(ctx, begin, convergeLimit)
	t.Logf("update: %d SIGKILLs, converged in %s; %d Konnect writes after the first SIGKILL",
		updateKills, took.Round(time.Millisecond), w.writesSince(ctx, firstKill))
	if w.writesSince(ctx, firstKill) == 0 {
		t.Error("the update was over before the first SIGKILL")
	}

	begin = time.Now()
	w.deleteNamespace(ctx)
	deleteKills, _ := w.killRepeatedly(10, time.Second, 100*time.Millisecond, time.Second, func() bool { return w.namespaceGone(ctx) })
	took = w.waitDeleted(ctx, begin, convergeLimit)
	t.Logf("namespace deletion (token in a Secret): %d SIGKILLs, everything gone from the cluster and Konnect in %s", deleteKills, took.Round(time.Millisecond))
	if deleteKills != 10 {
		t.Errorf("only %d SIGKILLs landed while the namespace was being deleted, want 10", deleteKills)
	}
	t.Logf("total: %d SIGKILLs, %d operator processes", w.kills, len(w.ops))
	w.checkNoViolations(ctx)
}

// ChaosLeaderFailoverDuringCreate runs two replicas and SIGKILLs the
// leader twice while they create the objects; each time the standby takes
// over (and a new standby starts).
func ChaosLeaderFailoverDuringCreate(t *testing.T) {
	ctx := t.Context()
	w := newChaosWorld(ctx, t, "failover", chaosServices)

	// Applied before the replicas start, so that however slowly kubectl
	// applies, the create is still under way when the first kill comes.
	begin := time.Now()
	w.apply(ctx, 1)
	w.start(true)
	w.start(true)
	lead := w.leader(ctx, nil)
	var takeovers []time.Duration
	var firstKill time.Time
	for i := range 2 {
		if i == 0 {
			// Under way: the first kill comes once the leader has begun
			// writing to Konnect, not at a moment the create may be over.
			w.waitWrites(ctx, begin, 5)
		} else {
			w.pause(500*time.Millisecond, 3*time.Second)
		}
		killed := time.Now()
		if i == 0 {
			firstKill = killed
		}
		w.kill(lead)
		lead = w.leader(ctx, lead)
		takeovers = append(takeovers, time.Since(killed).Round(time.Millisecond))
		w.start(true)
	}
	took := w.waitConverged(ctx, begin, convergeLimit)
	after := w.writesSince(ctx, firstKill)
	t.Logf("create: %d objects, 2 leader failovers (standby took over after %v; lease duration %s), converged in %s; %d Konnect writes after the first kill",
		w.objects(), takeovers, leaseDuration, took.Round(time.Millisecond), after)
	if after == 0 {
		t.Error("the create was over before the first leader was killed")
	}

	begin = time.Now()
	w.deleteNamespace(ctx)
	took = w.waitDeleted(ctx, begin, convergeLimit)
	t.Logf("namespace deletion: everything gone in %s", took.Round(time.Millisecond))
	w.checkNoViolations(ctx)
}

// leader waits until a running operator other than not holds the world's
// Lease and returns it.
func (w *chaosWorld) leader(ctx context.Context, not *operatorProcess) *operatorProcess {
	w.t.Helper()
	var found *operatorProcess
	err := eventually(ctx, leaseDuration+patience, func(ctx context.Context) error {
		lease, err := w.c.kube.CoordinationV1().Leases(operatorNamespace).Get(ctx, "chaos-"+w.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		holder := ""
		if lease.Spec.HolderIdentity != nil {
			holder = *lease.Spec.HolderIdentity
		}
		for _, op := range w.ops {
			if op != not && op.running() && op.identity() == holder {
				found = op
				return nil
			}
		}
		return fmt.Errorf("the Lease is held by %q", holder)
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return found
}

// soakFaults are what the simulator does wrong during the soak, on every
// operation: some answers are 503s; creates fail after creating (the
// operator cannot know whether its write happened); updates hang past the
// operator's request timeout; deletes fail; and bursts of 429s, with a
// Retry-After of a second, come every few seconds.
var soakFaults = map[string]string{
	"*":                    `{"errorRate": 0.08, "status": 503}`,
	"create-service":       `{"errorRate": 0.15, "status": 502, "afterEffect": true}`,
	"create-route":         `{"errorRate": 0.15, "status": 502, "afterEffect": true}`,
	"create-consumer":      `{"errorRate": 0.15, "status": 502, "afterEffect": true}`,
	"upsert-service":       `{"errorRate": 0.1, "hang": true, "hangFor": "5s"}`,
	"upsert-route":         `{"errorRate": 0.1, "hang": true, "hangFor": "5s"}`,
	"upsert-consumer":      `{"errorRate": 0.1, "hang": true, "hangFor": "5s"}`,
	"delete-service":       `{"errorRate": 0.15, "status": 500}`,
	"delete-route":         `{"errorRate": 0.15, "status": 500}`,
	"delete-consumer":      `{"errorRate": 0.15, "status": 500}`,
	"delete-control-plane": `{"errorRate": 0.3, "status": 500}`,
}

// ChaosFaultSoak creates, updates and deletes the world while the
// simulator injects 5xx answers, unknown outcomes, hung requests and 429s
// on every operation.
func ChaosFaultSoak(t *testing.T) {
	ctx := t.Context()
	w := newChaosWorld(ctx, t, "soak", chaosServices)
	for op, fault := range soakFaults {
		if err := w.sim.do(ctx, http.MethodPut, "/_sim/faults/"+op, false, jsonBody(fault), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Each storm refuses 3 requests with a Retry-After of 1s, every 6s. A
	// client that obeys Retry-After sends at most one request a second after
	// a 429, so storms must leave it room: with count × Retry-After at or
	// above the period, an operator with a single object left (the tail of a
	// deletion) would meet nothing but 429s, as no real Konnect would do.
	stopStorms := w.rateLimitStorms(ctx, 6*time.Second, 3)
	w.start(false)

	begin := time.Now()
	w.apply(ctx, 1)
	created := w.waitConverged(ctx, begin, convergeLimit)
	begin = time.Now()
	w.apply(ctx, 2)
	updated := w.waitConverged(ctx, begin, convergeLimit)
	begin = time.Now()
	w.deleteNamespace(ctx)
	deleted := w.waitDeleted(ctx, begin, convergeLimit)
	storms := stopStorms()

	requests, err := w.requests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var failed5xx, throttled, hung, unknownOutcome int
	for _, r := range requests {
		switch {
		case r.Status == http.StatusTooManyRequests:
			throttled++
		case r.Status == 0 || r.Status == http.StatusGatewayTimeout:
			hung++
		case r.Status == http.StatusBadGateway:
			unknownOutcome++
		case r.Status >= 500:
			failed5xx++
		}
	}
	t.Logf("soak: %d objects; created in %s, updated in %s, deleted in %s", w.objects(),
		created.Round(time.Millisecond), updated.Round(time.Millisecond), deleted.Round(time.Millisecond))
	t.Logf("soak: %d requests logged; faults injected: %d 5xx, %d creates that failed after creating (502), %d hung past the timeout, %d 429s (%d storms)",
		len(requests), failed5xx, unknownOutcome, hung, throttled, storms)
	for what, n := range map[string]int{"5xx": failed5xx, "unknown outcome": unknownOutcome, "hung": hung, "429": throttled} {
		if n == 0 {
			t.Errorf("no %s fault was injected: the soak proves nothing about it", what)
		}
	}
	w.checkNoViolations(ctx)
}

type jsonBody string

func (j jsonBody) MarshalJSON() ([]byte, error) { return []byte(j), nil }

// rateLimitStorms makes the simulator answer the next count requests with
// 429 (Retry-After 1s) every period, until the returned function is
// called; it returns how many storms there were.
func (w *chaosWorld) rateLimitStorms(ctx context.Context, period time.Duration, count int) func() int {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	storms := 0
	wg.Go(func() {
		ticker := time.NewTicker(period)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				body := map[string]any{"count": count, "retryAfter": "1s"}
				if err := w.sim.do(ctx, http.MethodPost, "/_sim/force429", false, body, nil); err == nil {
					storms++
				}
			}
		}
	})
	return func() int {
		cancel()
		wg.Wait()
		_ = w.sim.do(context.WithoutCancel(ctx), http.MethodDelete, "/_sim/faults", false, nil, nil)
		return storms
	}
}
