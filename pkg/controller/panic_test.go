package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// backoffRecorder is the queue's failure backoff, short for the test,
// counting the retries it spaces out per object.
type backoffRecorder struct {
	workqueue.TypedRateLimiter[cache.ObjectName]
	mu      sync.Mutex
	backoff map[string]int
}

func (r *backoffRecorder) When(key cache.ObjectName) time.Duration {
	r.mu.Lock()
	r.backoff[key.String()]++
	r.mu.Unlock()
	return r.TypedRateLimiter.When(key)
}

func (r *backoffRecorder) times(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.backoff[key]
}

// reconcileLog counts reconciles per object.
type reconcileLog struct {
	mu    sync.Mutex
	calls map[string]int
}

func (l *reconcileLog) add(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls[key]++
	return l.calls[key]
}

func (l *reconcileLog) count(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls[key]
}

// TestAReconcileThatPanicsIsRecoveredCountedAndRetried runs one worker over
// ConfigMaps: "bad" panics on every reconcile, "flaky" on its first two,
// and the others never. The process survives (an unrecovered panic would
// end the test binary), the single worker goes on to reconcile every other
// object, flaky converges on its third attempt, the panics are retried with
// the queue's backoff, counted under both metric names, and logged as
// errors with the object's key and the stack of the panic.
func TestAReconcileThatPanicsIsRecoveredCountedAndRetried(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	defer cancel()
	client := fake.NewClientset()
	factory := kubeinformers.NewSharedInformerFactory(client, 0)
	configMaps := NewInformer[*corev1.ConfigMap](corev1.Resource("configmaps"),
		map[string]cache.SharedIndexInformer{"": factory.Core().V1().ConfigMaps().Informer()})

	reconciled := &reconcileLog{calls: map[string]int{}}
	reconciler := ReconcilerFunc(func(_ context.Context, key cache.ObjectName) (Result, error) {
		attempt := reconciled.add(key.String())
		switch {
		case key.Name == "bad":
			panicInReconcile(key)
		case key.Name == "flaky" && attempt <= 2:
			var none []string
			_ = none[attempt] // a runtime error (index out of range), not a call to panic
		}
		return Result{}, nil
	})
	backoff := &backoffRecorder{
		TypedRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](time.Millisecond, 20*time.Millisecond),
		backoff:          map[string]int{},
	}
	reg := prometheus.NewPedanticRegistry()
	c, err := New("ConfigMap", configMaps, reconciler, Options{Workers: 1, RateLimiter: backoff, Metrics: metrics.NewControllerMetrics(reg)})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"bad", "good-1", "flaky", "good-2", "good-3"}
	for _, name := range names {
		if _, err := client.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	factory.Start(ctx.Done())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		for _, name := range []string{"good-1", "good-2", "good-3"} {
			if reconciled.count("ns/"+name) == 0 {
				return false, nil
			}
		}
		// Flaky converged; bad was retried after panicking more than once.
		return reconciled.count("ns/flaky") >= 3 && reconciled.count("ns/bad") >= 3, nil
	})
	if err != nil {
		t.Fatalf("not every object was reconciled after the panics: %v", reconciled.calls)
	}
	if got := reconciled.count("ns/flaky"); got != 3 {
		t.Errorf("flaky was reconciled %d times, want 3: two panics, then a success that is not retried", got)
	}
	for _, name := range []string{"good-1", "good-2", "good-3"} {
		if got := reconciled.count("ns/" + name); got != 1 {
			t.Errorf("%s was reconciled %d times, want once", name, got)
		}
		if got := backoff.times("ns/" + name); got != 0 {
			t.Errorf("%s was backed off %d times, want none", name, got)
		}
	}
	if got := backoff.times("ns/flaky"); got != 2 {
		t.Errorf("flaky was backed off %d times, want once per panic (2)", got)
	}
	badPanics := reconciled.count("ns/bad")
	if got := backoff.times("ns/bad"); got < badPanics-1 {
		t.Errorf("bad panicked %d times but was backed off %d times", badPanics, got)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Counted once per panic: the worker has stopped, nothing moves now.
	badPanics = reconciled.count("ns/bad")
	panics := badPanics + 2
	for _, series := range []string{
		`konnect_operator_reconcile_panics_total{kind="ConfigMap"}`,
		`controller_runtime_reconcile_panics_total{controller="ConfigMap"}`,
		`controller_runtime_reconcile_errors_total{controller="ConfigMap"}`,
		`controller_runtime_reconcile_total{controller="ConfigMap",result="error"}`,
		`konnect_operator_reconcile_total{kind="ConfigMap",result="error"}`,
	} {
		if got := seriesValue(t, reg, series); got != float64(panics) {
			t.Errorf("%s = %v, want %d (one per panic)", series, got, panics)
		}
	}
	if got := seriesValue(t, reg, `controller_runtime_active_workers{controller="ConfigMap"}`); got != 0 {
		t.Errorf("controller_runtime_active_workers = %v after the workers stopped, want 0: a panic left a worker counted busy", got)
	}

	logged := map[string]int{}
	for _, entry := range logger.GetSink().(ktesting.Underlier).GetBuffer().Data() {
		if entry.Type != ktesting.LogError || entry.Message != "Reconcile panicked; retrying with backoff" {
			continue
		}
		object := fmt.Sprint(kvValue(entry.WithKVList, "object"))
		stack := fmt.Sprint(kvValue(entry.ParameterKVList, "stack"))
		logged[object]++
		wantFrame := map[string]string{"ns/bad": "panicInReconcile", "ns/flaky": "TestAReconcileThatPanicsIsRecoveredCountedAndRetried"}[object]
		if wantFrame == "" || !strings.Contains(stack, wantFrame) {
			t.Errorf("the panic of %q was logged with a stack that does not name %q:\n%s", object, wantFrame, stack)
		}
		if !strings.Contains(entry.Err.Error(), "reconcile panicked") {
			t.Errorf("the panic of %q was logged with the error %v", object, entry.Err)
		}
	}
	if logged["ns/flaky"] != 2 || logged["ns/bad"] != badPanics {
		t.Errorf("panics logged per object: %v; want flaky 2 and bad %d", logged, badPanics)
	}
}

// panicInReconcile is a frame of its own, for the logged stack to name.
func panicInReconcile(key cache.ObjectName) {
	panic(fmt.Sprintf("%s cannot be reconciled", key))
}

// kvValue finds key in a logr key/value list.
func kvValue(kvs []any, key string) any {
	for i := 0; i+1 < len(kvs); i += 2 {
		if kvs[i] == key {
			return kvs[i+1]
		}
	}
	return nil
}

// seriesValue reads one counter or gauge series, written as in the
// exposition format, from reg.
func seriesValue(t *testing.T, reg *prometheus.Registry, series string) float64 {
	t.Helper()
	name, labels, _ := strings.Cut(strings.TrimSuffix(series, "}"), "{")
	want := map[string]string{}
	for _, pair := range strings.Split(labels, ",") {
		k, v, _ := strings.Cut(pair, "=")
		want[k] = strings.Trim(v, `"`)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if got[k] != v {
					continue next
				}
			}
			return m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no series %s gathered", series)
	return 0
}
