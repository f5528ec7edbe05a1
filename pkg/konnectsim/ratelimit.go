package konnectsim

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// rateLimiter is Konnect's per-organisation budget: a fixed window of one
// minute aligned to the clock, reported in RateLimit-* and
// X-RateLimit-*-Minute headers on every authenticated response.
type rateLimiter struct {
	limit int
	clock clock.PassiveClock
	mu    sync.Mutex
	used  map[string]*window
	// spent counts, per organisation, the requests allowed and refused
	// since the start, over every window.
	spent map[string]*orgRequests
}

// orgRequests is what one organisation has asked of its budget.
type orgRequests struct {
	allowed, refused int
}

type window struct {
	start time.Time
	count int
}

func newRateLimiter(perMinute int, clk clock.PassiveClock) *rateLimiter {
	return &rateLimiter{limit: perMinute, clock: clk, used: map[string]*window{}, spent: map[string]*orgRequests{}}
}

// allow spends one request of orgID's budget and writes the headers. When
// the budget is gone it returns false and how long until the window resets.
func (l *rateLimiter) allow(orgID string, h http.Header) (bool, time.Duration) {
	if l.limit <= 0 {
		return true, 0
	}
	now := l.clock.Now()
	start := now.Truncate(time.Minute)
	l.mu.Lock()
	w := l.used[orgID]
	if w == nil || !w.start.Equal(start) {
		w = &window{start: start}
		l.used[orgID] = w
	}
	allowed := w.count < l.limit
	spent := l.spent[orgID]
	if spent == nil {
		spent = &orgRequests{}
		l.spent[orgID] = spent
	}
	if allowed {
		w.count++
		spent.allowed++
	} else {
		spent.refused++
	}
	remaining := l.limit - w.count
	l.mu.Unlock()

	reset := start.Add(time.Minute).Sub(now)
	writeRateLimitHeaders(h, l.limit, remaining, reset)
	return allowed, reset
}

// requestsOf returns the requests orgID has been allowed and refused so far.
func (l *rateLimiter) requestsOf(orgID string) orgRequests {
	l.mu.Lock()
	defer l.mu.Unlock()
	if spent := l.spent[orgID]; spent != nil {
		return *spent
	}
	return orgRequests{}
}

// rateLimitHeaders are the headers writeRateLimitHeaders and a 429 with a
// delay set.
var rateLimitHeaders = []string{
	"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
	"X-RateLimit-Limit-Minute", "X-RateLimit-Remaining-Minute", "Retry-After",
}

func writeRateLimitHeaders(h http.Header, limit, remaining int, reset time.Duration) {
	resetSecs := max(int((reset+time.Second-1)/time.Second), 1)
	h.Set("RateLimit-Limit", strconv.Itoa(limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(resetSecs))
	h.Set("X-RateLimit-Limit-Minute", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining-Minute", strconv.Itoa(remaining))
}
