package konnect

import (
	"strconv"

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
	// organisation's limiter currently allows (outside of a 429's hold).
	MetricLimiterRate = "konnect_operator_konnect_rate_limiter_rate"
)

// limiterMetrics are the rate limiter's own metrics, labelled by the
// organisation ID (unknownOrganization before the token's organisation is
// known).
type limiterMetrics struct {
	responses *prometheus.CounterVec
	rate      *prometheus.GaugeVec
}

func newLimiterMetrics() *limiterMetrics {
	return &limiterMetrics{
		responses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRateLimitResponses,
			Help: "Answers from Konnect with HTTP 429, by organisation and by whether they named a delay (headers=\"true\": Retry-After or RateLimit-Reset).",
		}, []string{"organization", "headers"}),
		rate: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricLimiterRate,
			Help: "Requests per second the client-side rate limiter currently allows to an organisation (outside of a 429's hold).",
		}, []string{"organization"}),
	}
}

func (lm *limiterMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{lm.responses, lm.rate}
}

// observeRateLimited counts one 429.
func (m *Metrics) observeRateLimited(organization string, namedDelay bool) {
	if m == nil {
		return
	}
	m.limiter.responses.WithLabelValues(organization, strconv.FormatBool(namedDelay)).Inc()
}

// setLimiterRate records an organisation's current rate.
func (m *Metrics) setLimiterRate(organization string, requestsPerSecond float64) {
	if m == nil {
		return
	}
	m.limiter.rate.WithLabelValues(organization).Set(requestsPerSecond)
}
