package konnect

import (
	"context"
	"slices"
	"sync/atomic"
	"time"
)

// No worker waits for an organisation's budget. The operator reconciles
// from pools of workers shared by every organisation; a worker that slept
// in one organisation's limiter (a 429's pause, a spent window, a slow pace)
// would be a worker the others lose. So a call made with a context from
// WithDeferral is sent within MaxInlineWait, or not at all: it returns at
// once a *RateLimitedError with Deferred set and RetryAfter naming the
// call's turn, without having been sent. The controller requeues the object
// for that moment, as it does after a 429 (no failure is counted), and the
// worker takes other work meanwhile, of this organisation or of another.
//
// Turns are handed out in line: the first call deferred comes back when the
// organisation can send again (its limiter's pause ends, its next token is due), each
// next one a token's spacing (1/rate) later, so that a backlog comes back at
// the pace it can be sent at instead of all at once, and each object is
// reconciled about once for nothing; when it comes back (WithTurn), it
// goes before calls that have not waited. A call whose turn is within
// MaxInlineWait waits for it inline instead. The second and later calls of
// one reconcile (a lookup, then the write) go first too, so that work once
// begun is finished. A user's change (WithForeground) is not put in line:
// its turn is the moment the organisation can send again, where it goes
// first, as it does at the limiter.
//
// Calls without WithDeferral (kubectl konnect) wait as long as the limiter
// says, as they always did.

// MaxInlineWait is the longest a deferrable call waits in its
// organisation's limiter: the spacing of a few tokens at Konnect's rates (a
// token every 20 ms at 3,000 requests a minute), far below a second. Any
// longer wait is a turn instead. A background call may wait backgroundLead
// more for the token it reserved at the end of that time.
const MaxInlineWait = 250 * time.Millisecond

// deferral is the state of one deferrable unit of work (a reconcile, a
// listing) across its calls.
type deferral struct {
	// started is set once one of its calls was admitted: the later ones
	// finish the work that call began, and go first.
	started atomic.Bool
	// turnCome is set when the work waited for its turn in line (deferred
	// before, or waiting inline) and that turn has come: it goes before
	// calls that have not waited, rather than to the end of the line.
	turnCome atomic.Bool
}

type deferralKey struct{}

// WithDeferral marks ctx's Konnect calls as calls of one unit of work (a
// reconcile) that must not wait for its organisation's budget: each is sent
// within MaxInlineWait or refused at once with a *RateLimitedError whose
// Deferred is set and whose RetryAfter is the call's turn. Call it once per
// unit of work: a call after the first one admitted is served first.
func WithDeferral(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferralKey{}, &deferral{})
}

// WithTurn is WithDeferral for work whose turn has come: its last attempt
// was deferred, and it comes back at the turn it was given. Its first call
// goes before calls that have not waited (within MaxInlineWait), instead of
// taking a new turn at the end of the line.
func WithTurn(ctx context.Context) context.Context {
	d := &deferral{}
	d.turnCome.Store(true)
	return context.WithValue(ctx, deferralKey{}, d)
}

func deferralOf(ctx context.Context) *deferral {
	d, _ := ctx.Value(deferralKey{}).(*deferral)
	return d
}

// IsDeferrable reports whether ctx's work must not wait (WithDeferral,
// WithTurn): what it would wait for, it is given a turn for instead.
func IsDeferrable(ctx context.Context) bool { return deferralOf(ctx) != nil }

// lane is how a deferrable call is served.
type lane int

const (
	// laneBackground: new work; it reserves a token only when it is due
	// within backgroundLead, and otherwise takes a turn in line.
	laneBackground lane = iota
	// laneTurn: work whose turn in line has come; it too reserves a token
	// only when it is due within backgroundLead, but waits for that inline
	// (within MaxInlineWait) rather than going to the end of the line.
	laneTurn
	// laneContinuation: the second and later calls of work whose first
	// call was admitted; as laneTurn, and not kept back by the in-flight
	// cap, so that work once begun is finished.
	laneContinuation
	// laneForeground: a user's change; it reserves a token at once when it
	// is due within MaxInlineWait, so that it waits behind no more than
	// backgroundLead of other work, and a deferred one's turn is outside
	// the line, the moment the organisation can send again.
	laneForeground
)

// laneOf is the lane of a call of ctx.
func laneOf(ctx context.Context) lane {
	d := deferralOf(ctx)
	switch {
	case IsForeground(ctx):
		return laneForeground
	case d != nil && d.started.Load():
		return laneContinuation
	case d != nil && d.turnCome.Load():
		return laneTurn
	default:
		return laneBackground
	}
}

// turnLine hands out the turns of an organisation's deferred calls.
type turnLine struct {
	// next is the first turn not handed out yet.
	next time.Time
	// pending are the turns handed out that have not come yet, in order;
	// their count is the organisation's calls waiting for their turn.
	pending []time.Time
}

// take hands out the next turn in line, not before from, and moves the line
// on by spacing.
func (t *turnLine) take(from time.Time, spacing time.Duration) time.Time {
	turn := from
	if t.next.After(turn) {
		turn = t.next
	}
	t.next = turn.Add(spacing)
	t.record(turn)
	return turn
}

// outOfLine records a turn given outside the line (a priority call's),
// which the line does not move for.
func (t *turnLine) outOfLine(at time.Time) { t.record(at) }

// record adds a turn to the pending ones, in order; turns in line come
// last, so that it is usually an append.
func (t *turnLine) record(at time.Time) {
	if n := len(t.pending); n == 0 || !t.pending[n-1].After(at) {
		t.pending = append(t.pending, at)
		return
	}
	i, _ := slices.BinarySearchFunc(t.pending, at, time.Time.Compare)
	t.pending = slices.Insert(t.pending, i, at)
}

// trim forgets the turns that have come by now.
func (t *turnLine) trim(now time.Time) {
	n, _ := slices.BinarySearchFunc(t.pending, now, func(turn, now time.Time) int {
		if turn.After(now) {
			return 1
		}
		return -1
	})
	if n == 0 {
		return
	}
	if n == len(t.pending) {
		t.pending = t.pending[:0]
		return
	}
	// Copied down rather than resliced, so that a long line's memory is
	// reused instead of growing behind it.
	t.pending = t.pending[:copy(t.pending, t.pending[n:])]
}

// waiting counts the turns handed out that have not come by now.
func (t *turnLine) waiting(now time.Time) int {
	n, _ := slices.BinarySearchFunc(t.pending, now, func(turn, now time.Time) int {
		if turn.After(now) {
			return 1
		}
		return -1
	})
	return len(t.pending) - n
}
