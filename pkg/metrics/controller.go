package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Reconcile results, used as the "result" label.
const (
	ResultSuccess     = "success"
	ResultError       = "error"
	ResultRateLimited = "rate_limited"
	ResultRequeue     = "requeue"
)

// MetricDriftCorrections is the counter of entities written again because
// Konnect differed from what the operator last wrote; the dashboard plots it.
const MetricDriftCorrections = Namespace + "_drift_corrections_total"

// ControllerMetrics counts and times reconciles by kind and result, and
// counts the writes the controllers make.
type ControllerMetrics struct {
	reconciles   *prometheus.CounterVec
	durations    *prometheus.HistogramVec
	statusWrites *prometheus.CounterVec
	konnectOps   *prometheus.CounterVec
	// driftCorrections counts the entities written again because Konnect
	// held something else than the operator last wrote there.
	driftCorrections *prometheus.CounterVec
}

// NewControllerMetrics registers the controller metrics on reg.
func NewControllerMetrics(reg prometheus.Registerer) *ControllerMetrics {
	m := &ControllerMetrics{
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "reconcile_total",
			Help: "Reconciles by kind and result (success, error, rate_limited, requeue).",
		}, []string{"kind", "result"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "reconcile_duration_seconds",
			Help:    "Time one reconcile took, by kind and result.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16), // 0.5ms .. ~16s
		}, []string{"kind", "result"}),
		statusWrites: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "status_writes_total",
			Help: "Writes of the status subresource, by kind.",
		}, []string{"kind"}),
		konnectOps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "entity_operations_total",
			Help: "Konnect entity operations the reconciler performed, by kind and operation (create, update, delete, adopt), whatever their outcome.",
		}, []string{"kind", "operation"}),
		driftCorrections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricDriftCorrections,
			Help: "Entities the operator wrote again (or created again) because Konnect held something else than it last wrote there, by kind.",
		}, []string{"kind"}),
	}
	reg.MustRegister(m.reconciles, m.durations, m.statusWrites, m.konnectOps, m.driftCorrections)
	return m
}

// ObserveReconcile records one reconcile.
func (m *ControllerMetrics) ObserveReconcile(kind, result string, took time.Duration) {
	if m == nil {
		return
	}
	m.reconciles.WithLabelValues(kind, result).Inc()
	m.durations.WithLabelValues(kind, result).Observe(took.Seconds())
}

// StatusWritten records one write of a status subresource.
func (m *ControllerMetrics) StatusWritten(kind string) {
	if m == nil {
		return
	}
	m.statusWrites.WithLabelValues(kind).Inc()
}

// EntityOperation records one Konnect entity operation.
func (m *ControllerMetrics) EntityOperation(kind, operation string) {
	if m == nil {
		return
	}
	m.konnectOps.WithLabelValues(kind, operation).Inc()
}

// InitKind makes the per-kind counters of kind exist at zero, so that
// /metrics serves them, and rates over them work, from start-up on.
func (m *ControllerMetrics) InitKind(kind string) {
	if m == nil {
		return
	}
	m.driftCorrections.WithLabelValues(kind)
}

// DriftCorrected records one entity written again because it drifted.
func (m *ControllerMetrics) DriftCorrected(kind string) {
	if m == nil {
		return
	}
	m.driftCorrections.WithLabelValues(kind).Inc()
}
