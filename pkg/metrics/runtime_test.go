package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestReconcilesAreCountedUnderControllerRuntimeNames records reconciles of
// every outcome and checks the controller-runtime series each one moves, as
// a controller built on controller-runtime would have counted it.
func TestReconcilesAreCountedUnderControllerRuntimeNames(t *testing.T) {
	for _, tt := range []struct {
		name           string
		outcome        Outcome
		result         string
		errors         float64
		terminalErrors float64
	}{
		{"success", Outcome{Result: ResultSuccess}, "success", 0, 0},
		{"success that runs again after the sync period", Outcome{Result: ResultSuccess, Scheduled: true}, "requeue_after", 0, 0},
		{"429 waited out", Outcome{Result: ResultRateLimited}, "requeue_after", 0, 0},
		{"stale cache, retried at once", Outcome{Result: ResultRequeue}, "requeue", 0, 0},
		{"failure retried with backoff", Outcome{Result: ResultError}, "error", 1, 0},
		{"failure not retried until something changes", Outcome{Result: ResultError, Terminal: true}, "error", 1, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			m := NewControllerMetrics(reg)
			m.InitController("KongService", 4)
			m.ObserveReconcile("KongService", tt.outcome, 3*time.Second)

			controller := map[string]string{"controller": "KongService"}
			for _, result := range runtimeResults {
				want := 0.0
				if result == tt.result {
					want = 1
				}
				if got := gatheredValue(t, reg, MetricRuntimeReconciles, map[string]string{"controller": "KongService", "result": result}); got != want {
					t.Errorf("%s{result=%q} = %v, want %v", MetricRuntimeReconciles, result, got, want)
				}
			}
			if got := gatheredValue(t, reg, MetricRuntimeErrors, controller); got != tt.errors {
				t.Errorf("%s = %v, want %v", MetricRuntimeErrors, got, tt.errors)
			}
			if got := gatheredValue(t, reg, MetricRuntimeTerminalErrors, controller); got != tt.terminalErrors {
				t.Errorf("%s = %v, want %v", MetricRuntimeTerminalErrors, got, tt.terminalErrors)
			}
			if count, sum := histogramOf(t, reg, MetricRuntimeTime, controller); count != 1 || sum != 3 {
				t.Errorf("%s count %d, sum %v; want 1 and 3", MetricRuntimeTime, count, sum)
			}
			// The project's own counter keeps its labels.
			if got := gatheredValue(t, reg, Namespace+"_reconcile_total", map[string]string{"kind": "KongService", "result": tt.outcome.Result}); got != 1 {
				t.Errorf("%s_reconcile_total{result=%q} = %v, want 1", Namespace, tt.outcome.Result, got)
			}
		})
	}
}

// TestControllerSeriesExistFromTheStart: a controller that has not
// reconciled anything yet serves its counters at zero and its workers.
func TestControllerSeriesExistFromTheStart(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m := NewControllerMetrics(reg)
	m.InitController("KongRoute", 3)
	controller := map[string]string{"controller": "KongRoute"}
	for _, name := range []string{MetricRuntimeErrors, MetricRuntimeTerminalErrors, MetricRuntimePanics, MetricRuntimeActiveWorkers} {
		if got := gatheredValue(t, reg, name, controller); got != 0 {
			t.Errorf("%s = %v, want 0", name, got)
		}
	}
	if got := gatheredValue(t, reg, Namespace+"_reconcile_panics_total", map[string]string{"kind": "KongRoute"}); got != 0 {
		t.Errorf("%s_reconcile_panics_total = %v, want 0", Namespace, got)
	}
	if count, _ := histogramOf(t, reg, MetricRuntimeTime, controller); count != 0 || !served(t, reg, MetricRuntimeTime, controller) {
		t.Errorf("%s: want an empty histogram served, got %d samples", MetricRuntimeTime, count)
	}
	if got := gatheredValue(t, reg, MetricRuntimeMaxConcurrent, controller); got != 3 {
		t.Errorf("%s = %v, want 3", MetricRuntimeMaxConcurrent, got)
	}

	free := m.WorkerBusy("KongRoute")
	m.WorkerBusy("KongRoute")
	if got := gatheredValue(t, reg, MetricRuntimeActiveWorkers, controller); got != 2 {
		t.Errorf("%s with two reconciles under way = %v, want 2", MetricRuntimeActiveWorkers, got)
	}
	free()
	if got := gatheredValue(t, reg, MetricRuntimeActiveWorkers, controller); got != 1 {
		t.Errorf("%s once one is done = %v, want 1", MetricRuntimeActiveWorkers, got)
	}

	m.Panicked("KongRoute")
	if got := gatheredValue(t, reg, MetricRuntimePanics, controller); got != 1 {
		t.Errorf("%s = %v, want 1", MetricRuntimePanics, got)
	}
	if got := gatheredValue(t, reg, Namespace+"_reconcile_panics_total", map[string]string{"kind": "KongRoute"}); got != 1 {
		t.Errorf("%s_reconcile_panics_total = %v, want 1", Namespace, got)
	}
}

// TestReconcileDurationBucketsReachAMinute: a reconcile that waited for a
// Konnect request to time out (30s) lands in a bucket of its own, not in
// +Inf, under both names.
func TestReconcileDurationBucketsReachAMinute(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m := NewControllerMetrics(reg)
	m.ObserveReconcile("KongService", Outcome{Result: ResultError}, 45*time.Second)
	for _, name := range []string{Namespace + "_reconcile_duration_seconds", MetricRuntimeTime} {
		bounds := finiteBucketsHolding(t, reg, name)
		if len(bounds) == 0 {
			t.Errorf("%s: a 45s reconcile fell in +Inf only", name)
			continue
		}
		if bounds[0] > 60 {
			t.Errorf("%s: the first bucket holding a 45s reconcile is %vs, want at most 60s", name, bounds[0])
		}
	}
}

// served reports whether reg serves a series of name whose labels include
// match.
func served(t *testing.T, reg prometheus.Gatherer, name string, match map[string]string) bool {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() == name && labelsInclude(m.GetLabel(), match) {
				return true
			}
		}
	}
	return false
}

// histogramOf returns the sample count and sum of the histogram series of
// name whose labels include match.
func histogramOf(t *testing.T, reg prometheus.Gatherer, name string, match map[string]string) (count uint64, sum float64) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if labelsInclude(m.GetLabel(), match) {
				count += m.GetHistogram().GetSampleCount()
				sum += m.GetHistogram().GetSampleSum()
			}
		}
	}
	return count, sum
}

// finiteBucketsHolding lists the upper bounds of the buckets of name that
// hold at least one sample.
func finiteBucketsHolding(t *testing.T, reg prometheus.Gatherer, name string) []float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var bounds []float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, b := range m.GetHistogram().GetBucket() {
				if b.GetCumulativeCount() > 0 {
					bounds = append(bounds, b.GetUpperBound())
				}
			}
		}
	}
	return bounds
}
