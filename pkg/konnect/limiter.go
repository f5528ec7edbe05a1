package konnect

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// maxHeaderDelay caps delays read from response headers, so that a broken
// header cannot stop every controller for hours. Konnect's windows are a
// minute long.
const maxHeaderDelay = 10 * time.Minute

// limiter is the client-side rate limiter of one organisation: a token
// bucket shared by every client of that organisation, slowed down when
// Konnect reports that few requests remain in its window, and closed for
// everyone until a 429's delay has passed.
type limiter struct {
	clock    clock.Clock
	baseRate rate.Limit

	// bucket is safe for concurrent use on its own; mu guards holdUntil.
	bucket    *rate.Limiter
	mu        sync.Mutex
	holdUntil time.Time
}

func newLimiter(clk clock.Clock, requestsPerSecond float64, burst int) *limiter {
	return &limiter{
		clock:    clk,
		baseRate: rate.Limit(requestsPerSecond),
		bucket:   rate.NewLimiter(rate.Limit(requestsPerSecond), burst),
	}
}

// wait blocks until the caller may send one request and returns how long it
// waited. When ctx would expire before the wait is over it returns a
// *RateLimitedError at once, carrying the remaining delay, so that the caller
// can requeue instead of failing with a timeout.
func (l *limiter) wait(ctx context.Context) (time.Duration, error) {
	start := l.clock.Now()
	if err := l.waitForHold(ctx); err != nil {
		return l.clock.Since(start), err
	}
	now := l.clock.Now()
	reservation := l.bucket.ReserveN(now, 1)
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
	// A 429 answered to someone else while this caller slept holds it too.
	if err := l.waitForHold(ctx); err != nil {
		return l.clock.Since(start), err
	}
	return l.clock.Since(start), nil
}

// waitForHold blocks while a 429's delay is running.
func (l *limiter) waitForHold(ctx context.Context) error {
	for {
		l.mu.Lock()
		until := l.holdUntil
		l.mu.Unlock()
		now := l.clock.Now()
		remaining := until.Sub(now)
		if remaining <= 0 {
			return nil
		}
		if exceedsDeadline(ctx, remaining) {
			return limiterDelayError(remaining)
		}
		// Loop: another 429 may have pushed the hold further meanwhile.
		if err := l.sleep(ctx, remaining); err != nil {
			return err
		}
	}
}

func (l *limiter) sleep(ctx context.Context, d time.Duration) error {
	timer := l.clock.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C():
		return nil
	}
}

// hold closes the limiter for everyone until d from now (or later, when an
// earlier hold already lasts longer).
func (l *limiter) hold(d time.Duration) {
	until := l.clock.Now().Add(d)
	l.mu.Lock()
	defer l.mu.Unlock()
	if until.After(l.holdUntil) {
		l.holdUntil = until
	}
}

// observe adapts the limiter to one response from Konnect.
func (l *limiter) observe(statusCode int, header http.Header) {
	if statusCode == http.StatusTooManyRequests {
		l.hold(retryAfter(header))
		return
	}
	remaining, ok := headerInt(header, "RateLimit-Remaining")
	if !ok {
		return
	}
	reset, resetKnown := headerSeconds(header, "RateLimit-Reset")
	now := l.clock.Now()
	switch {
	case remaining <= 0 && resetKnown:
		// The next request would be refused; wait for the window instead.
		l.hold(reset)
	case !resetKnown || reset <= 0:
		l.bucket.SetLimitAt(now, l.baseRate)
	default:
		// Spread what is left of the window over the time left in it, so
		// that the organisation slows down before it hits the wall.
		sustainable := rate.Limit(float64(remaining) / reset.Seconds())
		l.bucket.SetLimitAt(now, min(l.baseRate, sustainable))
	}
}

// retryAfter is how long Konnect asks a rate-limited client to wait:
// Retry-After, else RateLimit-Reset, else DefaultRetryAfter.
func retryAfter(header http.Header) time.Duration {
	if d, ok := headerSeconds(header, "Retry-After"); ok && d > 0 {
		return d
	}
	if v := header.Get("Retry-After"); v != "" {
		if at, err := http.ParseTime(v); err == nil {
			if d := time.Until(at); d > 0 {
				return min(d, maxHeaderDelay)
			}
		}
	}
	if d, ok := headerSeconds(header, "RateLimit-Reset"); ok && d > 0 {
		return d
	}
	return DefaultRetryAfter
}

// headerSeconds reads a header holding a number of seconds (fractions
// allowed), capped at maxHeaderDelay.
func headerSeconds(header http.Header, name string) (time.Duration, bool) {
	v := strings.TrimSpace(header.Get(name))
	if v == "" {
		return 0, false
	}
	seconds, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(seconds) || seconds < 0 {
		return 0, false
	}
	if seconds > maxHeaderDelay.Seconds() {
		return maxHeaderDelay, true
	}
	return time.Duration(seconds * float64(time.Second)), true
}

func headerInt(header http.Header, name string) (int64, bool) {
	v := strings.TrimSpace(header.Get(name))
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
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
		Message:    "client-side rate limit: the wait would outlast the request's deadline",
	}
}

// limiters hands out the shared limiter of each key (an organisation, or a
// server URL and token before the organisation is known).
type limiters struct {
	clock             clock.Clock
	requestsPerSecond float64
	burst             int

	mu     sync.Mutex
	byName map[string]*limiter
}

func (ls *limiters) get(key string) *limiter {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l, ok := ls.byName[key]; ok {
		return l
	}
	if ls.byName == nil {
		ls.byName = map[string]*limiter{}
	}
	l := newLimiter(ls.clock, ls.requestsPerSecond, ls.burst)
	ls.byName[key] = l
	return l
}
