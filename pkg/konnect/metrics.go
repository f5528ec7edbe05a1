package konnect

import (
	"net/http"
	"strconv"
	"sync"
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

	// organizations counts, per organisation ID, the limiters that report
	// under it. Only their series are written, and the count's drop to
	// zero deletes them: an organisation no client uses any more leaves no
	// series behind (see limiterregistry.go). orgMu is locked for reading while a
	// series is written, so that none comes back after its deletion.
	orgMu         sync.RWMutex
	organizations map[string]int
	holds         *holdMetrics
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
	m.organizations = map[string]int{}
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
	m.whileReported(org, func() {
		m.requests.WithLabelValues(org, op.verb, op.entity, codeLabel).Inc()
		m.duration.WithLabelValues(org, op.verb, op.entity).Observe(elapsed.Seconds())
		if code == 429 {
			m.rateLimited.WithLabelValues(org, op.verb, op.entity).Inc()
		}
	})
}

// observeWait records how long a request of organization waited in the rate
// limiter.
func (m *Metrics) observeWait(organization string, waited time.Duration) {
	if m == nil {
		return
	}
	org := organizationLabel(organization)
	m.whileReported(org, func() { m.limiterWait.WithLabelValues(org).Observe(waited.Seconds()) })
}

// observeRemaining records the RateLimit-Remaining header of a response to
// organization, when there is one. Before the organisation is known the
// header says nothing worth keeping: whose budget it is is unknown.
func (m *Metrics) observeRemaining(organization string, header http.Header) {
	if m == nil || organization == "" {
		return
	}
	if remaining, ok := headerInt(header, "RateLimit-Remaining"); ok {
		m.whileReported(organization, func() { m.remaining.WithLabelValues(organization).Set(float64(remaining)) })
	}
}

// whileReported runs record, which writes series of organization, unless
// no limiter reports under it (any more): OrganizationUnknown always is.
func (m *Metrics) whileReported(organization string, record func()) {
	m.orgMu.RLock()
	defer m.orgMu.RUnlock()
	if organization != OrganizationUnknown && m.organizations[organization] == 0 {
		return
	}
	record()
}

// retainOrganization lets one more limiter report under organization.
func (m *Metrics) retainOrganization(organization string) {
	if m == nil {
		return
	}
	m.orgMu.Lock()
	defer m.orgMu.Unlock()
	m.organizations[organization]++
}

// releaseOrganization lets go of one limiter of organization; after the
// last, every series labelled with it is deleted.
func (m *Metrics) releaseOrganization(organization string) {
	if m == nil {
		return
	}
	m.orgMu.Lock()
	defer m.orgMu.Unlock()
	if m.organizations[organization]--; m.organizations[organization] > 0 {
		return
	}
	delete(m.organizations, organization)
	labels := prometheus.Labels{"organization": organization}
	for _, vec := range []interface {
		DeletePartialMatch(prometheus.Labels) int
	}{m.requests, m.duration, m.rateLimited, m.limiterWait, m.remaining,
		m.limiter.responses, m.limiter.rate, m.limiter.deferrals, m.limiter.deferral,
		m.holds.holds, m.holds.probes, m.holds.requests} {
		vec.DeletePartialMatch(labels)
	}
}
