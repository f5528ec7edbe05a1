package konnect

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Metric names of holds (see hold.go), exported so that dashboards, alerts
// and tests need not repeat them.
const (
	// MetricHeld is 1 while an organisation's requests are held, by
	// organisation and reason (unreachable: Konnect does not answer;
	// unauthorized: Konnect rejects a token of the organisation). Tokens
	// whose organisation is not known yet are counted under "unknown".
	MetricHeld = "konnect_operator_konnect_organization_held"
	// MetricHolds counts the holds begun, by organisation and reason.
	MetricHolds = "konnect_operator_konnect_holds_total"
	// MetricHoldProbes counts the probes sent while held, by organisation,
	// reason and result (success: the probe ended the hold).
	MetricHoldProbes = "konnect_operator_konnect_hold_probes_total"
	// MetricHeldRequests counts the requests a hold refused without
	// sending them, by organisation and reason.
	MetricHeldRequests = "konnect_operator_konnect_held_requests_total"
)

// holdMetrics are the metrics of holds.
type holdMetrics struct {
	holds    *prometheus.CounterVec
	probes   *prometheus.CounterVec
	requests *prometheus.CounterVec
	states   *holdStates
}

func newHoldMetrics() *holdMetrics {
	return &holdMetrics{
		holds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricHolds,
			Help: "Holds begun: an organisation whose requests Konnect stopped answering (reason unreachable), or a token Konnect rejected (reason unauthorized), by organisation and reason.",
		}, []string{"organization", "reason"}),
		probes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricHoldProbes,
			Help: "Probes sent to Konnect while an organisation or token was held, by organisation, reason and result (success: Konnect answered, and the hold ended).",
		}, []string{"organization", "reason", "result"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricHeldRequests,
			Help: "Requests to Konnect not sent because their organisation or token was held, by organisation and reason; their objects waited for the hold to end.",
		}, []string{"organization", "reason"}),
		states: &holdStates{},
	}
}

func (hm *holdMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{hm.holds, hm.probes, hm.requests, hm.states}
}

// observeHold counts a hold begun.
func (m *Metrics) observeHold(organization, reason string) {
	if m == nil {
		return
	}
	org := organizationLabel(organization)
	m.whileReported(org, func() { m.holds.holds.WithLabelValues(org, reason).Inc() })
}

// observeProbe counts one probe sent while held.
func (m *Metrics) observeProbe(organization, reason string, succeeded bool) {
	if m == nil {
		return
	}
	result := "failure"
	if succeeded {
		result = "success"
	}
	org := organizationLabel(organization)
	m.whileReported(org, func() { m.holds.probes.WithLabelValues(org, reason, result).Inc() })
}

// observeHeldRequest counts a request refused by a hold.
func (m *Metrics) observeHeldRequest(organization, reason string) {
	if m == nil {
		return
	}
	org := organizationLabel(organization)
	m.whileReported(org, func() { m.holds.requests.WithLabelValues(org, reason).Inc() })
}

// trackHolds reports the holds of hs when scraped.
func (m *Metrics) trackHolds(hs *holds) {
	if m == nil {
		return
	}
	m.holds.states.add(hs)
}

// holdStates reports, when scraped, which organisations are held: a series
// for each organisation and reason the client has talked to, 1 while held.
type holdStates struct {
	mu  sync.Mutex
	all []*holds
}

var heldDesc = prometheus.NewDesc(MetricHeld,
	"1 while the requests of an organisation are held, by organisation and reason (unreachable: Konnect does not answer them; unauthorized: Konnect rejects a token of the organisation): they are not sent, and a probe asks Konnect every few seconds (up to 30s) whether it answers again.",
	[]string{"organization", "reason"}, nil)

func (s *holdStates) add(hs *holds) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, hs)
}

// Describe implements prometheus.Collector.
func (s *holdStates) Describe(ch chan<- *prometheus.Desc) { ch <- heldDesc }

// Collect implements prometheus.Collector.
func (s *holdStates) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	registries := append([]*holds(nil), s.all...)
	s.mu.Unlock()
	type series struct{ organization, reason string }
	held := map[series]bool{}
	for _, hs := range registries {
		for _, h := range hs.all() {
			key := series{organizationLabel(h.organizationID()), h.reason}
			held[key] = held[key] || h.probing()
		}
	}
	for key, isHeld := range held {
		value := 0.0
		if isHeld {
			value = 1
		}
		ch <- prometheus.MustNewConstMetric(heldDesc, prometheus.GaugeValue, value, key.organization, key.reason)
	}
}
