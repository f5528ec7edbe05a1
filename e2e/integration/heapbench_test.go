package integration

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configurationv1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// BenchmarkHeapPerObject programs KONNECT_HEAP_N consumers (default
// 1,000), each with a key-auth credential, as make bench-scale does, and
// reports the live heap they add to this process (the operator's caches,
// records and indexes, and the test's clients, which hold little), per
// object. With KONNECT_HEAP_PROFILE=file it writes the heap profile there
// (go tool pprof -sample_index=inuse_space). It prints figures; it asserts
// none.
//
//	KONNECT_HEAP_N=5000 go test ./e2e/integration -run '^$' -bench HeapPerObject -benchtime 1x
func BenchmarkHeapPerObject(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("KONNECT_HEAP_N")); err == nil && v > 0 {
		n = v
	}
	if os.Getenv("KONNECT_HEAP_PROFILE") != "" {
		// A sample every 4 KiB rather than 512: per-object costs show.
		runtime.MemProfileRate = 4096
	}
	for range b.N {
		e := newEnv(b, envOptions{konnectRate: 1000})
		e.ready()
		e.settle()
		empty := measureMemory()
		start := time.Now()
		createConsumersWithKeys(b, e, n)
		e.eventuallyWithin(30*time.Minute, "every consumer and key Programmed", func() error {
			for _, kind := range []string{"KongConsumer", "KongCredentialAPIKey"} {
				if got := e.metricValue(metrics.MetricObjects, map[string]string{"kind": kind, "status": "True"}); got != float64(n) {
					return fmt.Errorf("%v of %d %s Programmed", got, n, kind)
				}
			}
			return nil
		})
		programmedIn := time.Since(start)
		e.settle()
		full := measureMemory()
		if path := os.Getenv("KONNECT_HEAP_PROFILE"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
				b.Fatal(err)
			}
			_ = f.Close()
		}
		objects := float64(2 * n)
		kib := func(bytes uint64) float64 { return float64(bytes) / 1024 }
		b.ReportMetric((kib(full.heap)-kib(empty.heap))/objects, "heap-KiB/object")
		b.ReportMetric((kib(full.rss)-kib(empty.rss))/objects, "rss-KiB/object")
		b.Logf("%d consumers and %d keys Programmed in %s; live heap %.1f → %.1f MiB, RSS %.1f → %.1f MiB",
			n, n, programmedIn.Round(time.Second), kib(empty.heap)/1024, kib(full.heap)/1024, kib(empty.rss)/1024, kib(full.rss)/1024)
	}
}

// createConsumersWithKeys creates n consumers of the control plane "cp",
// each with a key-auth credential, 16 at a time.
func createConsumersWithKeys(b *testing.B, e *env, n int) {
	b.Helper()
	indexes := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var failed error
	for range 16 {
		wg.Go(func() {
			for i := range indexes {
				name := fmt.Sprintf("consumer-%06d", i)
				c := &configurationv1.KongConsumer{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Username:   name,
					Spec:       configurationv1.KongConsumerSpec{ControlPlaneRef: cpRef("cp")},
				}
				if _, err := e.cs.ConfigurationV1().KongConsumers(e.ns).Create(e.ctx, c, metav1.CreateOptions{}); err != nil {
					once.Do(func() { failed = err })
					continue
				}
				key := &configurationv1alpha1.KongCredentialAPIKey{
					ObjectMeta: metav1.ObjectMeta{Name: name + "-key"},
					Spec: configurationv1alpha1.KongCredentialAPIKeySpec{
						ConsumerRef:                 corev1.LocalObjectReference{Name: name},
						KongCredentialAPIKeyAPISpec: configurationv1alpha1.KongCredentialAPIKeyAPISpec{Key: name + "-key-value"},
					},
				}
				if _, err := e.cs.ConfigurationV1alpha1().KongCredentialAPIKeys(e.ns).Create(e.ctx, key, metav1.CreateOptions{}); err != nil {
					once.Do(func() { failed = err })
				}
			}
		})
	}
	for i := range n {
		indexes <- i
	}
	close(indexes)
	wg.Wait()
	if failed != nil {
		b.Fatal(failed)
	}
}
