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
	// ResultHeld: the reconcile met its organisation held (Konnect does not
	// answer it, or rejects its token), and waits for the hold to end.
	ResultHeld = "held"
)

// MetricDriftCorrections is the counter of entities written again because
// Konnect differed from what the operator last wrote; the dashboard plots it.
const MetricDriftCorrections = Namespace + "_drift_corrections_total"

// reconcileBuckets bound reconcile durations: from half a millisecond (a
// reconcile that finds nothing to do) to two minutes, since one Konnect
// request may take 30 seconds (--konnect-request-timeout) and a reconcile may
// make several, or wait at the rate limiter first.
var reconcileBuckets = []float64{
	0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
	1, 2.5, 5, 10, 15, 20, 30, 45, 60, 90, 120,
}

// ControllerMetrics counts and times reconciles by kind and result, and
// counts the writes the controllers make. It serves each reconcile twice:
// under the operator's names (by kind) and under controller-runtime's (by
// controller, see runtime.go).
type ControllerMetrics struct {
	reconciles   *prometheus.CounterVec
	durations    *prometheus.HistogramVec
	panics       *prometheus.CounterVec
	statusWrites *prometheus.CounterVec
	konnectOps   *prometheus.CounterVec
	// driftCorrections counts the entities written again because Konnect
	// had something else than the operator last wrote there.
	driftCorrections *prometheus.CounterVec
	runtime          *runtimeMetrics
}

// NewControllerMetrics registers the controller metrics on reg.
func NewControllerMetrics(reg prometheus.Registerer) *ControllerMetrics {
	m := &ControllerMetrics{
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "reconcile_total",
			Help: "Reconciles by kind and result (success, error, rate_limited, held: waiting for an organisation Konnect does not answer, requeue).",
		}, []string{"kind", "result"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "reconcile_duration_seconds",
			Help:    "Time one reconcile took, by kind and result.",
			Buckets: reconcileBuckets,
		}, []string{"kind", "result"}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "reconcile_panics_total",
			Help: "Reconciles that panicked, by kind; each was recovered, counted as an error and retried with backoff.",
		}, []string{"kind"}),
		statusWrites: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "status_writes_total",
			Help: "Writes of the status subresource, by kind.",
		}, []string{"kind"}),
		konnectOps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "entity_operations_total",
			Help: "Konnect entity operations the reconciler performed, by kind and operation (create, update, delete, adopt; read: a provisioning entity read again; list: one listing of a control plane's entities of the kind), whatever their outcome.",
		}, []string{"kind", "operation"}),
		driftCorrections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricDriftCorrections,
			Help: "Entities that Konnect had otherwise than the operator last wrote there, by kind and what was done: corrected (written, or created, again) or reported (under the report policy, left as it was).",
		}, []string{"kind", "action"}),
		runtime: newRuntimeMetrics(),
	}
	reg.MustRegister(m.reconciles, m.durations, m.panics, m.statusWrites, m.konnectOps, m.driftCorrections)
	m.runtime.register(reg)
	return m
}

// Outcome is how the loop handled the end of a reconcile.
type Outcome struct {
	// Result is the result label of konnect_operator_reconcile_total:
	// ResultSuccess, ResultError, ResultRateLimited, ResultHeld or
	// ResultRequeue.
	Result string
	// Scheduled says that a successful reconcile asked to be run again after
	// a delay (the rest of the sync period).
	Scheduled bool
	// Terminal says that a failed reconcile is not retried until something
	// changes (a PermanentError).
	Terminal bool
}

// ObserveReconcile records one reconcile.
func (m *ControllerMetrics) ObserveReconcile(kind string, outcome Outcome, took time.Duration) {
	if m == nil {
		return
	}
	m.reconciles.WithLabelValues(kind, outcome.Result).Inc()
	m.durations.WithLabelValues(kind, outcome.Result).Observe(took.Seconds())
	m.runtime.observe(kind, outcome, took)
}

// Panicked records a reconcile of kind that panicked (and was recovered).
func (m *ControllerMetrics) Panicked(kind string) {
	if m == nil {
		return
	}
	m.panics.WithLabelValues(kind).Inc()
	m.runtime.panics.WithLabelValues(kind).Inc()
}

// InitController makes the series of a controller exist from its start: its
// reconcile, error and panic counters at zero, and its number of workers.
// Rates and alerts over them then work before the first event, as with
// controller-runtime.
func (m *ControllerMetrics) InitController(kind string, workers int) {
	if m == nil {
		return
	}
	m.panics.WithLabelValues(kind)
	m.runtime.init(kind, workers)
}

// WorkerBusy records that a worker of kind started a reconcile; the
// function it returns records that the worker is free again.
func (m *ControllerMetrics) WorkerBusy(kind string) (free func()) {
	if m == nil {
		return func() {}
	}
	active := m.runtime.activeWorkers.WithLabelValues(kind)
	active.Inc()
	return active.Dec
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
	m.driftCorrections.WithLabelValues(kind, DriftCorrected)
	m.driftCorrections.WithLabelValues(kind, DriftReported)
}

// What was done about a drift (the action label of MetricDriftCorrections).
const (
	DriftCorrected = "corrected"
	DriftReported  = "reported"
)

// DriftCorrected records one entity written again because it drifted.
func (m *ControllerMetrics) DriftCorrected(kind string) {
	if m == nil {
		return
	}
	m.driftCorrections.WithLabelValues(kind, DriftCorrected).Inc()
}

// DriftReported records one drift reported, and left, under the report
// policy.
func (m *ControllerMetrics) DriftReported(kind string) {
	if m == nil {
		return
	}
	m.driftCorrections.WithLabelValues(kind, DriftReported).Inc()
}
