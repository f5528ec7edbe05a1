package konnect

import "time"

const (
	// congestionRound is how often the organisation's rate is adjusted to
	// the 429s without a delay seen since the last adjustment. A round of a
	// second holds enough answers at Konnect's rates for the share of
	// refusals to mean something, and lets a storm be met within a second.
	congestionRound = time.Second
	// deepestCut bounds one round's cut: the rate at least halves no faster
	// than once a round, however many answers were refusals.
	deepestCut = 0.5
	// recoveryRounds is how many rounds with successes bring the rate back
	// from zero to the base: each adds a tenth of it, so that a halving is
	// forgotten within about five seconds of work.
	recoveryRounds = 10
	// minRate is the slowest the organisation is ever throttled to: a
	// request every two seconds still finds out when Konnect accepts again.
	minRate = 0.5
)

// congestion is the organisation's reaction to 429s that name no delay
// (Konnect's connection-level limiter answers that way): evidence that it
// sends too fast, not an order to stop. Once a round, additive increase,
// multiplicative decrease: the rate is cut by the share of refusals in the
// round (at most by half), and each round with successes adds a fixed step
// until the base rate is reached again.
//
// Cutting by the share of refusals is what tells a stray 429 from a limit.
// Against a limit of L requests/s, sending at r refuses the share (r-L)/r,
// so the cut lands on L and the step above it is all that is refused; a 5%
// stray loss costs 5%, which the step repays in the same round.
type congestion struct {
	// rate caps the organisation's requests/s; 0 means no cap.
	rate       float64
	roundStart time.Time
	accepted   int
	refused    int
}

// answer kinds fed to congestion.record.
const (
	answerOther    = iota // neither: a 5xx, or a 429 that named a delay
	answerAccepted        // Konnect handled the request (2xx, 3xx, 4xx other than 429)
	answerRefused         // a 429 without Retry-After or RateLimit-Reset
)

// record counts one answer and, when a round is over, adjusts the cap.
// current is the rate the organisation has without this cap, base the rate
// it recovers towards. It reports whether the cap changed.
func (c *congestion) record(now time.Time, kind int, current, base float64) bool {
	if c.roundStart.IsZero() {
		c.roundStart = now
	}
	switch kind {
	case answerAccepted:
		c.accepted++
	case answerRefused:
		c.refused++
	}
	if now.Sub(c.roundStart) < congestionRound {
		return false
	}
	before := c.rate
	if c.refused > 0 {
		rate := current
		if c.rate > 0 {
			rate = min(rate, c.rate)
		}
		refusedShare := float64(c.refused) / float64(c.refused+c.accepted)
		c.rate = max(rate*max(1-refusedShare, 1-deepestCut), minRate)
	}
	if c.accepted > 0 && c.rate > 0 {
		c.rate += base / recoveryRounds
		if c.rate >= base {
			c.rate = 0
		}
	}
	c.roundStart, c.accepted, c.refused = now, 0, 0
	return c.rate != before
}
