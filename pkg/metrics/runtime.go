package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Names of the reconcile metrics that controller-runtime serves for every
// controller built on it (Kong Operator among them), which the operator
// serves too, labelled controller=<kind> as Kong Operator names its
// controllers: dashboards and alerts written for those work unchanged.
const (
	MetricRuntimeReconciles     = "controller_runtime_reconcile_total"
	MetricRuntimeErrors         = "controller_runtime_reconcile_errors_total"
	MetricRuntimeTerminalErrors = "controller_runtime_terminal_reconcile_errors_total"
	MetricRuntimePanics         = "controller_runtime_reconcile_panics_total"
	MetricRuntimeTime           = "controller_runtime_reconcile_time_seconds"
	MetricRuntimeMaxConcurrent  = "controller_runtime_max_concurrent_reconciles"
	MetricRuntimeActiveWorkers  = "controller_runtime_active_workers"
)

// controller-runtime's result label values.
const (
	runtimeResultSuccess      = "success"
	runtimeResultError        = "error"
	runtimeResultRequeue      = "requeue"
	runtimeResultRequeueAfter = "requeue_after"
)

// controllerLabel names the controller in controller-runtime's metrics and
// in the work queues'.
const controllerLabel = "controller"

// runtimeResults are the values of controller_runtime_reconcile_total's
// result label, each served from a controller's start.
var runtimeResults = []string{runtimeResultSuccess, runtimeResultError, runtimeResultRequeue, runtimeResultRequeueAfter}

// runtimeMetrics are the reconcile metrics under controller-runtime's names.
type runtimeMetrics struct {
	reconciles, errors, terminalErrors, panics *prometheus.CounterVec
	time                                       *prometheus.HistogramVec
	maxConcurrent, activeWorkers               *prometheus.GaugeVec
}

func newRuntimeMetrics() *runtimeMetrics {
	perController := []string{controllerLabel}
	return &runtimeMetrics{
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRuntimeReconciles,
			Help: "Reconciles per controller (kind) and result: success, error, requeue (retried at once with backoff), requeue_after (to be run again after a delay).",
		}, []string{controllerLabel, "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRuntimeErrors,
			Help: "Reconciles that failed, per controller (kind), terminal ones and panics included.",
		}, perController),
		terminalErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRuntimeTerminalErrors,
			Help: "Reconciles that failed in a way not retried until something changes, per controller (kind).",
		}, perController),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRuntimePanics,
			Help: "Reconciles that panicked (recovered and retried with backoff), per controller (kind).",
		}, perController),
		time: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: MetricRuntimeTime,
			Help: "Time one reconcile took, per controller (kind).",
			// controller-runtime's buckets, up to a minute.
			Buckets: []float64{
				0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1,
				1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
			},
		}, perController),
		maxConcurrent: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricRuntimeMaxConcurrent,
			Help: "Workers per controller (kind): how many of its objects are reconciled at once at most (--workers-per-kind).",
		}, perController),
		activeWorkers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricRuntimeActiveWorkers,
			Help: "Workers per controller (kind) reconciling an object now.",
		}, perController),
	}
}

func (m *runtimeMetrics) register(reg prometheus.Registerer) {
	reg.MustRegister(m.reconciles, m.errors, m.terminalErrors, m.panics, m.time, m.maxConcurrent, m.activeWorkers)
}

// init serves the controller's series from its start.
func (m *runtimeMetrics) init(controller string, workers int) {
	for _, result := range runtimeResults {
		m.reconciles.WithLabelValues(controller, result)
	}
	m.errors.WithLabelValues(controller)
	m.terminalErrors.WithLabelValues(controller)
	m.panics.WithLabelValues(controller)
	m.activeWorkers.WithLabelValues(controller)
	m.time.WithLabelValues(controller)
	m.maxConcurrent.WithLabelValues(controller).Set(float64(workers))
}

// observe records a reconcile as controller-runtime would have: an error is
// an error whatever the loop does next; a 429's wait, or a hold's, like a successful
// reconcile that asked to run again later, is requeue_after; a stale cache
// retried at once is requeue.
func (m *runtimeMetrics) observe(controller string, outcome Outcome, took time.Duration) {
	result := runtimeResultSuccess
	switch {
	case outcome.Result == ResultError:
		result = runtimeResultError
		m.errors.WithLabelValues(controller).Inc()
		if outcome.Terminal {
			m.terminalErrors.WithLabelValues(controller).Inc()
		}
	case outcome.Result == ResultRequeue:
		result = runtimeResultRequeue
	case outcome.Result == ResultRateLimited, outcome.Result == ResultHeld, outcome.Scheduled:
		result = runtimeResultRequeueAfter
	}
	m.reconciles.WithLabelValues(controller, result).Inc()
	m.time.WithLabelValues(controller).Observe(took.Seconds())
}
