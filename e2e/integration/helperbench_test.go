package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// BenchmarkHelperReconciles creates N plain services, routes and consumers
// and N plugin bindings that target the services (a quarter of the
// entities each; N is KONNECT_BENCH_HELPERS_N, default 1,000) against an
// unlimited simulator, waits until all are Programmed and the helper
// controllers are idle, and prints the reconciles of each helper
// controller per entity. Run it with
//
//	go test ./e2e/integration -run '^$' -bench HelperReconciles -benchtime 1x -v
func BenchmarkHelperReconciles(b *testing.B) {
	perKind := max(envInt("KONNECT_BENCH_HELPERS_N", 1000)/4, 1)
	total := 4 * perKind
	for range b.N {
		e := newEnv(b, envOptions{konnectRate: 1000})
		e.ready()
		e.createPlugin("cors", "cors", `{}`)
		before := e.helperReconciles()

		var mu sync.Mutex
		created, programmedAt := map[string]time.Time{}, map[string]time.Time{}
		stopWatch := e.watchProgrammed(&mu, programmedAt)
		start := time.Now()
		var wg sync.WaitGroup
		wg.Go(func() { createAll(e, perKind, &mu, created) })
		wg.Go(func() {
			for i := range perKind {
				e.createBinding(fmt.Sprintf("cors-%04d", i), "cors", targeting(fmt.Sprintf("s=svc-%04d", i)))
			}
		})
		wg.Wait()
		err := wait.PollUntilContextTimeout(e.ctx, 500*time.Millisecond, 30*time.Minute, true, func(context.Context) (bool, error) {
			mu.Lock()
			done := len(programmedAt)
			mu.Unlock()
			bindings, err := e.cs.ConfigurationV1alpha1().KongPluginBindings(e.ns).List(e.ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for i := range bindings.Items {
				if programmed(&bindings.Items[i]) == nil {
					done++
				}
			}
			return done >= total, nil
		})
		if err != nil {
			b.Fatalf("not all %d entities Programmed: %v", total, err)
		}
		took := time.Since(start)
		stopWatch()
		last := e.helpersIdle()

		var rows []string
		sum := 0.0
		for _, kind := range helperControllers {
			n := last[kind] - before[kind]
			sum += n
			rows = append(rows, fmt.Sprintf("%s %.0f", kind, n))
		}
		b.ReportMetric(sum/float64(total), "helper-reconciles/entity")
		b.Logf("%d entities (%d services, routes, consumers and bindings on the services each) Programmed in %s; helper reconciles: %.2f per entity (%.0f: %s)",
			total, perKind, took.Round(100*time.Millisecond), sum/float64(total), sum, strings.Join(rows, ", "))
	}
}
