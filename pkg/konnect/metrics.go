package konnect

import (
	"net/http"
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
	limiterWait *prometheus.HistogramVec
	remaining   *prometheus.GaugeVec
	limiter     *limiterMetrics
	holds       *holdMetrics
}

// Metric names, exported so that dashboards and tests need not repeat them.
const (
	MetricRequests    = "konnect_operator_konnect_requests_total"
	MetricDuration    = "konnect_operator_konnect_request_duration_seconds"
	MetricRateLimited = "konnect_operator_konnect_rate_limited_total"
	MetricLimiterWait = "konnect_operator_konnect_rate_limiter_wait_seconds"
	MetricRemaining   = "konnect_operator_konnect_rate_limit_remaining"
)

// codeTransportError is the code label of requests that got no HTTP answer.
const codeTransportError = "error"

// OrganizationUnknown is the organization label of requests sent before the
// client learned its organisation from /v3/organizations/me (that request
// among them).
const OrganizationUnknown = "unknown"

// organizationLabel is the organization label of an organisation ID ("" when
// not known yet). It is the ID, never the token nor anything derived from it.
func organizationLabel(id string) string {
	if id == "" {
		return OrganizationUnknown
	}
	return id
}

// NewMetrics creates the client's metrics and registers them on reg (the
// operator's own registry, never the global one). A nil reg creates them
// unregistered. Like prometheus.MustRegister it panics when the names are
// already registered on reg, which only a programming error can cause.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRequests,
			Help: "Requests sent to Konnect, by organisation, operation, entity and HTTP status code (\"error\" when no answer arrived).",
		}, []string{"organization", "operation", "entity", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricDuration,
			Help:    "Time from sending a request to Konnect until its response headers arrived, by organisation, operation and entity.",
			Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"organization", "operation", "entity"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRateLimited,
			Help: "Responses from Konnect with HTTP 429 (rate limited), by organisation, operation and entity.",
		}, []string{"organization", "operation", "entity"}),
		limiterWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricLimiterWait,
			Help:    "Time requests waited in the client-side rate limiter before being sent to Konnect, by organisation.",
			Buckets: []float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"organization"}),
		remaining: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricRemaining,
			Help: "Requests Konnect said remain in the organisation's current rate-limit window (its last RateLimit-Remaining header).",
		}, []string{"organization"}),
	}
	m.limiter = newLimiterMetrics()
	m.holds = newHoldMetrics()
	if reg != nil {
		reg.MustRegister(m.requests, m.duration, m.rateLimited, m.limiterWait, m.remaining)
		reg.MustRegister(m.limiter.collectors()...)
		reg.MustRegister(m.holds.collectors()...)
	}
	return m
}

// observeRequest records one request of organization (its ID, "" when not
// known yet); code 0 means no HTTP answer arrived.
func (m *Metrics) observeRequest(op operation, organization string, code int, elapsed time.Duration) {
	if m == nil {
		return
	}
	org := organizationLabel(organization)
	codeLabel := codeTransportError
	if code != 0 {
		codeLabel = strconv.Itoa(code)
	}
	m.requests.WithLabelValues(org, op.verb, op.entity, codeLabel).Inc()
	m.duration.WithLabelValues(org, op.verb, op.entity).Observe(elapsed.Seconds())
	if code == 429 {
		m.rateLimited.WithLabelValues(org, op.verb, op.entity).Inc()
	}
}

// observeWait records how long a request of organization waited in the rate
// limiter.
func (m *Metrics) observeWait(organization string, waited time.Duration) {
	if m == nil {
		return
	}
	m.limiterWait.WithLabelValues(organizationLabel(organization)).Observe(waited.Seconds())
}

// observeRemaining records the RateLimit-Remaining header of a response to
// organization, when there is one. Before the organisation is known the
// header says nothing worth keeping: whose budget it is is unknown.
func (m *Metrics) observeRemaining(organization string, header http.Header) {
	if m == nil || organization == "" {
		return
	}
	if remaining, ok := headerInt(header, "RateLimit-Remaining"); ok {
		m.remaining.WithLabelValues(organization).Set(float64(remaining))
	}
}
