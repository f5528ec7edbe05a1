package konnect

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// The tests in this file run one client as fast as the limiter lets it
// against a model of Konnect's limiter, on a fake clock, answers arriving at
// once. They check what the limiter makes of each kind of 429.

// modelServer answers one request sent at now.
type modelServer interface {
	answer(now time.Time) (int, http.Header)
}

// fixedWindow is Konnect's organisation limit: limit requests per window
// aligned to the clock, stated in RateLimit-* headers on every answer; a
// refusal names its delay in Retry-After.
type fixedWindow struct {
	limit       int
	windowStart time.Time
	used        int
}

func (s *fixedWindow) answer(now time.Time) (int, http.Header) {
	start := now.Truncate(time.Minute)
	if !start.Equal(s.windowStart) {
		s.windowStart, s.used = start, 0
	}
	status := http.StatusOK
	if s.used < s.limit {
		s.used++
	} else {
		status = http.StatusTooManyRequests
	}
	reset := int(math.Ceil(start.Add(time.Minute).Sub(now).Seconds()))
	h := http.Header{}
	h.Set("RateLimit-Limit", strconv.Itoa(s.limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(s.limit-s.used))
	h.Set("RateLimit-Reset", strconv.Itoa(max(reset, 1)))
	h.Set("X-RateLimit-Limit-Minute", strconv.Itoa(s.limit))
	if status == http.StatusTooManyRequests {
		h.Set("Retry-After", strconv.Itoa(max(reset, 1)))
	}
	return status, h
}

// headerlessBucket is a connection-level limiter: a token bucket of
// perSecond with a small burst that refuses with a bare 429.
type headerlessBucket struct {
	perSecond float64
	burst     float64
	tokens    float64
	last      time.Time
}

func (s *headerlessBucket) answer(now time.Time) (int, http.Header) {
	if !s.last.IsZero() {
		s.tokens = min(s.burst, s.tokens+now.Sub(s.last).Seconds()*s.perSecond)
	}
	s.last = now
	if s.tokens < 1 {
		return http.StatusTooManyRequests, http.Header{}
	}
	s.tokens--
	return http.StatusCreated, http.Header{}
}

// strayRefusals refuses a share of requests with a bare 429, whatever the
// rate, and refuses the requests sent at the times listed in at.
type strayRefusals struct {
	share float64
	rng   *rand.Rand
	at    map[time.Time]bool
}

func (s *strayRefusals) answer(now time.Time) (int, http.Header) {
	if s.at[now] || (s.share > 0 && s.rng.Float64() < s.share) {
		return http.StatusTooManyRequests, http.Header{}
	}
	return http.StatusOK, http.Header{}
}

// sent is what one request met.
type sent struct {
	at     time.Duration // since epoch
	status int
}

// drive sends requests one after another for d, each as soon as the limiter
// allows it (decided the way wait decides, on the fake clock), and returns
// what each met. beforeSend, when set, may change what the server does.
func drive(l *limiter, clk *clocktesting.FakeClock, server modelServer, d time.Duration) []sent {
	var out []sent
	end := epoch.Add(d)
	for clk.Now().Before(end) {
		l.mu.Lock()
		pause := l.pauseUntil.Sub(clk.Now())
		l.mu.Unlock()
		if pause > 0 {
			clk.Step(pause)
			continue
		}
		now := clk.Now()
		clk.Step(l.bucket.ReserveN(now, 1).DelayFrom(now))
		l.mu.Lock()
		pause = l.pauseUntil.Sub(clk.Now())
		l.mu.Unlock()
		if pause > 0 {
			clk.Step(pause)
		}
		status, header := server.answer(clk.Now())
		out = append(out, sent{at: clk.Since(epoch), status: status})
		l.observe(status, header)
	}
	return out
}

// between counts the requests sent in [from, to) and those of them accepted.
func between(log []sent, from, to time.Duration) (requests, accepted int) {
	for _, s := range log {
		if s.at >= from && s.at < to {
			requests++
			if s.status != http.StatusTooManyRequests {
				accepted++
			}
		}
	}
	return requests, accepted
}

func TestLimiterSpendsTheStatedBudgetWithoutRefusals(t *testing.T) {
	const perMinute = 3000
	clk := clocktesting.NewFakeClock(epoch)
	// Default options: no ceiling, the default burst.
	l := newLimiter(clk, 0, DefaultBurst)
	log := drive(l, clk, &fixedWindow{limit: perMinute}, 5*time.Minute)
	for minute := range 5 {
		requests, accepted := between(log, time.Duration(minute)*time.Minute, time.Duration(minute+1)*time.Minute)
		if refused := requests - accepted; refused != 0 {
			t.Errorf("minute %d: %d requests refused, want none", minute, refused)
		}
		if share := float64(accepted) / perMinute; share < 0.95 {
			t.Errorf("minute %d: %d requests accepted, %.1f%% of the budget; want at least 95%%", minute, accepted, 100*share)
		}
	}
}

func TestLimiterPausesUntilTheWindowResetsWhenTheBudgetIsGone(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch.Add(30 * time.Second))
	l := newLimiter(clk, 0, DefaultBurst)
	// Another client has spent the window: Konnect says so on a 429.
	server := &fixedWindow{limit: 100, windowStart: epoch, used: 100}
	status, header := server.answer(clk.Now())
	l.observe(status, header)
	if got := l.pauseUntil.Sub(epoch); got != time.Minute {
		t.Fatalf("paused until %v into the window, want until it resets at 1m", got)
	}
	if got := l.currentRate(); got != budgetShare*100/60 {
		t.Fatalf("rate after the 429 = %v, want %v (the stated budget)", got, budgetShare*100/60)
	}
}

func TestLimiterLoneBareRefusalCostsAboutASecond(t *testing.T) {
	const perSecond = 40.0
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, perSecond, DefaultBurst)
	// Find when the 200th request goes out, then refuse exactly that one.
	probe := newLimiter(clocktesting.NewFakeClock(epoch), perSecond, DefaultBurst)
	refusedAt := drive(probe, clocktesting.NewFakeClock(epoch), &strayRefusals{}, 10*time.Second)[199].at
	log := drive(l, clk, &strayRefusals{at: map[time.Time]bool{epoch.Add(refusedAt): true}}, 20*time.Second)

	if !l.pauseUntil.IsZero() {
		t.Fatalf("a 429 without a delay paused the limiter until %v", l.pauseUntil.Sub(epoch))
	}
	requests, accepted := between(log, refusedAt, refusedAt+10*time.Second)
	if accepted != requests-1 {
		t.Fatalf("%d of %d requests refused after the lone 429, want only it", requests-accepted, requests)
	}
	if lost := 10*perSecond - float64(requests); lost > perSecond {
		t.Errorf("%d requests in the 10s after a lone 429, %.0f fewer than the rate allows; want it to cost at most a second's worth", requests, lost)
	}
	if got := l.currentRate(); got != perSecond {
		t.Errorf("rate 10s after the lone 429 = %v, want back at %v", got, perSecond)
	}
}

func TestLimiterShrugsOffStrayBareRefusals(t *testing.T) {
	const perSecond = 48.0
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, perSecond, DefaultBurst)
	log := drive(l, clk, &strayRefusals{share: 0.05, rng: rand.New(rand.NewPCG(3, 4))}, 2*time.Minute)
	requests, accepted := between(log, 0, 2*time.Minute)
	if refused := requests - accepted; refused < requests/40 {
		t.Fatalf("only %d of %d requests refused; the model did not inject its 5%%", refused, requests)
	}
	if rate := float64(requests) / 120; rate < 0.9*perSecond {
		t.Errorf("sent %.1f requests/s under 5%% stray 429s, want at least 90%% of %v", rate, perSecond)
	}
}

func TestLimiterConvergesToALimitThatStatesNothing(t *testing.T) {
	const limit = 10.0
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, 0, DefaultBurst) // starts at DefaultRequestsPerSecond, far above the limit
	log := drive(l, clk, &headerlessBucket{perSecond: limit, burst: 5}, 2*time.Minute)
	if !l.pauseUntil.IsZero() {
		t.Fatalf("429s without a delay paused the limiter until %v", l.pauseUntil.Sub(epoch))
	}
	// After a storm at the start, the limiter settles: the steady part is
	// the last 100s.
	requests, accepted := between(log, 20*time.Second, 2*time.Minute)
	if rate := float64(accepted) / 100; rate < 0.9*limit {
		t.Errorf("%.1f requests/s accepted in the steady part, want at least 90%% of the limit %v", rate, limit)
	}
	if rate := float64(requests) / 100; rate > 1.5*limit {
		t.Errorf("sending %.1f requests/s against a limit of %v: the limiter did not converge", rate, limit)
	}
	if first, _ := between(log, 0, time.Second); first < 20 {
		t.Fatalf("only %d requests in the first second; the storm this test needs did not happen", first)
	}
}
