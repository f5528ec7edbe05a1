package konnect

import (
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metric names of the rate limiter, exported so that dashboards and tests
// need not repeat them.
const (
	// MetricRateLimitResponses counts 429s by organisation and by whether
	// they named a delay (label headers="true": Retry-After or
	// RateLimit-Reset; "false": neither).
	MetricRateLimitResponses = "konnect_operator_konnect_rate_limit_responses_total"
	// MetricLimiterRate is the request rate, per second, that an
	// organisation's limiter currently allows (outside of its pause after a
	// 429).
	MetricLimiterRate = "konnect_operator_konnect_rate_limiter_rate"
	// MetricLimiterDeferrals counts the calls the limiter did not send but
	// gave a turn (see WithDeferral), by organisation and reason: hold (the
	// limiter's pause: a 429's delay or a spent window; the value keeps
	// its name, which dashboards read), pace (the next token further away
	// than MaxInlineWait), in_flight (as many requests in flight as the
	// latency needs).
	MetricLimiterDeferrals = "konnect_operator_konnect_rate_limiter_deferrals_total"
	// MetricLimiterDeferral is how far away the turns of deferred calls
	// were, by organisation: the time their objects waited, off the
	// workers.
	MetricLimiterDeferral = "konnect_operator_konnect_rate_limiter_deferral_seconds"
	// MetricLimiterDeferred is how many deferred calls of an organisation
	// wait for their turn now (counted when scraped).
	MetricLimiterDeferred = "konnect_operator_konnect_rate_limiter_deferred_requests"
	// MetricInFlight is how many requests to an organisation are admitted
	// and not answered yet (counted when scraped).
	MetricInFlight = "konnect_operator_konnect_requests_in_flight"
	// MetricInFlightLimit is how many background requests an organisation
	// may have in flight: what its rate times Konnect's latency needs, with
	// headroom (see inflight.go).
	MetricInFlightLimit = "konnect_operator_konnect_requests_in_flight_limit"
	// MetricLatencyEstimate is the limiter's moving estimate of a
	// request's time from its admission to its answer, by organisation.
	MetricLatencyEstimate = "konnect_operator_konnect_request_latency_estimate_seconds"
)

// limiterMetrics are the rate limiter's own metrics, labelled by the
// organisation ID (unknownOrganization before the token's organisation is
// known).
type limiterMetrics struct {
	responses *prometheus.CounterVec
	rate      *prometheus.GaugeVec
	deferrals *prometheus.CounterVec
	deferral  *prometheus.HistogramVec
	states    *limiterStates
}

func newLimiterMetrics() *limiterMetrics {
	return &limiterMetrics{
		responses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRateLimitResponses,
			Help: "Answers from Konnect with HTTP 429, by organisation and by whether they named a delay (headers=\"true\": Retry-After or RateLimit-Reset).",
		}, []string{"organization", "headers"}),
		rate: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricLimiterRate,
			Help: "Requests per second the client-side rate limiter currently allows to an organisation (outside of its pause after a 429).",
		}, []string{"organization"}),
		deferrals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricLimiterDeferrals,
			Help: "Calls to Konnect the client-side limiter did not send but gave a later turn, so that no worker waits: by organisation and reason (hold: a 429's delay or a spent window; pace: the next token further away than the longest inline wait; in_flight: as many requests in flight as the latency needs).",
		}, []string{"organization", "reason"}),
		deferral: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricLimiterDeferral,
			Help:    "How far away the turns of deferred calls to Konnect were, by organisation: the time their objects waited, off the workers.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, []string{"organization"}),
		states: &limiterStates{},
	}
}

func (lm *limiterMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{lm.responses, lm.rate, lm.deferrals, lm.deferral, lm.states}
}

// observeDeferral counts one deferred call, whose turn is delay away.
func (m *Metrics) observeDeferral(organization, reason string, delay time.Duration) {
	if m == nil {
		return
	}
	m.whileReported(organization, func() {
		m.limiter.deferrals.WithLabelValues(organization, reason).Inc()
		m.limiter.deferral.WithLabelValues(organization).Observe(delay.Seconds())
	})
}

// initDeferrals makes an organisation's deferral series exist at zero, so
// that dashboards and rates see them before the first deferral.
func (m *Metrics) initDeferrals(organization string) {
	if m == nil {
		return
	}
	m.whileReported(organization, func() {
		for _, reason := range []string{deferredByPause, deferredByPace, deferredByInFlight} {
			m.limiter.deferrals.WithLabelValues(organization, reason)
		}
		m.limiter.deferral.WithLabelValues(organization)
	})
}

// track reports l's state (in flight, waiting for a turn) from now on.
func (m *Metrics) track(l *limiter) {
	if m == nil {
		return
	}
	m.limiter.states.add(l)
}

// untrack stops reporting l's state: its last client is gone.
func (m *Metrics) untrack(l *limiter) {
	if m == nil {
		return
	}
	m.limiter.states.remove(l)
}

// limiterStates reports, when scraped, what each organisation's limiter
// holds: requests in flight, their cap, calls waiting for their turn, and
// the latency estimate. Limiters of tokens whose organisation is not known
// yet are added up under unknownOrganization.
type limiterStates struct {
	mu       sync.Mutex
	limiters []*limiter
}

var (
	inFlightDesc = prometheus.NewDesc(MetricInFlight,
		"Requests to Konnect admitted by the client-side limiter and not answered yet, by organisation.", []string{"organization"}, nil)
	inFlightLimitDesc = prometheus.NewDesc(MetricInFlightLimit,
		"How many background requests an organisation may have in flight: what its rate times Konnect's latency needs, with headroom.", []string{"organization"}, nil)
	deferredDesc = prometheus.NewDesc(MetricLimiterDeferred,
		"Calls to Konnect deferred by the client-side limiter whose turn has not come yet, by organisation.", []string{"organization"}, nil)
	latencyEstimateDesc = prometheus.NewDesc(MetricLatencyEstimate,
		"The limiter's moving estimate of a Konnect request's time from its admission to its answer, by organisation (0 before the first answer).", []string{"organization"}, nil)
)

func (s *limiterStates) add(l *limiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limiters = append(s.limiters, l)
}

func (s *limiterStates) remove(l *limiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limiters = slices.DeleteFunc(s.limiters, func(other *limiter) bool { return other == l })
}

// Describe implements prometheus.Collector.
func (s *limiterStates) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{inFlightDesc, inFlightLimitDesc, deferredDesc, latencyEstimateDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (s *limiterStates) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	limiters := append([]*limiter(nil), s.limiters...)
	s.mu.Unlock()
	byOrganization := map[string]organizationState{}
	for _, l := range limiters {
		st := l.state()
		sum := byOrganization[l.organization]
		sum.inFlight += st.inFlight
		sum.waiting += st.waiting
		sum.inFlightLimit = max(sum.inFlightLimit, st.inFlightLimit)
		sum.latency = max(sum.latency, st.latency)
		byOrganization[l.organization] = sum
	}
	for org, st := range byOrganization {
		ch <- prometheus.MustNewConstMetric(inFlightDesc, prometheus.GaugeValue, float64(st.inFlight), org)
		ch <- prometheus.MustNewConstMetric(inFlightLimitDesc, prometheus.GaugeValue, float64(st.inFlightLimit), org)
		ch <- prometheus.MustNewConstMetric(deferredDesc, prometheus.GaugeValue, float64(st.waiting), org)
		ch <- prometheus.MustNewConstMetric(latencyEstimateDesc, prometheus.GaugeValue, st.latency.Seconds(), org)
	}
}

// observeRateLimited counts one 429.
func (m *Metrics) observeRateLimited(organization string, namedDelay bool) {
	if m == nil {
		return
	}
	m.whileReported(organization, func() {
		m.limiter.responses.WithLabelValues(organization, strconv.FormatBool(namedDelay)).Inc()
	})
}

// setLimiterRate records an organisation's current rate.
func (m *Metrics) setLimiterRate(organization string, requestsPerSecond float64) {
	if m == nil {
		return
	}
	m.whileReported(organization, func() { m.limiter.rate.WithLabelValues(organization).Set(requestsPerSecond) })
}
