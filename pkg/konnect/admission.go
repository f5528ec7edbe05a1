package konnect

import (
	"context"
	"net/http"
	"time"

	"golang.org/x/time/rate"
)

// Why a deferrable call was given a turn instead of being sent: the
// reason label of MetricLimiterDeferrals.
const (
	// deferredByPause: the limiter's pause, after a 429's delay or once
	// the window is spent. The label value is "hold", as dashboards read it.
	deferredByPause    = "hold"
	deferredByPace     = "pace"      // its token is further away than MaxInlineWait
	deferredByInFlight = "in_flight" // as many requests in flight as the latency needs
)

// acquire takes the caller's turn to send one request and counts it in
// flight until the permit is done. A call of a deferrable context (see
// WithDeferral) waits at most MaxInlineWait, plus backgroundLead for the
// token it reserved, or is refused at once with its turn; any other call
// waits as long as the limiter says (wait). It returns how long the caller
// waited.
func (l *limiter) acquire(ctx context.Context) (permit, time.Duration, error) {
	start := l.clock.Now()
	work := deferralOf(ctx)
	if work == nil {
		waited, err := l.wait(ctx)
		if err != nil {
			return permit{}, waited, err
		}
		l.mu.Lock()
		l.inFlight++
		l.mu.Unlock()
		return permit{limiter: l, admittedAt: l.clock.Now()}, waited, nil
	}
	for {
		// What is left of the inline wait, by the clock: on a busy machine
		// a wait can last longer than asked.
		a, err := l.admit(ctx, max(MaxInlineWait-l.clock.Since(start), 0))
		if err != nil {
			return permit{}, l.clock.Since(start), err
		}
		if a.reservation == nil {
			// A turn within the inline wait: wait for it, then go before
			// the calls that have not waited.
			if err := l.sleep(ctx, a.wait); err != nil {
				return permit{}, l.clock.Since(start), err
			}
			work.turnCome.Store(true)
			continue
		}
		p := permit{limiter: l, admittedAt: a.at}
		if err := l.sleep(ctx, a.wait); err != nil {
			a.reservation.CancelAt(l.clock.Now())
			p.done(false)
			return permit{}, l.clock.Since(start), err
		}
		// A 429 answered to someone else while this call waited for its
		// token pauses it too.
		if err := l.deferWhilePaused(ctx); err != nil {
			a.reservation.CancelAt(l.clock.Now())
			p.done(false)
			return permit{}, l.clock.Since(start), err
		}
		work.started.Store(true)
		return p, l.clock.Since(start), nil
	}
}

// admission is the limiter's answer to a deferrable call that is not
// deferred: its token (reservation, taken at at) and how long until it is
// due, or, without a reservation, how long until its turn in line, when it
// asks again.
type admission struct {
	reservation *rate.Reservation
	at          time.Time
	wait        time.Duration
}

// admit decides one deferrable call (see laneOf): admitted, when its token
// is due within backgroundLead (so that a user's change never waits behind
// more than that of other work), or, for a user's change, within budget;
// asked to wait inline and ask again, when that is within budget (work that
// has waited its turn or begun, until its token is backgroundLead away; new
// work, until its turn in line); or deferred, with a *RateLimitedError
// naming its turn: during the limiter's pause, when the in-flight cap is reached, or
// when its wait would be longer than budget.
func (l *limiter) admit(ctx context.Context, budget time.Duration) (admission, error) {
	now := l.clock.Now()
	lane := laneOf(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line.trim(now)
	if l.pauseUntil.After(now) {
		return admission{}, l.deferLocked(now, l.pauseUntil, lane, deferredByPause)
	}
	if lane < laneContinuation && l.inFlight >= l.inFlightLimitLocked() {
		// A request in flight is answered within the latency, half of it
		// on average: then one more may go.
		return admission{}, l.deferLocked(now, now.Add(max(l.latency/2, l.lineSpacingLocked())), lane, deferredByInFlight)
	}
	ahead := l.aheadLocked(now)
	switch {
	case ahead <= backgroundLead, lane == laneForeground && ahead <= budget:
		reservation := l.bucket.ReserveN(now, 1)
		l.inFlight++
		return admission{reservation: reservation, at: now, wait: reservation.DelayFrom(now)}, nil
	case lane == laneForeground:
		return admission{}, l.deferLocked(now, now.Add(ahead), lane, deferredByPace)
	case lane != laneBackground && ahead-backgroundLead <= budget:
		return admission{wait: ahead - backgroundLead}, nil
	case lane != laneBackground:
		return admission{}, l.deferLocked(now, now.Add(ahead-backgroundLead), lane, deferredByPace)
	}
	// New work whose token is not due within backgroundLead: its turn in
	// line is when it will be.
	turn := l.line.take(now.Add(ahead-backgroundLead), l.lineSpacingLocked())
	if wait := turn.Sub(now); wait <= budget {
		return admission{wait: wait}, nil
	}
	return admission{}, l.deferredLocked(now, turn, deferredByPace)
}

// aheadLocked is how long until the bucket's next free token (zero or less:
// one is there).
func (l *limiter) aheadLocked(now time.Time) time.Duration {
	return time.Duration((1 - l.bucket.TokensAt(now)) / float64(l.bucket.Limit()) * float64(time.Second))
}

// lineSpacingLocked is the time between two turns in line: a token's
// spacing at the organisation's base rate, not at the rate it is slowed to
// now. A slowdown (a window nearly spent by other clients, a cut after
// 429s) lasts seconds, and a line spaced at its rate would keep a backlog
// back for minutes after it: turns that come too early meet the slowdown
// and take a later turn, a reconcile each, while turns spaced too far
// would leave the budget unspent.
func (l *limiter) lineSpacingLocked() time.Duration {
	return time.Duration(float64(time.Second) / l.baseLocked())
}

// deferWhilePaused defers a call that was admitted but finds the limiter
// paused when its token is due.
func (l *limiter) deferWhilePaused(ctx context.Context) error {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.pauseUntil.After(now) {
		return nil
	}
	return l.deferLocked(now, l.pauseUntil, laneOf(ctx), deferredByPause)
}

// deferLocked gives a call its turn, not before from: a user's change's is
// from itself, outside the line; every other call's the next in line, so
// that calls deferred together come back a token apart.
func (l *limiter) deferLocked(now, from time.Time, lane lane, reason string) error {
	if lane == laneForeground {
		l.line.outOfLine(from)
		return l.deferredLocked(now, from, reason)
	}
	return l.deferredLocked(now, l.line.take(from, l.lineSpacingLocked()), reason)
}

// deferredLocked records a call deferred until turn and returns the error
// that tells the caller.
func (l *limiter) deferredLocked(now, turn time.Time, reason string) error {
	delay := turn.Sub(now)
	l.metrics.observeDeferral(l.organization, reason, delay)
	return &RateLimitedError{
		StatusCode: http.StatusTooManyRequests,
		RetryAfter: delay,
		DelayKnown: true,
		Deferred:   true,
		Message:    "client-side rate limit: the request waits for the organisation's turn",
	}
}
