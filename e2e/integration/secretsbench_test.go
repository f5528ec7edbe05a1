package integration

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// BenchmarkUnrelatedSecretsInMemory creates 10,000 Secrets the operator
// has no use for (2 KiB of data each, no operator label) in the namespace
// it watches, and reports this process's heap and RSS: with the operator
// alone, whose caches select Secrets by label, and then with one more
// informer caching every Secret of the namespace, as the operator's own
// cache did before it selected them. It prints figures; it asserts none.
//
//	go test ./e2e/integration -run '^$' -bench UnrelatedSecrets -benchtime 1x
func BenchmarkUnrelatedSecretsInMemory(b *testing.B) {
	const (
		count   = 10000
		payload = 2048
	)
	for range b.N {
		e := newEnv(b, envOptions{})
		e.ready()
		empty := measureMemory()

		start := time.Now()
		createUnrelatedSecrets(b, e, count, payload)
		created := time.Since(start)
		// Nothing should reach the operator's caches; whatever the watches
		// deliver, the operator has handled once it is idle.
		e.settle()
		filtered := measureMemory()

		factory := kubeinformers.NewSharedInformerFactoryWithOptions(e.kube, 0, kubeinformers.WithNamespace(e.ns))
		everySecret := factory.Core().V1().Secrets().Informer()
		stop := make(chan struct{})
		factory.Start(stop)
		if !cache.WaitForNamedCacheSync("every Secret", stop, everySecret.HasSynced) {
			b.Fatal("the unfiltered Secret informer did not sync")
		}
		unfiltered := measureMemory()
		cachedByUnfiltered := len(everySecret.GetStore().List())
		cachedByOperator := e.selectedSecrets(b)
		close(stop)
		factory.Shutdown()

		mib := func(bytes uint64) float64 { return float64(bytes) / (1 << 20) }
		b.ReportMetric(mib(filtered.heap)-mib(empty.heap), "heap-MiB-growth-filtered")
		b.ReportMetric(mib(unfiltered.heap)-mib(filtered.heap), "heap-MiB-every-secret-cache")
		b.ReportMetric(mib(filtered.rss)-mib(empty.rss), "rss-MiB-growth-filtered")
		b.ReportMetric(mib(unfiltered.rss)-mib(filtered.rss), "rss-MiB-every-secret-cache")
		b.Logf("%d unrelated Secrets of %d bytes created in %s", count, payload, created.Round(time.Millisecond))
		b.Logf("%-44s %10s %10s", "", "heap MiB", "RSS MiB")
		b.Logf("%-44s %10.1f %10.1f", "operator, before the Secrets", mib(empty.heap), mib(empty.rss))
		b.Logf("%-44s %10.1f %10.1f", "operator, label-filtered caches (now)", mib(filtered.heap), mib(filtered.rss))
		b.Logf("%-44s %10.1f %10.1f", "plus a cache of every Secret (before)", mib(unfiltered.heap), mib(unfiltered.rss))
		b.Logf("Secrets cached: %d selected by the operator's labels, %d by an unfiltered informer", cachedByOperator, cachedByUnfiltered)
	}
}

// memoryFigures are the process's live heap and resident set.
type memoryFigures struct{ heap, rss uint64 }

func measureMemory() memoryFigures {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memoryFigures{heap: m.HeapAlloc, rss: residentSetSize()}
}

// residentSetSize reads VmRSS from /proc/self/status; 0 when unknown.
func residentSetSize() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kib << 10
			}
		}
	}
	return 0
}

// selectedSecrets counts the Secrets of the namespace that the operator's
// label selectors select, hence what its caches hold.
func (e *env) selectedSecrets(b *testing.B) int {
	b.Helper()
	n := 0
	for _, selector := range []string{commonv1alpha1.LabelCredential, commonv1alpha1.LabelSecret + "=true"} {
		list, err := e.kube.CoreV1().Secrets(e.ns).List(e.ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			b.Fatal(err)
		}
		n += len(list.Items)
	}
	return n
}

// createUnrelatedSecrets creates count opaque Secrets of size bytes each,
// without any label the operator selects by.
func createUnrelatedSecrets(b *testing.B, e *env, count, size int) {
	b.Helper()
	data := bytes.Repeat([]byte("x"), size)
	names := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var failed error
	for range 16 {
		wg.Go(func() {
			for i := range names {
				s := &corev1.Secret{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("unrelated-%05d", i), Labels: map[string]string{"app": "unrelated"}},
					Data:       map[string][]byte{"payload": data},
				}
				if _, err := e.kube.CoreV1().Secrets(e.ns).Create(e.ctx, s, metav1.CreateOptions{}); err != nil {
					once.Do(func() { failed = err })
				}
			}
		})
	}
	for i := range count {
		names <- i
	}
	close(names)
	wg.Wait()
	if failed != nil {
		b.Fatal(failed)
	}
}
