package konnect

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Prometheus metrics of the Konnect client. One Metrics is
// shared by every client a ClientFactory makes.
type Metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec
	limiterWait prometheus.Histogram
	limiter     *limiterMetrics
}

// Metric names, exported so that dashboards and tests need not repeat them.
const (
	MetricRequests    = "konnect_operator_konnect_requests_total"
	MetricDuration    = "konnect_operator_konnect_request_duration_seconds"
	MetricRateLimited = "konnect_operator_konnect_rate_limited_total"
	MetricLimiterWait = "konnect_operator_konnect_rate_limiter_wait_seconds"
)

// codeTransportError is the code label of requests that got no HTTP answer.
const codeTransportError = "error"

// NewMetrics creates the client's metrics and registers them on reg (the
// operator's own registry, never the global one). A nil reg creates them
// unregistered. Like prometheus.MustRegister it panics when the names are
// already registered on reg, which only a programming error can cause.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRequests,
			Help: "Requests sent to Konnect, by operation, entity and HTTP status code (\"error\" when no answer arrived).",
		}, []string{"operation", "entity", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricDuration,
			Help:    "Time from sending a request to Konnect until its response headers arrived, by operation and entity.",
			Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"operation", "entity"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRateLimited,
			Help: "Responses from Konnect with HTTP 429 (rate limited), by operation and entity.",
		}, []string{"operation", "entity"}),
		limiterWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    MetricLimiterWait,
			Help:    "Time requests waited in the client-side rate limiter before being sent to Konnect.",
			Buckets: []float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120},
		}),
	}
	m.limiter = newLimiterMetrics()
	if reg != nil {
		reg.MustRegister(m.requests, m.duration, m.rateLimited, m.limiterWait)
		reg.MustRegister(m.limiter.collectors()...)
	}
	return m
}

// observeRequest records one request; code 0 means no HTTP answer arrived.
func (m *Metrics) observeRequest(op operation, code int, elapsed time.Duration) {
	if m == nil {
		return
	}
	codeLabel := codeTransportError
	if code != 0 {
		codeLabel = strconv.Itoa(code)
	}
	m.requests.WithLabelValues(op.verb, op.entity, codeLabel).Inc()
	m.duration.WithLabelValues(op.verb, op.entity).Observe(elapsed.Seconds())
	if code == 429 {
		m.rateLimited.WithLabelValues(op.verb, op.entity).Inc()
	}
}

// observeWait records how long a request waited in the rate limiter.
func (m *Metrics) observeWait(waited time.Duration) {
	if m == nil {
		return
	}
	m.limiterWait.Observe(waited.Seconds())
}
