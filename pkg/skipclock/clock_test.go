package skipclock

import (
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// patience is how long within waits for what must come at once: only a
// broken clock needs it, so it is long enough for any busy machine.
const patience = time.Minute

// within fails unless ch delivers within patience.
func within[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(patience):
		t.Fatalf("%s: nothing after %s", what, patience)
	}
	var zero T
	return zero
}

// silent fails if ch delivers within d of real time.
func silent[T any](t *testing.T, what string, ch <-chan T, d time.Duration) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("%s fired", what)
	case <-time.After(d):
	}
}

func TestNowFollowsRealTimePlusSteps(t *testing.T) {
	c := New()
	before := time.Now()
	c.Step(time.Hour)
	now := c.Now()
	if now.Before(before.Add(time.Hour)) || now.After(time.Now().Add(time.Hour)) {
		t.Fatalf("Now() = %s, want the real time plus one hour", now)
	}
	if c.Offset() != time.Hour {
		t.Fatalf("Offset() = %s, want 1h", c.Offset())
	}
}

func TestTimerFiresWhenAStepCarriesThePastIt(t *testing.T) {
	c := New()
	created := c.Now()
	timer := c.NewTimer(time.Hour)
	silent(t, "a timer of an hour before any step", timer.C(), 20*time.Millisecond)
	c.Step(59 * time.Minute)
	silent(t, "a timer of an hour after 59 minutes", timer.C(), 20*time.Millisecond)
	c.Step(time.Minute)
	got := within(t, "a timer of an hour after an hour", timer.C())
	if due := created.Add(time.Hour); got.Before(due) {
		t.Fatalf("the timer delivered %s, before its time %s", got, due)
	}
}

func TestTimerFiresInRealTime(t *testing.T) {
	c := New()
	within(t, "a timer of 10ms", c.NewTimer(10*time.Millisecond).C())
}

func TestStoppedTimerNeverFires(t *testing.T) {
	c := New()
	timer := c.NewTimer(time.Minute)
	if !timer.Stop() {
		t.Fatal("Stop of a running timer reported it was not running")
	}
	if timer.Stop() {
		t.Fatal("a second Stop reported a running timer")
	}
	c.Step(time.Hour)
	silent(t, "a stopped timer", timer.C(), 20*time.Millisecond)
}

func TestResetTimerFiresAtItsNewTime(t *testing.T) {
	c := New()
	timer := c.NewTimer(time.Minute)
	timer.Reset(time.Hour)
	c.Step(time.Minute)
	silent(t, "a timer reset to an hour, after a minute", timer.C(), 20*time.Millisecond)
	c.Step(time.Hour)
	within(t, "a timer reset to an hour, after an hour", timer.C())
}

func TestAfterFuncRunsOnStep(t *testing.T) {
	c := New()
	ran := make(chan struct{})
	c.AfterFunc(time.Hour, func() { close(ran) })
	c.Step(time.Hour)
	within(t, "AfterFunc of an hour", ran)
}

func TestTickerTicksOncePerStepOverManyPeriods(t *testing.T) {
	c := New()
	tk := c.NewTicker(time.Minute)
	defer tk.Stop()
	c.Step(10 * time.Minute)
	within(t, "the first tick", tk.C())
	silent(t, "a second tick for the same step", tk.C(), 20*time.Millisecond)
	c.Step(time.Minute)
	within(t, "the tick of the next minute", tk.C())
}

// The work queue's delaying queue is what the operator's queues are built
// on: an item added an hour ahead comes out when the clock is stepped an
// hour, not before.
func TestDelayingQueueHonoursSteps(t *testing.T) {
	c := New()
	q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: c})
	defer q.ShutDown()
	q.AddAfter("item", time.Hour)
	got := make(chan string, 1)
	go func() {
		item, _ := q.Get()
		got <- item
	}()
	silent(t, "an item due in an hour", got, 50*time.Millisecond)
	c.Step(time.Hour)
	if item := within(t, "an item due in an hour, after a step of an hour", got); item != "item" {
		t.Fatalf("got %q", item)
	}
}
