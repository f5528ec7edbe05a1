package konnect

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// waitUntil polls cond; it bounds how long a broken test hangs, it does not
// measure anything.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// callers runs n goroutines through l.wait and records, on the fake clock,
// when each got through.
type callers struct {
	mu   sync.Mutex
	done []time.Duration
	errs []error
}

func startCallers(ctx context.Context, l *limiter, clk *clocktesting.FakeClock, n int) *callers {
	c := &callers{}
	for range n {
		go func() {
			_, err := l.wait(ctx)
			c.mu.Lock()
			defer c.mu.Unlock()
			if err != nil {
				c.errs = append(c.errs, err)
				return
			}
			c.done = append(c.done, clk.Since(epoch))
		}()
	}
	return c
}

func (c *callers) finished() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.done) + len(c.errs)
}

func (c *callers) times() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := append([]time.Duration(nil), c.done...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// settle waits until every caller has either finished or is blocked on the
// fake clock, so that the next Step is seen by all of them.
func settle(t *testing.T, c *callers, clk *clocktesting.FakeClock, n int) {
	t.Helper()
	waitUntil(t, "callers to settle", func() bool { return c.finished()+clk.Waiters() == n })
}

func TestLimiterBurstOfCallersStaysUnderTheRate(t *testing.T) {
	const (
		perSecond = 4
		burst     = 3
		n         = 15
	)
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, perSecond, burst)
	c := startCallers(context.Background(), l, clk, n)
	settle(t, c, clk, n)
	for c.finished() < n {
		clk.Step(100 * time.Millisecond)
		settle(t, c, clk, n)
		if clk.Since(epoch) > time.Minute {
			t.Fatalf("only %d of %d callers got through in a minute", c.finished(), n)
		}
	}
	times := c.times()
	if len(times) != n {
		t.Fatalf("%d callers failed: %v", n-len(times), c.errs)
	}
	// A token bucket lets at most burst + rate*t requests through by t.
	for i, at := range times {
		allowed := burst + perSecond*at.Seconds()
		if float64(i+1) > allowed+1e-9 {
			t.Errorf("request %d went out at %v; only %.1f were allowed by then", i+1, at, allowed)
		}
	}
	if got, want := times[burst-1], time.Duration(0); got != want {
		t.Errorf("the first %d requests (the burst) went out at %v, want at once", burst, got)
	}
	if got, want := times[n-1], time.Duration(float64(n-burst)/perSecond*float64(time.Second)); got != want {
		t.Errorf("the last request went out at %v, want %v (the limiter must not be slower than its rate either)", got, want)
	}
}

func TestLimiter429PausesEveryCaller(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, 1000, 100)
	l.observe(http.StatusTooManyRequests, http.Header{"Retry-After": {"30"}})
	const n = 5
	c := startCallers(context.Background(), l, clk, n)
	settle(t, c, clk, n)

	clk.Step(10 * time.Second)
	settle(t, c, clk, n)
	// A later 429 with a shorter delay must not shorten the pause, a longer
	// one extends it.
	l.observe(http.StatusTooManyRequests, http.Header{"Retry-After": {"5"}})
	l.observe(http.StatusTooManyRequests, http.Header{"Retry-After": {"25"}})

	clk.Step(24 * time.Second) // t=34s: past the first pause, within the second
	settle(t, c, clk, n)
	if got := c.finished(); got != 0 {
		t.Fatalf("%d callers got through at t=34s while a 429 paused them until t=35s", got)
	}
	clk.Step(time.Second)
	settle(t, c, clk, n)
	waitUntil(t, "every caller to get through after the pause", func() bool { return c.finished() == n })
	for _, at := range c.times() {
		if at != 35*time.Second {
			t.Errorf("a caller got through at %v, want at 35s", at)
		}
	}
}

func TestLimiterPauseCaughtWhileWaitingForAToken(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, 1, 1)
	if _, err := l.wait(context.Background()); err != nil { // takes the only token
		t.Fatal(err)
	}
	c := startCallers(context.Background(), l, clk, 1)
	settle(t, c, clk, 1)
	// The caller's token comes at t=1s; a 429 at t=0.5s pauses it until 10.5s.
	clk.Step(500 * time.Millisecond)
	l.observe(http.StatusTooManyRequests, http.Header{"Retry-After": {"10"}})
	clk.Step(500 * time.Millisecond)
	settle(t, c, clk, 1)
	if c.finished() != 0 {
		t.Fatal("caller got through during a 429's pause that began while it waited for a token")
	}
	clk.Step(9500 * time.Millisecond)
	waitUntil(t, "the caller", func() bool { return c.finished() == 1 })
	if got := c.times()[0]; got != 10500*time.Millisecond {
		t.Fatalf("caller got through at %v, want 10.5s", got)
	}
}

func TestLimiterAdaptsToRateLimitHeaders(t *testing.T) {
	const base = 10
	tests := []struct {
		name      string
		status    int
		header    http.Header
		wantLimit rate.Limit
		wantPause time.Duration
	}{
		{name: "plenty remaining keeps the configured rate", status: 200,
			header: http.Header{"Ratelimit-Remaining": {"2990"}, "Ratelimit-Reset": {"48"}}, wantLimit: base},
		{name: "few remaining spreads them over the window", status: 200,
			header: http.Header{"Ratelimit-Remaining": {"10"}, "Ratelimit-Reset": {"20"}}, wantLimit: 0.5},
		{name: "none remaining pauses until the window resets", status: 200,
			header: http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"7"}}, wantLimit: base, wantPause: 7 * time.Second},
		{name: "remaining without a reset keeps the configured rate", status: 201,
			header: http.Header{"Ratelimit-Remaining": {"1"}}, wantLimit: base},
		{name: "no headers change nothing", status: 200, header: http.Header{}, wantLimit: base},
		{name: "429 pauses for Retry-After", status: 429,
			header: http.Header{"Retry-After": {"77"}, "Ratelimit-Reset": {"48"}}, wantLimit: base, wantPause: 77 * time.Second},
		{name: "429 without Retry-After pauses for RateLimit-Reset", status: 429,
			header: http.Header{"Ratelimit-Reset": {"48"}}, wantLimit: base, wantPause: 48 * time.Second},
		{name: "429 without headers pauses nobody", status: 429,
			header: http.Header{}, wantLimit: base},
		{name: "a stated budget above the ceiling keeps the ceiling", status: 200,
			header: http.Header{"Ratelimit-Limit": {"3000"}, "Ratelimit-Remaining": {"2990"}, "Ratelimit-Reset": {"48"}}, wantLimit: base},
		{name: "a stated budget below the ceiling is followed", status: 200,
			header: http.Header{"X-Ratelimit-Limit-Minute": {"300"}, "Ratelimit-Remaining": {"290"}, "Ratelimit-Reset": {"48"}}, wantLimit: budgetShare * 300 / 60},
		{name: "absurd delays are capped", status: 429,
			header: http.Header{"Retry-After": {"99999999"}}, wantLimit: base, wantPause: maxHeaderDelay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(epoch)
			l := newLimiter(clk, base, 5)
			l.observe(tt.status, tt.header)
			if got := l.bucket.Limit(); got != tt.wantLimit {
				t.Errorf("limit = %v, want %v", got, tt.wantLimit)
			}
			pause := max(l.pauseUntil.Sub(epoch), 0) // an unset pauseUntil lies before epoch
			if pause != tt.wantPause {
				t.Errorf("pause = %v, want %v", pause, tt.wantPause)
			}
		})
	}
}

func TestLimiterRecoversTheRateWhenTheWindowRefills(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, 10, 1)
	l.observe(200, http.Header{"Ratelimit-Remaining": {"4"}, "Ratelimit-Reset": {"8"}})
	if got := l.bucket.Limit(); got != 0.5 {
		t.Fatalf("limit after few remaining = %v, want 0.5", got)
	}
	l.observe(200, http.Header{"Ratelimit-Remaining": {"3000"}, "Ratelimit-Reset": {"60"}})
	if got := l.bucket.Limit(); got != 10 {
		t.Fatalf("limit after the window refilled = %v, want the configured 10", got)
	}
}

func TestLimiterRefusesWaitsPastTheDeadline(t *testing.T) {
	tests := []struct {
		name      string
		prepare   func(l *limiter)
		wantDelay time.Duration
	}{
		{name: "429 pause longer than the deadline",
			prepare:   func(l *limiter) { l.observe(429, http.Header{"Retry-After": {"30"}}) },
			wantDelay: 30 * time.Second},
		{name: "token further away than the deadline",
			prepare: func(l *limiter) {
				// The bucket holds one token at this rate; take it.
				if _, err := l.wait(context.Background()); err != nil {
					panic(err)
				}
			},
			wantDelay: 100 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(epoch)
			l := newLimiter(clk, 0.01, 3)
			tt.prepare(l)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := l.wait(ctx)
			var limited *RateLimitedError
			if !errors.As(err, &limited) {
				t.Fatalf("wait = %v, want a *RateLimitedError at once", err)
			}
			if limited.RetryAfter != tt.wantDelay {
				t.Fatalf("RetryAfter = %v, want %v", limited.RetryAfter, tt.wantDelay)
			}
		})
	}
}

func TestLimiterWaitEndsWithTheContext(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, 1000, 10)
	l.observe(429, http.Header{"Retry-After": {"60"}})
	ctx, cancel := context.WithCancel(context.Background())
	c := startCallers(ctx, l, clk, 1)
	settle(t, c, clk, 1)
	cancel()
	waitUntil(t, "the cancelled caller to return", func() bool { return c.finished() == 1 })
	if len(c.errs) != 1 || !errors.Is(c.errs[0], context.Canceled) {
		t.Fatalf("cancelled wait returned %v, want context.Canceled", c.errs)
	}
}

func TestLimitersAreSharedPerKey(t *testing.T) {
	ls := &limiters{clock: clocktesting.NewFakeClock(epoch), requestsPerSecond: 1, burst: 1}
	a, b := ls.organization("https://eu.api.konghq.com", "x"), ls.organization("https://eu.api.konghq.com", "x")
	if a != b {
		t.Fatal("the same organisation got two limiters")
	}
	for _, other := range []*registration{
		ls.organization("https://eu.api.konghq.com", "y"),
		ls.organization("https://us.api.konghq.com", "x"),
		ls.token("https://eu.api.konghq.com", "x"),
	} {
		if a == other {
			t.Fatal("different organisations, servers or tokens share a limiter")
		}
	}
}

// TestLimiterServesForegroundCallsFirst: with a backlog of background
// callers queued at the limiter, foreground calls (users' changes) go out
// within backgroundLead and their own turns, not after the backlog, and the
// backlog still goes out at the full rate.
func TestLimiterServesForegroundCallsFirst(t *testing.T) {
	const (
		perSecond  = 10
		n          = 40
		foreground = 5
	)
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, perSecond, perSecond)
	background := startCallers(context.Background(), l, clk, n)
	settle(t, background, clk, n)
	for clk.Since(epoch) < time.Second { // the backlog is under way
		clk.Step(100 * time.Millisecond)
		settle(t, background, clk, n)
	}
	waiting := n - background.finished()
	if waiting < 20 {
		t.Fatalf("only %d background calls are waiting: the test needs a backlog", waiting)
	}

	askedAt := clk.Since(epoch)
	users := startCallers(WithForeground(context.Background()), l, clk, foreground)
	all := func() int { return background.finished() + users.finished() }
	settled := func() {
		waitUntil(t, "callers to settle", func() bool { return all()+clk.Waiters() == n+foreground })
	}
	settled()
	for users.finished() < foreground {
		clk.Step(10 * time.Millisecond)
		settled()
		if clk.Since(epoch)-askedAt > 10*time.Second {
			t.Fatal("the foreground calls never went out")
		}
	}
	most := backgroundLead + foreground*time.Second/perSecond + 20*time.Millisecond
	if took := users.times()[foreground-1] - askedAt; took > most {
		t.Errorf("the %d foreground calls went out within %v of asking, want within %v (%d background calls were waiting)", foreground, took, most, waiting)
	}
	for background.finished() < n {
		clk.Step(100 * time.Millisecond)
		settle(t, background, clk, n)
	}
	// A second's burst at once, then everything else at 10/s.
	if last, want := background.times()[n-1], time.Duration(n+foreground-perSecond)*time.Second/perSecond; last > want+100*time.Millisecond {
		t.Errorf("the backlog finished at %v, want about %v: the background lane must not waste the budget", last, want)
	}
}
