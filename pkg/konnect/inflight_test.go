package konnect

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"net/http"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// The tests of this file play a backlog of objects through one
// organisation's limiter on a fake clock, as the controller's workers
// would: each object's reconcile asks admit (waiting inline as acquire
// does, or coming back at its turn when deferred), and a request, once
// sent, is answered latency later. Nothing sleeps: a heap of events moves
// the clock from one to the next.

// event is something that happens to one object at a moment.
type event struct {
	at     time.Time
	object int
	// what: ask (admit, with budget left of the inline wait), send (its
	// token is due), answer (Konnect answers).
	what   int
	budget time.Duration
	// ctx is the reconcile's: a new one after a deferral (WithTurn), the
	// same one while it waits inline for its turn.
	ctx    context.Context
	permit permit
}

const (
	eventAsk = iota
	eventSend
	eventAnswer
)

type events []event

func (e events) Len() int           { return len(e) }
func (e events) Less(i, j int) bool { return e[i].at.Before(e[j].at) }
func (e events) Swap(i, j int)      { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)        { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	last := old[len(old)-1]
	*e = old[:len(old)-1]
	return last
}

// backlogRun is what playing a backlog showed.
type backlogRun struct {
	answered []time.Time // when each request was answered, in order
	asks     int         // admit calls in all (deferred objects ask again)
	// inFlight samples the requests in flight every 10ms, with the cap.
	inFlight      []int
	limit         []int
	maxWaitInline time.Duration
}

// playBacklog plays n objects, each needing one request, through l for d;
// latency(now) is how long Konnect takes to answer a request sent at now.
func playBacklog(t *testing.T, l *limiter, clk *clocktesting.FakeClock, n int, d time.Duration, latency func(time.Time) time.Duration) backlogRun {
	t.Helper()
	var run backlogRun
	queue := &events{}
	start := clk.Now()
	for i := range n {
		heap.Push(queue, event{at: start, object: i, what: eventAsk, budget: MaxInlineWait, ctx: WithDeferral(context.Background())})
	}
	firstAsk := map[int]time.Time{}
	nextSample := start
	for queue.Len() > 0 {
		ev := heap.Pop(queue).(event)
		if ev.at.Sub(start) > d {
			break
		}
		for !nextSample.After(ev.at) {
			st := l.state()
			run.inFlight = append(run.inFlight, st.inFlight)
			run.limit = append(run.limit, st.inFlightLimit)
			nextSample = nextSample.Add(10 * time.Millisecond)
		}
		if ev.at.After(clk.Now()) {
			clk.SetTime(ev.at)
		}
		now := clk.Now()
		switch ev.what {
		case eventAsk:
			run.asks++
			if ev.budget == MaxInlineWait {
				firstAsk[ev.object] = now
			}
			a, err := l.admit(ev.ctx, ev.budget)
			var limited *RateLimitedError
			switch {
			case errors.As(err, &limited):
				heap.Push(queue, event{at: now.Add(limited.RetryAfter), object: ev.object, what: eventAsk, budget: MaxInlineWait, ctx: WithTurn(context.Background())})
			case err != nil:
				t.Fatal(err)
			case a.reservation == nil:
				// As acquire does: wait for the turn, then ask again.
				deferralOf(ev.ctx).turnCome.Store(true)
				heap.Push(queue, event{at: now.Add(a.wait), object: ev.object, what: eventAsk, budget: ev.budget - a.wait, ctx: ev.ctx})
			default:
				heap.Push(queue, event{at: now.Add(a.wait), object: ev.object, what: eventSend, permit: permit{limiter: l, admittedAt: a.at}})
			}
		case eventSend:
			run.maxWaitInline = max(run.maxWaitInline, now.Sub(firstAsk[ev.object]))
			heap.Push(queue, event{at: now.Add(latency(now)), object: ev.object, what: eventAnswer, permit: ev.permit})
		case eventAnswer:
			ev.permit.done(true)
			run.answered = append(run.answered, now)
		}
	}
	return run
}

// rateBetween is the answers a second between from and to after start.
func (r backlogRun) rateBetween(start time.Time, from, to time.Duration) float64 {
	count := 0
	for _, at := range r.answered {
		if since := at.Sub(start); since >= from && since < to {
			count++
		}
	}
	return float64(count) / (to - from).Seconds()
}

// meanInFlight is the mean of the samples between from and to.
func (r backlogRun) meanInFlight(from, to time.Duration) float64 {
	sum, n := 0, 0
	for i, v := range r.inFlight {
		if at := time.Duration(i) * 10 * time.Millisecond; at >= from && at < to {
			sum += v
			n++
		}
	}
	return float64(sum) / float64(n)
}

// TestInFlightFollowsRateTimesLatency: a backlog played through the
// limiter keeps what rate × latency needs in flight (Little's law), not
// more, and spends the whole rate, whatever the latency; when Konnect slows
// down the requests in flight follow.
func TestInFlightFollowsRateTimesLatency(t *testing.T) {
	const (
		perSecond = 50
		objects   = 3000
	)
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, perSecond, 20)
	// 100 ms for 20 s, then 400 ms.
	slowFrom := epoch.Add(20 * time.Second)
	latency := func(now time.Time) time.Duration {
		if now.Before(slowFrom) {
			return 100 * time.Millisecond
		}
		return 400 * time.Millisecond
	}
	run := playBacklog(t, l, clk, objects, 50*time.Second, latency)

	for _, phase := range []struct {
		from, to time.Duration
		latency  time.Duration
	}{
		{5 * time.Second, 20 * time.Second, 100 * time.Millisecond},
		{25 * time.Second, 50 * time.Second, 400 * time.Millisecond},
	} {
		rate := run.rateBetween(epoch, phase.from, phase.to)
		if rate < 0.98*perSecond {
			t.Errorf("from %v to %v (latency %v): %.1f answers/s, want the rate (%d/s): too few in flight", phase.from, phase.to, phase.latency, rate, perSecond)
		}
		// Little's law: rate × latency in flight, and a background call's
		// wait for its reserved token (at most backgroundLead) on top.
		need := perSecond * phase.latency.Seconds()
		most := perSecond*(phase.latency+backgroundLead).Seconds() + 1
		t.Logf("latency %v: %.1f answers/s, %.1f in flight on average (rate × latency = %.1f)", phase.latency, rate, run.meanInFlight(phase.from, phase.to), need)
		if got := run.meanInFlight(phase.from, phase.to); got < need-0.5 || got > most {
			t.Errorf("from %v to %v (latency %v): %.1f requests in flight on average, want rate × latency = %.1f (at most %.1f)", phase.from, phase.to, phase.latency, got, need, most)
		}
	}
	for i, v := range run.inFlight {
		if v > run.limit[i] {
			t.Fatalf("at %v: %d requests in flight, over the limit %d", time.Duration(i)*10*time.Millisecond, v, run.limit[i])
		}
	}
	if run.maxWaitInline > MaxInlineWait+backgroundLead {
		t.Errorf("a request waited %v inline in all, more than %v", run.maxWaitInline, MaxInlineWait+backgroundLead)
	}
	// A deferred object comes back at its turn and goes: the backlog costs
	// about one deferral each, not a retry loop.
	t.Logf("%d requests answered, %.2f admits each; longest inline wait %v", len(run.answered), float64(run.asks)/float64(len(run.answered)), run.maxWaitInline)
	if perObject := float64(run.asks) / float64(len(run.answered)); perObject > 3 {
		t.Errorf("%.1f admits per request sent, want at most 3: deferred objects keep coming back too early", perObject)
	}
}

// TestInFlightIsCappedWhenKonnectSlowsDown: when Konnect's answers suddenly
// take 5 s instead of 100 ms, the organisation does not pile its backlog
// into requests in flight (which would tie up as many workers): the cap
// applies at once, and never exceeds a second's worth of the rate.
func TestInFlightIsCappedWhenKonnectSlowsDown(t *testing.T) {
	const perSecond = 50
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, perSecond, 20)
	slowFrom := epoch.Add(10 * time.Second)
	latency := func(now time.Time) time.Duration {
		if now.Before(slowFrom) {
			return 100 * time.Millisecond
		}
		return 5 * time.Second
	}
	run := playBacklog(t, l, clk, 3000, 40*time.Second, latency)
	ceiling := int(math.Ceil(perSecond * inFlightCeilingLatency.Seconds()))
	worst := 0
	for i, v := range run.inFlight {
		if v > run.limit[i]+1 { // +1: a sample between an admit and its permit's count
			t.Fatalf("at %v: %d requests in flight, over the limit %d", time.Duration(i)*10*time.Millisecond, v, run.limit[i])
		}
		worst = max(worst, v)
	}
	if worst > ceiling {
		t.Errorf("%d requests in flight at most, want at most a second's worth of the rate (%d)", worst, ceiling)
	}
	// Just after the slow-down, before the estimate follows, the cap is what
	// the fast answers needed, with headroom.
	justAfter := run.inFlight[int((slowFrom.Sub(epoch)+time.Second)/(10*time.Millisecond))]
	// (The estimate runs from admission, so a background call's wait for
	// its token, backgroundLead at most, counts.)
	if want := inFlightHeadroom*perSecond*(100*time.Millisecond+backgroundLead).Seconds() + minInFlight + 1; float64(justAfter) > want {
		t.Errorf("a second after Konnect slowed down, %d requests in flight, want at most %.0f (the cap of 100 ms answers)", justAfter, want)
	}
	// Once the estimate has followed, the ceiling is reached and the
	// organisation gets what that many requests give at 5 s each.
	if rate := run.rateBetween(epoch, 30*time.Second, 40*time.Second); rate < 0.9*float64(ceiling)/5 {
		t.Errorf("%.1f answers/s once the estimate followed, want about %d requests / 5 s", rate, ceiling)
	}
}

// TestAStatedBudgetWithoutEndRaisesNeitherRateNorRequestsInFlightWithoutEnd:
// a server stating a budget of a billion requests a minute gets
// maxStatedRequestsPerSecond, and the requests in flight stay within
// maxInFlight however slowly it answers.
func TestAStatedBudgetWithoutEndRaisesNeitherRateNorRequestsInFlightWithoutEnd(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	l := newLimiter(clk, 0, 20)
	stated := http.Header{}
	stated.Set("X-RateLimit-Limit-Minute", "1000000000")
	l.observe(http.StatusOK, stated)
	if got := l.currentRate(); got != maxStatedRequestsPerSecond {
		t.Errorf("rate %.0f/s after a stated billion a minute, want %d/s", got, maxStatedRequestsPerSecond)
	}
	run := playBacklog(t, l, clk, 20000, 10*time.Second, func(time.Time) time.Duration { return 3 * time.Second })
	worst := 0
	for _, v := range run.inFlight {
		worst = max(worst, v)
	}
	if worst > maxInFlight+1 || worst < maxInFlight/2 { // +1: a sample between an admit and its permit's count
		t.Errorf("%d requests in flight at most, want up to maxInFlight (%d) and no more", worst, maxInFlight)
	}
}
