package integration

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// BenchmarkDriftAtScale runs both drift-detection modes side by side
// against a simulator limited to 3,000 requests a minute, as Konnect is,
// with the operator's default flags and a short sync period, and prints:
// the time until N entities (services, routes, consumers and plugin
// bindings, a quarter each) are Programmed and the achieved request rate as
// a share of the limit; 50 spec changes made during the cold create and 50
// during the period after a drift, p50/p99 until Konnect holds them; the
// Konnect calls and writes of one idle sync period; 100 services changed in
// the simulator, p50 and max until overwritten; 429s served; status writes
// per entity; the test process's peak RSS. Nothing is asserted on time.
//
// N is KONNECT_BENCH_DRIFT_N (default 1,000, practical on 2 shared cores;
// the figure is 10,000) and the sync period
// KONNECT_BENCH_DRIFT_PERIOD (default 20s). Run it with
//
//	go test ./e2e/integration -run '^$' -bench DriftAtScale -benchtime 1x -v
func BenchmarkDriftAtScale(b *testing.B) {
	n := envInt("KONNECT_BENCH_DRIFT_N", 1000)
	period := 20 * time.Second
	if v, err := time.ParseDuration(os.Getenv("KONNECT_BENCH_DRIFT_PERIOD")); err == nil && v > 0 {
		period = v
	}
	perKind := max(n/4, 250) // the changes below need 250 services
	for range b.N {
		var rows []string
		for _, mode := range controller.DriftModes {
			rows = append(rows, driftBench(b, mode, perKind, period))
		}
		b.Logf("N = %d (%d per kind), sync period %s, simulator limit 3,000/minute, default flags\n%s",
			4*perKind, perKind, period, strings.Join(rows, "\n"))
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// hostWatch measures, for services whose host was set to a value, the time
// until the simulator holds that value.
type hostWatch struct {
	e    *env
	cpID string
	mu   sync.Mutex
	want map[string]string // service name → host
	from map[string]time.Time
	took []time.Duration
}

func (w *hostWatch) expect(name, host string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.want[name], w.from[name] = host, time.Now()
}

// watchFor polls the simulator in the background, while the changes are
// made, until count expectations are met or timeout; the returned function
// waits for it.
func (w *hostWatch) watchFor(count int, timeout time.Duration) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.wait(count, timeout)
	}()
	return func() { <-done }
}

// wait polls the simulator until count expectations are met or timeout.
func (w *hostWatch) wait(count int, timeout time.Duration) {
	_ = wait.PollUntilContextTimeout(w.e.ctx, 50*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		hosts := map[string]any{}
		for _, ent := range w.e.entities(w.cpID, "services") {
			hosts[fmt.Sprint(ent["name"])] = ent["host"]
		}
		now := time.Now()
		w.mu.Lock()
		defer w.mu.Unlock()
		for name, host := range w.want {
			if hosts[name] == host {
				w.took = append(w.took, now.Sub(w.from[name]))
				delete(w.want, name)
			}
		}
		return len(w.took) >= count, nil
	})
}

// result takes the measured latencies: p50, p99 and max, and how many
// never arrived.
func (w *hostWatch) result() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	slices.Sort(w.took)
	if len(w.took) == 0 {
		return fmt.Sprintf("none arrived (%d missing)", len(w.want))
	}
	pct := func(p float64) time.Duration {
		return w.took[int(p*float64(len(w.took)-1))].Round(10 * time.Millisecond)
	}
	s := fmt.Sprintf("p50 %s, p99 %s, max %s", pct(0.5), pct(0.99), w.took[len(w.took)-1].Round(10*time.Millisecond))
	if len(w.want) > 0 {
		s += fmt.Sprintf(" (%d never arrived)", len(w.want))
	}
	w.took, w.want, w.from = nil, map[string]string{}, map[string]time.Time{}
	return s
}

func driftBench(b *testing.B, mode string, perKind int, period time.Duration) string {
	e := newEnv(b, envOptions{rateLimitPerMinute: 3000, operatorDefaults: true, syncPeriod: period, driftDetection: mode})
	cpID := e.ready()
	e.createPlugin("cors", "cors", `{}`)
	e.warmUp()
	watch := &hostWatch{e: e, cpID: cpID, want: map[string]string{}, from: map[string]time.Time{}}
	svc := func(i int) string { return fmt.Sprintf("svc-%04d", i) }
	setHost := func(i int, host string) {
		e.updateService(svc(i), func(s *configurationv1alpha1.KongService) { s.Spec.Host = host })
		watch.expect(svc(i), host)
	}

	// Cold create, with 50 spec changes once a third of the services exist.
	e.sim.ResetCalls()
	start := time.Now()
	var mu sync.Mutex
	created, programmedAt := map[string]time.Time{}, map[string]time.Time{}
	stopWatch := e.watchProgrammed(&mu, programmedAt)
	var wg sync.WaitGroup
	wg.Go(func() { createAll(e, perKind, &mu, created) })
	wg.Go(func() {
		for i := range perKind {
			e.createBinding(fmt.Sprintf("cors-%04d", i), "cors", targeting("s="+svc(i)))
		}
	})
	_ = wait.PollUntilContextTimeout(e.ctx, 50*time.Millisecond, time.Hour, true, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(created) >= perKind, nil
	})
	createChanges := watch.watchFor(50, 5*time.Minute)
	for i := range 50 {
		setHost(i, fmt.Sprintf("during-create-%d.example.com", i))
	}
	wg.Wait()
	allProgrammed := func() (int, bool) {
		mu.Lock()
		done := len(programmedAt)
		mu.Unlock()
		bindings, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range bindings.Items {
			if programmed(&bindings.Items[i]) == nil {
				done++
			}
		}
		return done, done >= 4*perKind
	}
	_ = wait.PollUntilContextTimeout(e.ctx, 500*time.Millisecond, time.Hour, true, func(context.Context) (bool, error) {
		_, ok := allProgrammed()
		return ok, nil
	})
	took := time.Since(start)
	stopWatch()
	createChanges()
	duringCreate := watch.result()
	accepted := 0
	for _, r := range e.sim.Requests() {
		if !r.Time.Before(start) && r.Status != 0 && r.Status != 429 {
			accepted++
		}
	}
	share := float64(accepted) / took.Seconds() / (3000.0 / 60)
	served := e.sim.Served()
	statusWrites := 0.0
	for _, kind := range []string{"KongService", "KongRoute", "KongConsumer", "KongPluginBinding"} {
		statusWrites += e.metricValue("konnect_operator_status_writes_total", map[string]string{"kind": kind})
	}

	// One idle sync period, after a period for the first listings.
	e.step(period)
	e.sim.ResetCalls()
	e.step(period)
	lists, writes, calls := 0, 0, 0
	for op, count := range e.sim.Calls() {
		calls += count
		method, path, _ := strings.Cut(op, " ")
		switch {
		case method == "GET" && !strings.HasSuffix(path, "}"):
			lists += count
		case method != "GET":
			writes += count
		}
	}

	// 100 services changed in the simulator, then 50 spec changes.
	drifted := watch.watchFor(100, 3*period)
	for i := 100; i < 200; i++ {
		ent, ok := e.entity(cpID, "services", e.service(svc(i)).Status.Konnect.ID)
		if !ok {
			b.Fatalf("%s is not in the simulator", svc(i))
		}
		ent["host"] = "drifted.example.com"
		if err := e.sim.PutEntity(e.orgID, cpID, "services", ent); err != nil {
			b.Fatal(err)
		}
		watch.expect(svc(i), svc(i)+".example.com")
	}
	drifted()
	drift := watch.result()
	resyncChanges := watch.watchFor(50, time.Minute)
	for i := 200; i < 250; i++ {
		setHost(i, fmt.Sprintf("during-resync-%d.example.com", i))
	}
	resyncChanges()
	duringResync := watch.result()

	return fmt.Sprintf("%-6s | all %d Programmed in %s, %.0f%% of the limit | idle period: %d calls (%d lists), %d writes | 100 drifted: %s | 50 spec changes during the create: %s; during a resync: %s | 429s served %d (+%d without delay) | %.2f status writes/entity | peak RSS %s",
		mode, 4*perKind, took.Round(100*time.Millisecond), 100*share, calls, lists, writes, drift, duringCreate, duringResync,
		served.RateLimited, served.RateLimitedWithoutDelay, statusWrites/float64(4*perKind), peakRSS())
}

// peakRSS is the test process's peak resident set (operator, simulator and
// test clients together; the API server and etcd run apart).
func peakRSS() string {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
