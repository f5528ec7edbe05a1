package integration

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// The tests of this file create 300 objects (100 services, 100 routes, 100
// consumers) while Konnect refuses requests with 429s, limits the
// organisation, fails and hangs, and check that everything converges
// without stalling. Each checks that its faults were served.

const coldCreatePerKind = 100

// longTest skips a test that measures throughput (it runs for minutes and
// asserts figures) unless KONNECT_TEST_LONG is set, as `make test-long`
// does.
func longTest(t *testing.T) {
	t.Helper()
	if os.Getenv("KONNECT_TEST_LONG") == "" {
		t.Skip("measures throughput for minutes: run with make test-long (KONNECT_TEST_LONG=1)")
	}
}

// coreEntities is the prefix of the core-entity operations in the
// simulator's fault keys.
const coreEntities = "/v2/control-planes/{controlPlaneId}/core-entities"

// coldCreate creates perKind services, routes (one per service) and
// consumers, waits until all are Programmed and returns how long that took.
func (e *env) coldCreate(perKind int) time.Duration {
	e.t.Helper()
	var mu sync.Mutex
	created := map[string]time.Time{}
	programmedAt := map[string]time.Time{}
	stopWatch := e.watchProgrammed(&mu, programmedAt)
	defer stopWatch()
	start := time.Now()
	createAll(e, perKind, &mu, created)
	done := func() int {
		n := 0
		for key := range created {
			if _, ok := programmedAt[key]; ok {
				n++
			}
		}
		return n
	}
	err := wait.PollUntilContextTimeout(e.ctx, 100*time.Millisecond, 5*time.Minute, true, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return done() == len(created), nil
	})
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		e.t.Fatalf("only %d of %d objects Programmed after %s: %v", done(), len(created), time.Since(start).Round(time.Second), err)
	}
	return time.Since(start)
}

// warmUp creates a service, a route and a consumer named "warm-up" and
// waits until they are Programmed: their controllers run from then on.
// Objects created in the same second as a controller started are looked
// up by their UID before they are created (creation timestamps have whole
// seconds), so warmUp also lets the next second begin: a loaded machine
// that starts a controller late must not cost one run of a comparison
// extra requests.
func (e *env) warmUp() {
	e.t.Helper()
	e.createService("warm-up")
	e.createRoute("warm-up", withService("warm-up"))
	e.createConsumer("warm-up")
	e.programmedService("warm-up")
	e.eventually("warm-up route Programmed", func() error { return programmed(e.route("warm-up")) })
	e.eventually("warm-up consumer Programmed", func() error { return programmed(e.consumer("warm-up")) })
	e.serverTimePast(e.startedAt)
}

// checkOnePerObject fails the test unless Konnect holds exactly one service,
// route and consumer per object of the namespace, each with the ID in the
// object's status.
func (e *env) checkOnePerObject(cpID string) {
	e.t.Helper()
	for _, kind := range []struct {
		collection string
		nameField  string
		ids        func() (map[string]string, error)
	}{
		{"services", "name", func() (map[string]string, error) {
			list, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).List(e.ctx, metav1.ListOptions{})
			out := map[string]string{}
			for _, o := range list.Items {
				out[o.Name] = o.KonnectStatus(false).GetKonnectID()
			}
			return out, err
		}},
		{"routes", "name", func() (map[string]string, error) {
			list, err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).List(e.ctx, metav1.ListOptions{})
			out := map[string]string{}
			for _, o := range list.Items {
				out[o.Name] = o.KonnectStatus(false).GetKonnectID()
			}
			return out, err
		}},
		{"consumers", "username", func() (map[string]string, error) {
			list, err := e.cs.ConfigurationV1().KongConsumers(e.ns).List(e.ctx, metav1.ListOptions{})
			out := map[string]string{}
			for _, o := range list.Items {
				out[o.Name] = o.KonnectStatus(false).GetKonnectID()
			}
			return out, err
		}},
	} {
		ids, err := kind.ids()
		if err != nil {
			e.t.Fatal(err)
		}
		entities := e.entities(cpID, kind.collection)
		byName := map[string]int{}
		byID := map[string]string{}
		for _, ent := range entities {
			name := fmt.Sprint(ent[kind.nameField])
			byName[name]++
			byID[fmt.Sprint(ent["id"])] = name
		}
		if len(entities) != len(ids) {
			e.t.Errorf("Konnect holds %d %s for %d objects", len(entities), kind.collection, len(ids))
		}
		for name, n := range byName {
			if n > 1 {
				e.t.Errorf("Konnect holds %d %s named %s", n, kind.collection, name)
			}
		}
		for name, id := range ids {
			if byID[id] != name {
				e.t.Errorf("%s %s: status ID %q is not the Konnect entity of that name", kind.collection, name, id)
			}
		}
	}
}

// noRateLimitWarnings fails the test when a 429 was reported as a failure.
// (Routes created before their service is Programmed get Warnings of
// their own; those are not about 429s.)
func (e *env) noRateLimitWarnings() {
	e.t.Helper()
	list, err := e.kube.CoreV1().Events(e.ns).List(e.ctx, metav1.ListOptions{FieldSelector: "type=Warning"})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, ev := range list.Items {
		if strings.Contains(ev.Message, "rate limit") || strings.Contains(ev.Message, "(HTTP 429)") {
			e.t.Errorf("a 429 was reported as a failure: Warning Event on %s %s: %s: %s", ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Reason, ev.Message)
		}
	}
}

// bare429sSeen is how many 429s without a delay the operator counted.
func (e *env) bare429sSeen() float64 {
	return e.metricValue(konnect.MetricRateLimitResponses, map[string]string{"headers": "false"})
}

// TestStrayBare429sSlowAColdCreateLittle: with 5% of requests answered 429
// without a delay (as Konnect's connection-level limiter answers), 300
// objects are all Programmed within 1.5 times the fault-free run's time.
//
// The two runs, each with its own simulator, organisation and operator,
// start their creates together and keep their objects until both have
// finished, so that a loaded machine slows both alike and neither's
// cleanup loads the other. The operator is kept to 20 requests/s so that
// the runs last long enough (about 15s) for the organisation's rate, which
// the 429s slow down, to decide the time rather than the second or so the
// last objects refused wait on their own.
func TestStrayBare429sSlowAColdCreateLittle(t *testing.T) {
	longTest(t)
	t.Parallel()
	const (
		ceiling  = 20.0
		tolerate = 1.5
	)
	var (
		mu              sync.Mutex
		took            = map[bool]time.Duration{}
		ready, finished sync.WaitGroup
	)
	ready.Add(2)
	finished.Add(2)
	t.Run("runs", func(t *testing.T) {
		for _, faulty := range []bool{false, true} {
			name := map[bool]string{false: "fault-free", true: "5% bare 429s"}[faulty]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				// A run that fails early counts as arrived, so that the
				// other does not wait for it forever.
				var readyOnce, finishedOnce sync.Once
				arriveReady := func() { readyOnce.Do(ready.Done) }
				arriveFinished := func() { finishedOnce.Do(finished.Done) }
				defer arriveFinished()
				defer arriveReady()

				e := newEnv(t, envOptions{konnectRate: ceiling})
				cpID := e.ready()
				e.warmUp()
				if faulty {
					e.sim.Faults().Seed(16)
					e.sim.Faults().Set("*", konnectsim.Fault{ErrorRate: 0.05, Status: http.StatusTooManyRequests})
				}
				e.sim.ResetCalls()
				arriveReady()
				ready.Wait()
				d := e.coldCreate(coldCreatePerKind)
				arriveFinished()
				served := e.sim.Served()
				e.sim.Faults().Clear()
				mu.Lock()
				took[faulty] = d
				mu.Unlock()
				t.Logf("300 objects Programmed in %s; requests by status: %s; simulator served %+v", d.Round(time.Millisecond), byStatus(e.sim.Requests()), served)

				e.checkOnePerObject(cpID)
				e.noRateLimitWarnings()
				if faulty {
					if served.RateLimitedWithoutDelay == 0 {
						t.Fatal("the simulator served no 429 without a delay; the fault did not happen")
					}
					if seen := e.bare429sSeen(); seen != float64(served.RateLimitedWithoutDelay) {
						t.Errorf("the operator counted %v 429s without a delay, the simulator served %d", seen, served.RateLimitedWithoutDelay)
					}
				}
				finished.Wait()
			})
		}
	})
	if t.Failed() {
		return
	}
	ratio := took[true].Seconds() / took[false].Seconds()
	t.Logf("fault-free %s, with 5%% bare 429s %s: %.2f times", took[false].Round(time.Millisecond), took[true].Round(time.Millisecond), ratio)
	if ratio > tolerate {
		t.Errorf("with 5%% bare 429s the create took %.2f times the fault-free run, want at most %.1f", ratio, tolerate)
	}
}

// byStatus summarises a request log as "POST /…/services 201: 100, …"
// (status 0: the client gave up before the answer).
func byStatus(requests []konnectsim.RequestRecord) string {
	counts := map[string]int{}
	for _, r := range requests {
		counts[fmt.Sprintf("%s %d", r.Operation, r.Status)]++
	}
	keys := slices.Sorted(maps.Keys(counts))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

// steadyThroughput reads the simulator's request log from start: the rate
// of requests Konnect accepted (answered, not 429) between the 10th and the
// 90th percentile of their times, and the longest gap between two accepted
// requests. Measuring the middle leaves out the start, where the objects
// are still being created, and the tail, where fewer and fewer are left;
// in between the operator has more work than the limit lets through.
func steadyThroughput(requests []konnectsim.RequestRecord, start time.Time) (perSecond float64, longestGap time.Duration) {
	var times []time.Time
	for _, r := range requests {
		if !r.Time.Before(start) && r.Status != 0 && r.Status != http.StatusTooManyRequests {
			times = append(times, r.Time)
		}
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	if len(times) < 10 {
		return 0, 0
	}
	for i := 1; i < len(times); i++ {
		longestGap = max(longestGap, times[i].Sub(times[i-1]))
	}
	first, last := len(times)/10, len(times)*9/10
	return float64(last-first) / times[last].Sub(times[first]).Seconds(), longestGap
}

// TestSustainedLimitIsSpentWithoutStalls: under Konnect's budget of 600
// requests a minute, with 429s that carry Retry-After and ones that carry
// only RateLimit-Reset, the operator (with its default flags) spends at
// least 90% of the budget while it has work and never stops for long.
func TestSustainedLimitIsSpentWithoutStalls(t *testing.T) {
	longTest(t)
	t.Parallel()
	const (
		perMinute = 600
		forced    = 2
	)
	for _, omitRetryAfter := range []bool{false, true} {
		name := map[bool]string{false: "with Retry-After", true: "with RateLimit-Reset only"}[omitRetryAfter]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{rateLimitPerMinute: perMinute, omitRetryAfter: omitRetryAfter, operatorDefaults: true})
			cpID := e.ready()
			// Warm-up: Konnect refuses a few requests for 2s, which must
			// pause the organisation's limiter that long and no longer.
			warmUp := time.Now()
			e.sim.Faults().Force429(forced, 2*time.Second)
			e.warmUp()
			if got := e.sim.Served().RateLimited; got != forced {
				t.Fatalf("the simulator served %d 429s with a delay during the warm-up, want the %d forced", got, forced)
			}

			start := time.Now()
			d := e.coldCreate(coldCreatePerKind)
			rate, _ := steadyThroughput(e.sim.Requests(), start)
			_, gap := steadyThroughput(e.sim.Requests(), warmUp)
			served := e.sim.Served()
			t.Logf("300 objects Programmed in %s; %.2f requests/s accepted in the steady part (%.0f%% of the limit); longest gap %s; simulator served %+v",
				d.Round(time.Millisecond), rate, 100*rate/(perMinute/60.0), gap.Round(time.Millisecond), served)

			e.checkOnePerObject(cpID)
			e.noRateLimitWarnings()
			if served.RateLimited != forced {
				t.Errorf("the simulator refused %d requests for the budget after the warm-up; the limiter should spend it without a 429", served.RateLimited-forced)
			}
			if limit := perMinute / 60.0; rate < 0.9*limit {
				t.Errorf("%.2f requests/s accepted in the steady part, want at least 90%% of the limit (%.0f/s)", rate, limit)
			}
			if gap >= 30*time.Second {
				t.Errorf("no request was accepted for %s in a row", gap.Round(time.Second))
			}
		})
	}
}

// TestSustainedLimitWithFailuresConverges: under Konnect's budget, with 10%
// of requests failing with 503, creates that fail after taking effect and
// creates that hang after taking effect, all 300 objects are Programmed
// with exactly one Konnect entity each, and deleting them all finishes.
func TestSustainedLimitWithFailuresConverges(t *testing.T) {
	t.Parallel()
	const perMinute = 600
	e := newEnv(t, envOptions{rateLimitPerMinute: perMinute})
	cpID := e.ready()
	e.warmUp()
	faults := e.sim.Faults()
	faults.Seed(11)
	faults.Set("*", konnectsim.Fault{ErrorRate: 0.1, Status: http.StatusServiceUnavailable})
	for _, collection := range []string{"services", "routes", "consumers"} {
		// The outcome of these creates is unknown to the operator: it must
		// find the entity by its UID tag rather than create it again.
		faults.Set("POST "+coreEntities+"/"+collection, konnectsim.Fault{ErrorRate: 0.03, Hang: true, AfterEffect: true})
		faults.Set("create-"+collection[:len(collection)-1], konnectsim.Fault{ErrorRate: 0.05, Status: http.StatusBadGateway, AfterEffect: true})
	}
	d := e.coldCreate(coldCreatePerKind)
	served := e.sim.Served()
	t.Logf("300 objects Programmed in %s; requests by status: %s; simulator served %+v", d.Round(time.Millisecond), byStatus(e.sim.Requests()), served)
	if served.ServerErrors == 0 || served.Hangs == 0 {
		t.Fatalf("the simulator served %+v; the 5xx and hangs did not happen", served)
	}
	e.checkOnePerObject(cpID)
	// The cleanup deletes everything with the faults still on, and checks
	// that nothing is left in Konnect.
}
