package metrics

import (
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// TestWorkqueueMetricsHaveKubernetesNames drives a named queue and checks
// that its metrics carry the names Kubernetes components use, labelled by
// the queue's name both as name and as controller (controller-runtime's
// label), on the registry given (not the global one).
func TestWorkqueueMetricsHaveKubernetesNames(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "KongService", MetricsProvider: NewWorkqueueMetrics(reg)})
	defer queue.ShutDown()
	queue.Add("a")
	queue.Add("b")
	queue.AddRateLimited("c")
	item, _ := queue.Get()
	queue.Done(item)

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if labelsInclude(m.GetLabel(), map[string]string{"name": "KongService", "controller": "KongService"}) {
				got[f.GetName()] = true
			}
		}
	}
	for _, name := range []string{
		"workqueue_depth", "workqueue_adds_total", "workqueue_queue_duration_seconds", "workqueue_work_duration_seconds",
		"workqueue_unfinished_work_seconds", "workqueue_longest_running_processor_seconds", "workqueue_retries_total",
	} {
		if !got[name] {
			t.Errorf("no %s{name=\"KongService\",controller=\"KongService\"}; gathered %v", name, keys(got))
		}
	}
	if v := gatheredValue(t, reg, "workqueue_adds_total", map[string]string{"name": "KongService"}); v != 2 {
		t.Errorf("workqueue_adds_total = %v, want 2 (c waits in the rate limiter)", v)
	}
	if v := gatheredValue(t, reg, "workqueue_retries_total", map[string]string{"name": "KongService"}); v != 1 {
		t.Errorf("workqueue_retries_total = %v, want 1", v)
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
