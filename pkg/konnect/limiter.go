package konnect

import (
	"context"
	"math"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// budgetShare is the share of the budget Konnect states (RateLimit-Limit
// over its window) that the limiter spends: the bucket's burst and requests
// in flight across a window's edge fit in the rest, so that a steady stream
// of requests is never refused. Any window of Konnect's then counts at most
// share×budget plus a burst, and the burst is never more than a second's
// worth (burstFor): at Konnect's 3,000 a minute with the default burst of
// 20, at most 2,960 requests in any minute, 40 short of the budget.
const budgetShare = 0.98

// maxStatedRequestsPerSecond bounds the budget a server may state: 1,000
// requests a second is twenty times Konnect's 3,000 a minute. A server that
// claims more (any server an auth configuration names may be hostile) gets
// this much, so that its claim cannot raise the organisation's rate, and
// with it the requests in flight and the workers they tie up, without end.
const maxStatedRequestsPerSecond = 1000

// limiter is the client-side rate limiter of one organisation, shared by
// every client of it: a token bucket whose rate is the lowest of
//
//   - the base: the configured ceiling, or what Konnect states as its budget
//     (RateLimit-Limit), or DefaultRequestsPerSecond before either is known;
//   - the spread: what is left of Konnect's window (RateLimit-Remaining)
//     over the time left in it (RateLimit-Reset), when that is lower;
//   - the congestion cap that 429s without a delay set (see congestion).
//
// A 429 that names a delay (Retry-After or RateLimit-Reset) closes the
// limiter for everyone for exactly that long. Foreground callers (a user's
// change, see WithForeground) are served in the order they ask, ahead of
// background callers (see reserve). Calls that may not wait (WithDeferral)
// are admitted within MaxInlineWait or given a turn (see admission.go), and
// the requests in flight are capped at what the rate and Konnect's latency
// need (see inflight.go).
type limiter struct {
	clock clock.Clock
	// bucket is safe for concurrent use on its own.
	bucket *rate.Limiter
	// metrics and organization label what the limiter reports; report says
	// whether it owns the organisation's rate gauge (a limiter of a token
	// whose organisation is not known yet does not).
	metrics      *Metrics
	organization string
	report       bool

	mu sync.Mutex
	// ceiling is the configured rate (0: none), burst the configured burst.
	ceiling float64
	burst   int
	// budget is the rate Konnect's stated budget allows (0: not stated).
	budget float64
	// spread is the rate the rest of the current window allows when it is
	// below the base (0: no such limit).
	spread     float64
	congestion congestion
	// pauseUntil ends the limiter's pause: after a 429 that named a delay,
	// or once the window's budget is spent, nobody sends before it.
	pauseUntil time.Time
	// applied is the rate the bucket was last set to.
	applied float64
	// inFlight counts the requests admitted and not answered yet; latency
	// is the moving estimate of how long one takes from its admission to
	// its answer (0: none answered yet). See inflight.go.
	inFlight int
	latency  time.Duration
	// line hands out the turns of deferred calls (see turns.go).
	line turnLine
}

func newLimiter(clk clock.Clock, requestsPerSecond float64, burst int) *limiter {
	l := &limiter{clock: clk, ceiling: max(requestsPerSecond, 0), burst: max(burst, 1)}
	r := l.baseLocked()
	l.bucket = rate.NewLimiter(rate.Limit(r), burstFor(r, l.burst))
	l.applied = r
	return l
}

// burstFor is the bucket size at rate r: the configured burst, but never
// more than a second's worth, so that a throttled organisation is not
// flooded again after a pause, and a burst fits in Konnect's window next to
// budgetShare of it.
func burstFor(r float64, configured int) int {
	return max(1, min(configured, int(math.Ceil(r))))
}

// wait blocks until the caller may send one request and returns how long it
// waited. When ctx would expire before the wait is over it returns a
// *RateLimitedError at once, carrying the remaining delay, so that the caller
// can requeue instead of failing with a timeout.
func (l *limiter) wait(ctx context.Context) (time.Duration, error) {
	start := l.clock.Now()
	if err := l.waitForPause(ctx); err != nil {
		return l.clock.Since(start), err
	}
	reservation, now, err := l.reserve(ctx)
	if err != nil {
		return l.clock.Since(start), err
	}
	if delay := reservation.DelayFrom(now); delay > 0 {
		if exceedsDeadline(ctx, delay) {
			reservation.CancelAt(now)
			return l.clock.Since(start), limiterDelayError(delay)
		}
		if err := l.sleep(ctx, delay); err != nil {
			reservation.CancelAt(l.clock.Now())
			return l.clock.Since(start), err
		}
	}
	// A 429 answered to someone else while this caller slept pauses it too.
	if err := l.waitForPause(ctx); err != nil {
		return l.clock.Since(start), err
	}
	return l.clock.Since(start), nil
}

// backgroundLead is how far ahead of now a background call may reserve its
// turn: a foreground call, which reserves at once, then waits behind at
// most this much background work.
const backgroundLead = 50 * time.Millisecond

// reserve takes the caller's turn in the bucket. A foreground call takes
// the next free one; a background call waits until the next free turn is
// at most backgroundLead away (checked and taken under the lock, so that
// background callers do not pile up ahead together). The bucket keeps up
// to a second's worth of tokens, so that a background call waking a little
// late loses none of the budget.
// It returns the reservation and when it was made.
func (l *limiter) reserve(ctx context.Context) (*rate.Reservation, time.Time, error) {
	now := l.clock.Now()
	if IsForeground(ctx) {
		return l.bucket.ReserveN(now, 1), now, nil
	}
	for {
		l.mu.Lock()
		r := float64(l.bucket.Limit())
		ahead := time.Duration((1 - l.bucket.TokensAt(now)) / r * float64(time.Second))
		if ahead <= backgroundLead {
			reservation := l.bucket.ReserveN(now, 1)
			l.mu.Unlock()
			return reservation, now, nil
		}
		l.mu.Unlock()
		wait := ahead - backgroundLead
		if exceedsDeadline(ctx, ahead) {
			return nil, now, limiterDelayError(ahead)
		}
		if err := l.sleep(ctx, wait); err != nil {
			return nil, now, err
		}
		now = l.clock.Now()
	}
}

// waitForPause blocks while the limiter's pause (a 429's delay, or a
// spent window) is running.
func (l *limiter) waitForPause(ctx context.Context) error {
	for {
		l.mu.Lock()
		until := l.pauseUntil
		l.mu.Unlock()
		now := l.clock.Now()
		remaining := until.Sub(now)
		if remaining <= 0 {
			return nil
		}
		if exceedsDeadline(ctx, remaining) {
			return limiterDelayError(remaining)
		}
		// Loop: another 429 may have pushed the pause further meanwhile.
		if err := l.sleep(ctx, remaining); err != nil {
			return err
		}
	}
}

func (l *limiter) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := l.clock.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C():
		return nil
	}
}

// pauseLocked pauses the limiter for everyone until d from now (or later,
// when an earlier pause already lasts longer).
func (l *limiter) pauseLocked(now time.Time, d time.Duration) {
	if until := now.Add(d); until.After(l.pauseUntil) {
		l.pauseUntil = until
	}
}

// observe adapts the limiter to one answer from Konnect: its status and its
// rate-limit headers.
func (l *limiter) observe(statusCode int, header http.Header) {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if requests, window, ok := windowBudget(header); ok {
		l.budget = min(budgetShare*float64(requests)/window.Seconds(), maxStatedRequestsPerSecond)
	}
	kind := answerAccepted
	switch {
	case statusCode == http.StatusTooManyRequests:
		delay, named := retryAfter(header, time.Now())
		l.metrics.observeRateLimited(l.organization, named)
		if named {
			l.pauseLocked(now, delay)
			kind = answerOther
		} else {
			kind = answerRefused
		}
	case statusCode >= 500:
		kind = answerOther
		l.observeRemainingLocked(now, header)
	default:
		l.observeRemainingLocked(now, header)
	}
	base := l.baseLocked()
	current := base
	if l.spread > 0 {
		current = min(current, l.spread)
	}
	l.congestion.record(now, kind, current, base)
	l.applyLocked(now)
}

// observeRemainingLocked follows RateLimit-Remaining and RateLimit-Reset:
// when what is left of the window, spread over the time left in it, is
// below the base rate, the organisation slows down before it hits the wall.
func (l *limiter) observeRemainingLocked(now time.Time, header http.Header) {
	remaining, ok := headerInt(header, "RateLimit-Remaining")
	if !ok {
		return
	}
	reset, resetKnown := headerSeconds(header, "RateLimit-Reset")
	switch {
	case !resetKnown || reset <= 0:
		l.spread = 0
	case remaining <= 0:
		// The next request would be refused; wait for the window instead.
		l.pauseLocked(now, reset)
		l.spread = 0
	default:
		sustainable := float64(remaining) / reset.Seconds()
		if sustainable < l.baseLocked() {
			l.spread = sustainable
		} else {
			l.spread = 0
		}
	}
}

// baseLocked is the rate the organisation has when nothing slows it down.
func (l *limiter) baseLocked() float64 {
	switch {
	case l.budget > 0 && l.ceiling > 0:
		return min(l.budget, l.ceiling)
	case l.budget > 0:
		return l.budget
	case l.ceiling > 0:
		return l.ceiling
	default:
		return DefaultRequestsPerSecond
	}
}

// rateLocked is the rate the bucket should have now.
func (l *limiter) rateLocked() float64 {
	r := l.baseLocked()
	if l.spread > 0 {
		r = min(r, l.spread)
	}
	if l.congestion.rate > 0 {
		r = min(r, l.congestion.rate)
	}
	return r
}

// applyLocked sets the bucket to rateLocked when that changed.
func (l *limiter) applyLocked(now time.Time) {
	r := l.rateLocked()
	if r == l.applied {
		return
	}
	l.applied = r
	l.bucket.SetLimitAt(now, rate.Limit(r))
	l.bucket.SetBurstAt(now, burstFor(r, l.burst))
	if l.report {
		l.metrics.setLimiterRate(l.organization, r)
	}
}

// currentRate is the rate the bucket has now, in requests per second.
func (l *limiter) currentRate() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.applied
}

// exceedsDeadline reports whether ctx ends within d. Deadlines are wall-clock
// times, so this compares with the real clock even when the limiter runs on a
// fake one.
func exceedsDeadline(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) < d
}

// limiterDelayError tells a caller whose context ends too soon how long the
// limiter would have made it wait; the operation is filled in by exchange.
func limiterDelayError(d time.Duration) error {
	return &RateLimitedError{
		StatusCode: http.StatusTooManyRequests,
		RetryAfter: d,
		DelayKnown: true,
		Message:    "client-side rate limit: the wait would outlast the request's deadline",
	}
}
