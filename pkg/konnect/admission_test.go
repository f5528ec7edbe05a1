package konnect

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// deferredTurn returns the turn err names, failing unless err is a deferral.
func deferredTurn(t *testing.T, err error) time.Duration {
	t.Helper()
	var limited *RateLimitedError
	if !errors.As(err, &limited) || !limited.Deferred || !limited.DelayKnown {
		t.Fatalf("got %v, want a deferral (*RateLimitedError with Deferred and a delay)", err)
	}
	if d, ok := IsDeferred(err); !ok || d != limited.RetryAfter {
		t.Fatalf("IsDeferred(%v) = %v, %v", err, d, ok)
	}
	return limited.RetryAfter
}

// TestPausedRequestReturnsItsTurnAtOnce: while a 429's delay pauses an
// organisation's limiter, a deferrable call is not sent and does not wait: it returns
// at once with its turn. Background calls get turns in line, a token's
// spacing apart from the pause's end; a user's change gets the pause's end
// itself; and once the turn has come the call goes.
func TestPausedRequestReturnsItsTurnAtOnce(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, 10, 10)
	l.observe(http.StatusTooManyRequests, http.Header{"Retry-After": {"30"}})
	background := WithDeferral(context.Background())

	var turns []time.Duration
	for range 3 {
		done := make(chan error, 1)
		go func() {
			_, _, err := l.acquire(WithDeferral(context.Background()))
			done <- err
		}()
		var err error
		waitUntil(t, "the paused call to return", func() bool {
			select {
			case err = <-done:
				return true
			default:
				return false
			}
		})
		turns = append(turns, deferredTurn(t, err))
	}
	for i, want := range []time.Duration{30 * time.Second, 30*time.Second + 100*time.Millisecond, 30*time.Second + 200*time.Millisecond} {
		if turns[i] != want {
			t.Errorf("background call %d: turn in %v, want %v (in line behind the pause, a token apart)", i, turns[i], want)
		}
	}
	_, _, err := l.acquire(WithForeground(WithDeferral(context.Background())))
	if got := deferredTurn(t, err); got != 30*time.Second {
		t.Errorf("a user's change: turn in %v, want the pause's end (30s), ahead of the line", got)
	}
	if got := l.state().waiting; got != 4 {
		t.Errorf("%d calls waiting for their turn, want 4", got)
	}
	if clk.Waiters() != 0 {
		t.Errorf("%d callers wait on the clock; a deferrable call must not", clk.Waiters())
	}

	clk.Step(30 * time.Second)
	p, waited, err := l.acquire(background)
	if err != nil {
		t.Fatalf("at its turn the call was refused again: %v", err)
	}
	p.done(true)
	if waited != 0 {
		t.Errorf("at its turn the call waited %v, want none", waited)
	}
	if got := l.state().waiting; got != 2 {
		t.Errorf("%d calls waiting for their turn once two turns came, want 2", got)
	}
}

// TestDeferrableCallsWaitInlineOnlyForShortTurns: a deferrable call whose
// token is due within MaxInlineWait waits for it (a background call until
// it is backgroundLead away, then reserves it); one whose token is further
// away gets a turn instead, without taking a token.
func TestDeferrableCallsWaitInlineOnlyForShortTurns(t *testing.T) {
	tests := []struct {
		name       string
		perSecond  float64
		foreground bool
		// want: the inline wait before asking again, the wait for a
		// reserved token, or the turn.
		wantAskAgain, wantTokenIn, wantTurn time.Duration
	}{
		{name: "background, token 100ms away", perSecond: 10, wantAskAgain: 100*time.Millisecond - backgroundLead},
		{name: "background, token 1s away", perSecond: 1, wantTurn: time.Second - backgroundLead},
		{name: "foreground, token 100ms away", perSecond: 10, foreground: true, wantTokenIn: 100 * time.Millisecond},
		{name: "foreground, token 1s away", perSecond: 1, foreground: true, wantTurn: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(epoch)
			l := newLimiter(clk, tt.perSecond, 1)
			ctx := WithDeferral(context.Background())
			if tt.foreground {
				ctx = WithForeground(ctx)
			}
			if a, err := l.admit(ctx, MaxInlineWait); err != nil || a.reservation == nil || a.wait != 0 {
				t.Fatalf("the first call (the bucket's token) = %+v, %v; want sent at once", a, err)
			}
			a, err := l.admit(ctx, MaxInlineWait)
			switch {
			case tt.wantTurn > 0:
				if got := deferredTurn(t, err); got != tt.wantTurn {
					t.Errorf("turn in %v, want %v", got, tt.wantTurn)
				}
				if tokens := l.bucket.TokensAt(clk.Now()); tokens != 0 {
					t.Errorf("the deferred call took a token: %v left, want 0", tokens)
				}
			case err != nil:
				t.Fatalf("admit = %v, want an inline wait", err)
			case tt.wantAskAgain > 0:
				if a.reservation != nil || a.wait != tt.wantAskAgain {
					t.Errorf("admit = %+v, want to ask again in %v without a token", a, tt.wantAskAgain)
				}
			default:
				if a.reservation == nil || a.wait != tt.wantTokenIn {
					t.Errorf("admit = %+v, want a token due in %v", a, tt.wantTokenIn)
				}
			}
		})
	}
}

// TestDeferrableCallsNeverWaitLongerThanTheBound: many deferrable calls at
// once against a slow pace each either go out within MaxInlineWait (plus
// backgroundLead for a reserved token) or return with their turn; none
// waits longer, and the rate is kept.
func TestDeferrableCallsNeverWaitLongerThanTheBound(t *testing.T) {
	const (
		perSecond = 10
		n         = 20
	)
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, perSecond, 2)
	type outcome struct {
		waited time.Duration
		err    error
		at     time.Duration
	}
	results := make(chan outcome, n)
	for range n {
		go func() {
			p, waited, err := l.acquire(WithDeferral(context.Background()))
			if err == nil {
				p.done(true)
			}
			results <- outcome{waited, err, clk.Since(epoch)}
		}()
	}
	var got []outcome
	for len(got) < n {
		waitUntil(t, "every caller to return or wait on the clock", func() bool {
			for {
				select {
				case o := <-results:
					got = append(got, o)
				default:
					return len(got)+clk.Waiters() == n
				}
			}
		})
		if len(got) < n {
			clk.Step(10 * time.Millisecond)
		}
	}
	sent, deferred := 0, 0
	var last time.Duration
	for _, o := range got {
		if o.waited > MaxInlineWait+backgroundLead {
			t.Errorf("a call waited %v in the limiter, more than %v", o.waited, MaxInlineWait+backgroundLead)
		}
		if o.err != nil {
			deferredTurn(t, o.err)
			deferred++
			continue
		}
		sent++
		last = max(last, o.at)
	}
	if deferred == 0 {
		t.Fatal("no call was deferred: the test needs more calls than the bound lets through")
	}
	// The burst, then the rate, over the longest inline wait.
	if most := 2 + perSecond*(MaxInlineWait+backgroundLead).Seconds(); float64(sent) > most+1e-9 {
		t.Errorf("%d calls sent by %v, more than the rate allows (%.1f)", sent, last, most)
	}
}

// TestUserChangeWaitsBehindLittleOfOtherWork: however many calls whose
// turn has come, or that continue begun work, ask at once, they reserve
// tokens only backgroundLead ahead, so that a user's change asking next
// gets the next token rather than waiting behind them, or being deferred.
func TestUserChangeWaitsBehindLittleOfOtherWork(t *testing.T) {
	for _, tt := range []struct {
		name  string
		other func() context.Context
	}{
		{"turns come", func() context.Context { return WithTurn(context.Background()) }},
		{"begun work", func() context.Context {
			ctx := WithDeferral(context.Background())
			deferralOf(ctx).started.Store(true)
			return ctx
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const perSecond = 10
			clk := clocktesting.NewFakeClock(epoch)
			l := newLimiter(clk, perSecond, 1)
			if a, err := l.admit(WithDeferral(context.Background()), MaxInlineWait); err != nil || a.reservation == nil {
				t.Fatalf("the bucket's token: %+v, %v", a, err)
			}
			for range 20 {
				a, err := l.admit(tt.other(), MaxInlineWait)
				if err != nil {
					t.Fatalf("a call within the inline wait was deferred: %v", err)
				}
				if a.reservation != nil && a.wait > backgroundLead {
					t.Fatalf("a call reserved a token %v ahead, more than backgroundLead", a.wait)
				}
			}
			a, err := l.admit(WithForeground(WithDeferral(context.Background())), MaxInlineWait)
			if err != nil {
				t.Fatalf("the user's change was deferred: %v", err)
			}
			if spacing := time.Second / perSecond; a.reservation == nil || a.wait > spacing {
				t.Errorf("the user's change: %+v, want the next token, within %v", a, spacing)
			}
		})
	}
}

// TestSlowdownDoesNotKeepTheBacklogBackAfterIt: while another client has
// nearly spent the organisation's window, the limiter sends at a trickle;
// the calls it defers meanwhile get turns a token apart at the
// organisation's base rate, not at the trickle's, so that once the window
// refills the backlog goes at the full rate instead of minutes later.
func TestSlowdownDoesNotKeepTheBacklogBackAfterIt(t *testing.T) {
	const perSecond = 50
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, perSecond, 1)
	// 5 requests left for the next 50 s: 0.1 a second.
	l.observe(http.StatusOK, http.Header{"Ratelimit-Remaining": {"5"}, "Ratelimit-Reset": {"50"}})
	if got := l.currentRate(); got != 0.1 {
		t.Fatalf("rate %v, want the window's trickle 0.1/s", got)
	}
	if a, err := l.admit(WithDeferral(context.Background()), MaxInlineWait); err != nil || a.reservation == nil {
		t.Fatalf("the bucket's token: %+v, %v", a, err)
	}
	var last time.Duration
	for range 100 {
		_, err := l.admit(WithDeferral(context.Background()), MaxInlineWait)
		last = deferredTurn(t, err)
	}
	// The first turn is the trickle's next token; the other 99 follow a
	// base token apart.
	if most := 10*time.Second + 99*time.Second/perSecond; last > most {
		t.Errorf("the 100th deferred call's turn is in %v, want within %v", last, most)
	}
}
