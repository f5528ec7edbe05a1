// Package fence keeps a process that may have lost its leader-election
// Lease from writing. client-go's leader election does not fence: a leader
// paused past its Lease (SIGSTOP, a frozen VM, a node under memory
// pressure) wakes up believing it leads, and its workers write what they
// held before, while another process leads and writes too. Kubernetes' own
// controllers bound their work by the renew deadline; so does this
// package: before every write, the process asks its own clock how long
// ago the last renewal of its Lease that succeeded began, and writes only
// while that is less than the renew deadline. The Lease is valid for the
// others until at least that renewal's start plus the lease duration, so
// the margin is the lease duration minus the renew deadline (5 seconds
// with the default flags). Once a write is refused for it, or a renewal
// comes after such a gap, the Lease is lost for good: the process stops,
// as it does when client-go says it stopped leading.
package fence

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Lease is this process's hold on its leader-election Lease, as its own
// clock sees it. It is safe for concurrent use.
type Lease struct {
	clock    clock.PassiveClock
	deadline time.Duration

	mu sync.Mutex
	// renewedAt is when the last successful renewal (or acquisition)
	// began; held says there was one.
	renewedAt time.Time
	held      bool
	lostErr   error
	lost      chan struct{}
}

// New returns a Lease not held yet, whose writes stop renewDeadline after
// the last renewal that succeeded began, by clk (nil: the real clock, whose
// readings carry Go's monotonic clock).
func New(clk clock.PassiveClock, renewDeadline time.Duration) *Lease {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Lease{clock: clk, deadline: renewDeadline, lost: make(chan struct{})}
}

// Renewed records that a renewal (or the acquisition) of the Lease begun
// at start succeeded. A renewal that comes longer than the renew deadline
// after the last one does not hold the Lease again: another process may
// have led meanwhile, and what this one holds in memory may be stale.
func (l *Lease) Renewed(start time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lostErr != nil {
		return
	}
	if l.held {
		if gap := elapsed(l.renewedAt, start); gap >= l.deadline {
			l.loseLocked(&LostError{Elapsed: gap, Deadline: l.deadline, Renewal: true})
			return
		}
	}
	if !l.held || start.After(l.renewedAt) {
		l.renewedAt = start
	}
	l.held = true
}

// Check returns nil while the Lease is held with margin: its last
// successful renewal began less than the renew deadline ago, by the
// process's monotonic clock and by its wall clock (a suspended machine's
// monotonic clock does not count the suspension). Otherwise it returns a
// *LostError, and the Lease is lost for good.
func (l *Lease) Check() error {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.lostErr != nil:
		return l.lostErr
	case !l.held:
		return errNotHeld
	}
	if since := elapsed(l.renewedAt, now); since >= l.deadline {
		l.loseLocked(&LostError{Elapsed: since, Deadline: l.deadline})
		return l.lostErr
	}
	return nil
}

// Lost is closed once the Lease is lost: the process must stop.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Err is why the Lease was lost, nil while it is not.
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostErr
}

func (l *Lease) loseLocked(err error) {
	l.lostErr = err
	close(l.lost)
}

// elapsed is the time from from to to, by the monotonic clock when both
// carry it and by the wall clock, whichever is longer.
func elapsed(from, to time.Time) time.Duration {
	return max(to.Sub(from), to.Round(0).Sub(from.Round(0)))
}

// LostError says why a write was refused: the Lease may have been lost.
type LostError struct {
	// Elapsed is how long ago the last successful renewal began;
	// Deadline is the renew deadline it passed.
	Elapsed, Deadline time.Duration
	// Renewal says that a renewal came after the gap, rather than a write.
	Renewal bool
}

func (e *LostError) Error() string {
	return fmt.Sprintf("the leader-election Lease may have been lost: its last renewal began %s ago, past the renew deadline of %s (the process was paused, or could not reach the API server); this process writes nothing more and stops",
		e.Elapsed.Round(time.Millisecond), e.Deadline)
}

// errNotHeld refuses a write before the Lease was ever held.
var errNotHeld = fmt.Errorf("the leader-election Lease is not held: this process writes nothing")
