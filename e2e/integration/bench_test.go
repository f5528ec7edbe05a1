package integration

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// BenchmarkThousandsOfEntities creates 1,000 services, 1,000 routes and
// 1,000 consumers on one control plane and reports: the time until all are
// Programmed, create-to-Programmed latency percentiles, Konnect calls and
// status writes per entity, the Konnect calls of one idle sync period after
// a restart, and memory. Run it with
//
//	go test ./e2e/integration -run '^$' -bench ThousandsOfEntities -benchtime 1x
func BenchmarkThousandsOfEntities(b *testing.B) {
	const (
		perKind    = 1000
		idlePeriod = 30 * time.Second
	)
	for range b.N {
		e := newEnv(b, envOptions{konnectRate: 1000})
		cpID := e.ready()
		e.sim.ResetCalls()
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)

		created := map[string]time.Time{}
		programmedAt := map[string]time.Time{}
		var mu sync.Mutex
		stopWatch := e.watchProgrammed(&mu, programmedAt)

		start := time.Now()
		createAll(e, perKind, &mu, created)
		total := 3 * perKind
		err := wait.PollUntilContextTimeout(e.ctx, 200*time.Millisecond, 30*time.Minute, true, func(context.Context) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return len(programmedAt) >= total, nil
		})
		if err != nil {
			b.Fatalf("only %d of %d entities Programmed: %v", len(programmedAt), total, err)
		}
		took := time.Since(start)
		stopWatch()

		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)

		calls := map[string]int{}
		for op, n := range e.sim.Calls() {
			calls[strings.SplitN(op, " ", 2)[0]] += n
		}
		statusWrites := 0.0
		for _, kind := range []string{"KongService", "KongRoute", "KongConsumer"} {
			statusWrites += e.metricValue("konnect_operator_status_writes_total", map[string]string{"kind": kind})
		}
		var latencies []time.Duration
		for key, at := range programmedAt {
			latencies = append(latencies, at.Sub(created[key]))
		}
		slices.Sort(latencies)
		pct := func(p float64) time.Duration { return latencies[int(p*float64(len(latencies)-1))] }

		b.ReportMetric(float64(total)/took.Seconds(), "entities/s")
		b.ReportMetric(statusWrites/float64(total), "status-writes/entity")
		for _, verb := range []string{"POST", "PUT", "GET", "DELETE", "PATCH"} {
			b.ReportMetric(float64(calls[verb])/float64(total), verb+"/entity")
		}
		b.ReportMetric(float64(pct(0.5).Milliseconds()), "p50-ms")
		b.ReportMetric(float64(pct(0.99).Milliseconds()), "p99-ms")
		b.Logf("%d entities Programmed in %s (%.0f/s); create→Programmed p50 %s, p90 %s, p99 %s, max %s",
			total, took.Round(time.Millisecond), float64(total)/took.Seconds(), pct(0.5), pct(0.9), pct(0.99), latencies[len(latencies)-1])
		b.Logf("Konnect calls per entity while creating: %s", perEntity(calls, total))
		b.Logf("status writes per entity: %.2f", statusWrites/float64(total))
		b.Logf("heap in use grew by %.1f MiB (whole test process: apiserver clients, informers, operator, simulator)",
			float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20))

		// One idle sync period: a new operator with a short period takes
		// over; nothing changes, so every entity is written once and nothing
		// else happens.
		e.stopOperator()
		e.opts.syncPeriod = idlePeriod
		e.sim.ResetCalls()
		e.startOperator()
		e.step(idlePeriod)
		idle := map[string]int{}
		for op, n := range e.sim.Calls() {
			idle[strings.SplitN(op, " ", 2)[0]] += n
		}
		b.Logf("Konnect calls during one idle sync period of %s after a restart: %s", idlePeriod, perEntity(idle, total))
		sum := 0
		for _, n := range idle {
			sum += n
		}
		b.ReportMetric(float64(sum)/float64(total), "idle-calls/entity/period")
		_ = cpID
	}
}

func perEntity(calls map[string]int, total int) string {
	var parts []string
	sum := 0
	for _, verb := range []string{"POST", "PUT", "GET", "PATCH", "DELETE"} {
		if n := calls[verb]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %.2f", verb, float64(n)/float64(total)))
			sum += n
		}
	}
	return fmt.Sprintf("%s (total %d, %.2f per entity)", strings.Join(parts, ", "), sum, float64(sum)/float64(total))
}

// createAll creates perKind services, routes (one per service) and
// consumers with a few parallel writers, recording when each was created.
func createAll(e *env, perKind int, mu *sync.Mutex, created map[string]time.Time) {
	e.t.Helper()
	record := func(key string) {
		mu.Lock()
		created[key] = time.Now()
		mu.Unlock()
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for _, create := range []func(i int) (string, error){
		func(i int) (string, error) {
			name := fmt.Sprintf("svc-%04d", i)
			record("KongService/" + name)
			_, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Create(e.ctx, &configurationv1alpha1.KongService{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: configurationv1alpha1.KongServiceSpec{ControlPlaneRef: cpRef("cp"),
					KongServiceAPISpec: configurationv1alpha1.KongServiceAPISpec{Name: name, Host: name + ".example.com"}},
			}, metav1.CreateOptions{})
			return name, err
		},
		func(i int) (string, error) {
			name := fmt.Sprintf("route-%04d", i)
			record("KongRoute/" + name)
			_, err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Create(e.ctx, &configurationv1alpha1.KongRoute{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: configurationv1alpha1.KongRouteSpec{
					ServiceRef: &configurationv1alpha1.ServiceRef{Type: configurationv1alpha1.ServiceRefTypeNamespacedRef,
						NamespacedRef: &commonv1alpha1.NamespacedRef{Name: fmt.Sprintf("svc-%04d", i)}},
					KongRouteAPISpec: configurationv1alpha1.KongRouteAPISpec{Name: name, Paths: []string{"/" + name}},
				},
			}, metav1.CreateOptions{})
			return name, err
		},
		func(i int) (string, error) {
			name := fmt.Sprintf("consumer-%04d", i)
			record("KongConsumer/" + name)
			_, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, &configurationv1.KongConsumer{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Username:   name,
				Spec:       configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef("cp")},
			}, metav1.CreateOptions{})
			return name, err
		},
	} {
		wg.Go(func() {
			for i := range perKind {
				if _, err := create(i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Fatal(err)
	}
}

// watchProgrammed records, for every service, route and consumer of the
// namespace, when it was first seen Programmed. It returns a stop function.
func (e *env) watchProgrammed(mu *sync.Mutex, programmedAt map[string]time.Time) func() {
	ctx, cancel := context.WithCancel(e.ctx)
	var wg sync.WaitGroup
	watch := func(kind string, list func(context.Context, metav1.ListOptions) (watchInterface, error)) {
		wg.Go(func() {
			w, err := list(ctx, metav1.ListOptions{})
			if err != nil {
				e.t.Error(err)
				return
			}
			defer w.Stop()
			for ev := range w.ResultChan() {
				obj, ok := ev.Object.(conditioned)
				if !ok || programmed(obj) != nil {
					continue
				}
				key := kind + "/" + obj.GetName()
				mu.Lock()
				if _, seen := programmedAt[key]; !seen {
					programmedAt[key] = time.Now()
				}
				mu.Unlock()
			}
		})
	}
	watch("KongService", func(ctx context.Context, o metav1.ListOptions) (watchInterface, error) {
		return e.cs.ConfigurationV1alpha1().KongServices(e.ns).Watch(ctx, o)
	})
	watch("KongRoute", func(ctx context.Context, o metav1.ListOptions) (watchInterface, error) {
		return e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Watch(ctx, o)
	})
	watch("KongConsumer", func(ctx context.Context, o metav1.ListOptions) (watchInterface, error) {
		return e.cs.ConfigurationV1().KongConsumers(e.ns).Watch(ctx, o)
	})
	return func() {
		cancel()
		wg.Wait()
	}
}

type watchInterface = watch.Interface

// BenchmarkColdCreateWithinKonnectsBudget creates 1,000 services, 1,000
// routes and 1,000 consumers with the operator's default flags against a
// simulator that allows 3,000 requests a minute, as Konnect does, and
// reports the share of that budget the operator spends while it has work
// (between the 10th and 90th percentile of the accepted requests), the
// share over the whole create, and the 429s served after the first 10
// seconds (the warm-up). Run it with
//
//	go test ./e2e/integration -run '^$' -bench ColdCreateWithinKonnectsBudget -benchtime 1x
func BenchmarkColdCreateWithinKonnectsBudget(b *testing.B) {
	const (
		perKind   = 1000
		perMinute = 3000
		warmUp    = 10 * time.Second
	)
	for range b.N {
		e := newEnv(b, envOptions{rateLimitPerMinute: perMinute, operatorDefaults: true})
		e.ready()
		e.warmUp()
		start := time.Now()
		took := e.coldCreate(perKind)
		requests := e.sim.Requests()
		steady, gap := steadyThroughput(requests, start)
		sent, refusedAfterWarmUp := 0, 0
		for _, r := range requests {
			if r.Time.Before(start) {
				continue
			}
			sent++
			if r.Status == 429 && r.Time.After(start.Add(warmUp)) {
				refusedAfterWarmUp++
			}
		}
		waits, waited := e.histogram(konnect.MetricLimiterWait)
		limit := perMinute / 60.0
		overall := float64(sent) / took.Seconds()
		b.ReportMetric(steady/limit, "budget-share-steady")
		b.ReportMetric(overall/limit, "budget-share-overall")
		b.ReportMetric(float64(refusedAfterWarmUp), "429s-after-warm-up")
		b.Logf("%d entities Programmed in %s: %d requests, %.0f/minute overall (%.1f%% of %d); %.0f/minute in the steady part (%.1f%%); longest gap %s; 429s served: %+v, %d after the first %s; requests waited %s on average in the client-side limiter",
			3*perKind, took.Round(time.Millisecond), sent, 60*overall, 100*overall/limit, perMinute, 60*steady, 100*steady/limit,
			gap.Round(time.Millisecond), e.sim.Served(), refusedAfterWarmUp, warmUp, (time.Duration(waited / float64(waits) * float64(time.Second))).Round(time.Millisecond))
	}
}
