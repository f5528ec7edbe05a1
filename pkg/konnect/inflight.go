package konnect

import (
	"math"
	"time"
)

// Concurrency follows the budget. The requests an organisation has in
// flight are what its rate times Konnect's latency needs (Little's law: 50
// requests a second answered in 250 ms are about 13 in flight), whatever
// the mix of kinds that sends them: the limiter paces the calls, and the
// workers are many enough that they are never what limits (see
// controller.Options.Workers). The limiter keeps a moving estimate of the
// latency, from a request's admission to its answer (so that its short wait
// for a token counts, as the request keeps its worker busy meanwhile), and caps
// the background requests in flight at inFlightHeadroom times what rate ×
// latency needs, plus minInFlight: a cap that a steady stream never meets,
// but that keeps a Konnect that suddenly answers slowly from tying up ever
// more workers of the shared pools before the estimate has followed. A call
// over the cap is deferred like one over the pace (see turns.go). However
// slow Konnect gets, an organisation never has more than a second's worth
// of its rate in flight (inFlightCeilingLatency), nor more than maxInFlight
// whatever its rate.
const (
	// latencySmoothing is the weight of each answer in the latency
	// estimate: at Konnect's rates it follows a change within a second.
	latencySmoothing = 0.1
	// inFlightHeadroom is how many times the requests rate × latency
	// needs an organisation may have in flight.
	inFlightHeadroom = 2
	// minInFlight is added to the cap, so that a fast Konnect (or a slow
	// rate) still allows a few requests at once.
	minInFlight = 4
	// inFlightCeilingLatency is the latency up to which the cap still
	// allows the whole rate: beyond a second per request Konnect is in
	// trouble, and more requests in flight would only tie up more workers.
	inFlightCeilingLatency = time.Second
	// maxInFlight bounds the cap whatever the rate: 1,000 requests a
	// second (maxStatedRequestsPerSecond) answered in 100 ms need about
	// 200 in flight with the headroom.
	maxInFlight = 256
)

// inFlightLimitLocked is how many background requests the organisation may
// have in flight now.
func (l *limiter) inFlightLimitLocked() int {
	ceiling := min(max(minInFlight, int(math.Ceil(l.applied*inFlightCeilingLatency.Seconds()))), maxInFlight)
	if l.latency <= 0 {
		return ceiling // nothing answered yet: the ceiling alone
	}
	need := int(math.Ceil(inFlightHeadroom*l.applied*l.latency.Seconds())) + minInFlight
	return min(need, ceiling)
}

// permit is one request counted in flight, from its admission until done.
type permit struct {
	limiter    *limiter
	admittedAt time.Time
}

// done counts the request out of flight. answered says whether it was sent
// (an answer arrived, or the transport gave up): its time then feeds the
// latency estimate. A request given up before it was sent says nothing of
// Konnect.
func (p permit) done(answered bool) {
	l := p.limiter
	if l == nil {
		return
	}
	took := l.clock.Since(p.admittedAt)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
	if !answered {
		return
	}
	if l.latency <= 0 {
		l.latency = max(took, time.Nanosecond)
		return
	}
	l.latency += time.Duration(latencySmoothing * float64(took-l.latency))
	l.latency = max(l.latency, time.Nanosecond)
}

// organizationState is what the limiter reports of an organisation when
// the metrics are scraped.
type organizationState struct {
	inFlight, inFlightLimit, waiting int
	latency                          time.Duration
}

func (l *limiter) state() organizationState {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	return organizationState{
		inFlight:      l.inFlight,
		inFlightLimit: l.inFlightLimitLocked(),
		waiting:       l.line.waiting(now),
		latency:       l.latency,
	}
}
