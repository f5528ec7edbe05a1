// Package skipclock provides a clock that runs in real time and that a test
// can move forward: integration tests, where real API servers, informers
// and HTTP calls need real time to pass, skip the waits that only the
// operator's own clock decides (sync periods, grace periods, backoffs)
// instead of sleeping through them.
package skipclock

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Clock is the real clock plus however far it has been stepped. Timers and
// tickers fire when enough real time has passed, or as soon as a step carries
// the clock past their time.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
	// stepped is closed, and replaced, at every step: waiters wake up and
	// look at the clock again.
	stepped chan struct{}
}

var _ clock.WithTickerAndDelayedExecution = &Clock{}

// New returns a clock that shows the real time until it is stepped.
func New() *Clock { return &Clock{stepped: make(chan struct{})} }

// Step moves the clock forward by d.
func (c *Clock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
	close(c.stepped)
	c.stepped = make(chan struct{})
}

// Offset is how far the clock has been stepped in all.
func (c *Clock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}

// Now returns the real time plus the steps taken.
func (c *Clock) Now() time.Time {
	now, _ := c.read()
	return now
}

// Since returns the time elapsed on this clock since t.
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *Clock) read() (time.Time, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset), c.stepped
}

// waitUntil blocks until the clock shows at least at, and returns the time
// then; ok is false when stop closed first.
func (c *Clock) waitUntil(at time.Time, stop <-chan struct{}) (now time.Time, ok bool) {
	for {
		now, stepped := c.read()
		if !now.Before(at) {
			return now, true
		}
		later := time.NewTimer(at.Sub(now))
		select {
		case <-later.C:
		case <-stepped:
		case <-stop:
			later.Stop()
			return time.Time{}, false
		}
		later.Stop()
	}
}

// After returns a channel that receives the time once d has passed.
func (c *Clock) After(d time.Duration) <-chan time.Time { return c.NewTimer(d).C() }

// Sleep blocks until d has passed on this clock.
func (c *Clock) Sleep(d time.Duration) { <-c.After(d) }

// Tick returns the channel of a ticker that is never stopped.
func (c *Clock) Tick(d time.Duration) <-chan time.Time { return c.NewTicker(d).C() }

// NewTimer returns a timer that fires once d has passed on this clock.
func (c *Clock) NewTimer(d time.Duration) clock.Timer {
	t := &timer{clock: c, c: make(chan time.Time, 1)}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.startLocked(d, nil)
	return t
}

// AfterFunc runs f in its own goroutine once d has passed on this clock.
func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := &timer{clock: c}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.startLocked(d, f)
	return t
}

type timer struct {
	clock *Clock
	c     chan time.Time
	mu    sync.Mutex
	// stop ends the current wait; nil when the timer is not running.
	stop chan struct{}
	fn   func()
}

func (t *timer) startLocked(d time.Duration, fn func()) {
	at := t.clock.Now().Add(d)
	stop := make(chan struct{})
	t.stop, t.fn = stop, fn
	go func() {
		now, ok := t.clock.waitUntil(at, stop)
		if !ok {
			return
		}
		t.mu.Lock()
		if t.stop != stop { // stopped or reset meanwhile
			t.mu.Unlock()
			return
		}
		t.stop = nil
		fn := t.fn
		t.mu.Unlock()
		if fn != nil {
			fn()
			return
		}
		select {
		case t.c <- now:
		default:
		}
	}()
}

// C returns the timer's channel.
func (t *timer) C() <-chan time.Time { return t.c }

// Stop stops the timer and reports whether it was running.
func (t *timer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopLocked()
}

func (t *timer) stopLocked() bool {
	if t.stop == nil {
		return false
	}
	close(t.stop)
	t.stop = nil
	return true
}

// Reset restarts the timer for d and reports whether it was running.
func (t *timer) Reset(d time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	running := t.stopLocked()
	t.startLocked(d, t.fn)
	return running
}

// NewTicker returns a ticker that ticks every d on this clock. A step over
// several periods ticks once, as a slow receiver of a real ticker sees.
func (c *Clock) NewTicker(d time.Duration) clock.Ticker {
	tk := &ticker{c: make(chan time.Time, 1), stop: make(chan struct{})}
	next := c.Now().Add(d)
	go func() {
		for {
			now, ok := c.waitUntil(next, tk.stop)
			if !ok {
				return
			}
			select {
			case tk.c <- now:
			default:
			}
			next = next.Add(d)
			if !next.After(now) {
				next = now.Add(d)
			}
		}
	}()
	return tk
}

type ticker struct {
	c        chan time.Time
	stop     chan struct{}
	stopOnce sync.Once
}

// C returns the ticker's channel.
func (t *ticker) C() <-chan time.Time { return t.c }

// Stop stops the ticker.
func (t *ticker) Stop() { t.stopOnce.Do(func() { close(t.stop) }) }
