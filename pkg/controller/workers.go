package controller

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Workers follow the work, and Konnect's budget decides the pace.
//
// A controller has no fixed pool: a dispatcher takes each item from the
// queue as soon as fewer than Options.Workers reconciles run, and
// reconciles it on a goroutine of its own, so that a kind with nothing to
// do costs nothing and a busy one gets as many workers as its work needs,
// up to that ceiling (--workers-per-kind), which protects the API server
// and the process.
//
// What a kind's work needs is set by Konnect, not by the ceiling: every
// reconcile calls Konnect with a context from konnect.WithDeferral, so that
// no worker ever sleeps on an organisation's rate limiter. A call that
// cannot be sent within konnect.MaxInlineWait (its limiter is paused
// after a 429, its window is spent, its pace or its requests in flight
// allow no more now) is not sent: the reconcile ends with a
// RateLimitedError, and the object is requeued for exactly the moment the
// limiter gave as its turn, without counting a failure, as after a 429.
// When it comes back its reconcile calls Konnect with konnect.WithTurn,
// ahead of work that has not waited, and a user's change keeps its
// foreground lane. Meanwhile the worker is free for other objects, of that
// organisation or of another: one organisation's pause or backlog never
// holds the workers that another's work needs. The requests in flight per
// organisation are then what its rate times Konnect's latency needs (see
// pkg/konnect's inflight.go), whatever the mix of kinds, and a backlog
// costs about one reconcile per object that ends at the limiter.

// dispatch hands each item of the queue to a goroutine of its own, with at
// most c.workers running at once, until the queue is shut down; wg counts
// the goroutines.
func (c *Controller[T]) dispatch(ctx context.Context, wg *sync.WaitGroup) {
	slots := make(chan struct{}, c.workers)
	for {
		// A slot first, so that an item waits in the queue (where a
		// user's change can go before it), not in the dispatcher.
		slots <- struct{}{}
		key, shutdown := c.queue.Get()
		if shutdown {
			return
		}
		c.busy.Add(1)
		wg.Go(func() {
			defer func() { <-slots }()
			c.process(ctx, key)
		})
	}
}

// lane marks ctx for the Konnect calls of key's reconcile: deferrable, in
// the foreground for a user's change, and as work whose turn has come for
// an object its limiter deferred last time. waits reports that the object
// was deferred and its turn has not come: another event (a reference that
// changed, a timer of its own) brought it early, and it waits for its turn
// rather than take the place of those before it in line, whose turns the
// budget was planned for; it is requeued for the turn again, as the queue
// keeps only the earliest of an object's delays, which may have been the
// one that brought it now. A user's change does not wait.
func (c *Controller[T]) lane(ctx context.Context, key cache.ObjectName) (_ context.Context, waits bool) {
	c.changedMu.Lock()
	_, changed := c.changed[key]
	turn, deferred := c.turns[key]
	if deferred && !changed {
		if early := turn.Sub(c.clock.Now()); early > 0 {
			c.changedMu.Unlock()
			c.queue.AddAfter(key, early)
			return ctx, true
		}
	}
	delete(c.changed, key)
	delete(c.turns, key)
	c.changedMu.Unlock()
	if deferred {
		ctx = konnect.WithTurn(ctx)
	} else {
		ctx = konnect.WithDeferral(ctx)
	}
	if changed {
		ctx = konnect.WithForeground(ctx)
	}
	return ctx, false
}

// deferUntilTurn requeues key for its turn, keeping its lane: a user's
// change is still one when it comes back.
func (c *Controller[T]) deferUntilTurn(ctx context.Context, key cache.ObjectName, turn time.Duration) {
	c.changedMu.Lock()
	c.turns[key] = c.clock.Now().Add(turn)
	if konnect.IsForeground(ctx) {
		c.changed[key] = struct{}{}
	}
	c.changedMu.Unlock()
	c.queue.AddAfter(key, turn)
}
