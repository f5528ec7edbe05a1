package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// WorkqueueMetrics reports the state of every named work queue, labelled by
// the queue's name (the kind) twice: as name, as Kubernetes components label
// their queues, and as controller, as controller-runtime labels them too. It
// implements workqueue.MetricsProvider. The metrics carry the names every
// Kubernetes component gives its work queues (workqueue_depth,
// workqueue_adds_total, …), without the operator's prefix, so that the
// dashboards and alerts people have for those work here too.
type WorkqueueMetrics struct {
	depth                   *prometheus.GaugeVec
	adds                    *prometheus.CounterVec
	latency                 *prometheus.HistogramVec
	workDuration            *prometheus.HistogramVec
	unfinishedWork          *prometheus.GaugeVec
	longestRunningProcessor *prometheus.GaugeVec
	retries                 *prometheus.CounterVec
}

var _ workqueue.MetricsProvider = (*WorkqueueMetrics)(nil)

// NewWorkqueueMetrics registers the work-queue metrics on reg.
func NewWorkqueueMetrics(reg prometheus.Registerer) *WorkqueueMetrics {
	const subsystem = "workqueue"                          // no Namespace: the Kubernetes names
	buckets := prometheus.ExponentialBuckets(10e-6, 4, 12) // 10µs .. ~42s
	labels := []string{"name", controllerLabel}
	m := &WorkqueueMetrics{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: subsystem, Name: "depth",
			Help: "Number of items waiting in the work queue.",
		}, labels),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: subsystem, Name: "adds_total",
			Help: "Number of items added to the work queue.",
		}, labels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: subsystem, Name: "queue_duration_seconds",
			Help:    "Time an item waits in the work queue before it is processed.",
			Buckets: buckets,
		}, labels),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: subsystem, Name: "work_duration_seconds",
			Help:    "Time spent processing an item taken from the work queue.",
			Buckets: buckets,
		}, labels),
		unfinishedWork: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: subsystem, Name: "unfinished_work_seconds",
			Help: "Seconds of work in progress that has not finished yet; a large value suggests stuck workers.",
		}, labels),
		longestRunningProcessor: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: subsystem, Name: "longest_running_processor_seconds",
			Help: "Seconds the longest-running item of the work queue has been processed for.",
		}, labels),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: subsystem, Name: "retries_total",
			Help: "Number of rate-limited retries of the work queue.",
		}, labels),
	}
	reg.MustRegister(m.depth, m.adds, m.latency, m.workDuration, m.unfinishedWork, m.longestRunningProcessor, m.retries)
	return m
}

// NewDepthMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return m.depth.WithLabelValues(name, name)
}

// NewAddsMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return m.adds.WithLabelValues(name, name)
}

// NewLatencyMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return m.latency.WithLabelValues(name, name)
}

// NewWorkDurationMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return m.workDuration.WithLabelValues(name, name)
}

// NewUnfinishedWorkSecondsMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return m.unfinishedWork.WithLabelValues(name, name)
}

// NewLongestRunningProcessorSecondsMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return m.longestRunningProcessor.WithLabelValues(name, name)
}

// NewRetriesMetric implements workqueue.MetricsProvider.
func (m *WorkqueueMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return m.retries.WithLabelValues(name, name)
}
