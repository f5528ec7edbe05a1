package controller

import (
	"context"
	"time"

	"k8s.io/client-go/tools/cache"
)

// User changes first. A controller's work comes in three tiers:
//
//  1. the queue itself: changes to an object's spec, labels, annotations,
//     finalizers or deletion, changes of what it refers to, and retries;
//  2. fresh: objects new to the controller (created, or listed at start-up);
//  3. later: periodic work (the rest of a sync period) and the drift
//     lister's corrections.
//
// Workers only take from the queue. A feeder moves work from fresh, then
// from later, into the queue while it holds fewer items than there are
// workers, so that the queue never fills up with work of the lower tiers: a
// user's change waits behind at most one item per worker, never behind a
// backlog of creates of other objects, or of periodic and drift work.
//
// The tiers share the organisation's rate limiter. The reconcile of an
// object its user changed (spec, labels, annotations, deletion) calls
// Konnect in the limiter's foreground lane (konnect.WithForeground), ahead
// of every other call of every controller: a change waits for the calls
// already under way and for other changes, not behind the backlog of
// requests that the workers of all kinds have queued at the limiter.

// feederTick bounds how late the feeder sees work whose delay ran out in
// fresh or later (their AddAfter does not wake it).
const feederTick = 20 * time.Millisecond

// enqueueFresh adds an object new to the controller.
func (c *Controller[T]) enqueueFresh(key cache.ObjectName) {
	c.fresh.Add(key)
	c.poke()
}

// enqueueLater adds periodic or drift work.
func (c *Controller[T]) enqueueLater(key cache.ObjectName) {
	c.later.Add(key)
	c.poke()
}

// enqueueChange adds an object its user changed: first in the queue, and
// first at the rate limiter.
func (c *Controller[T]) enqueueChange(key cache.ObjectName) {
	c.changedMu.Lock()
	c.changed[key] = struct{}{}
	c.changedMu.Unlock()
	c.queue.Add(key)
}

// takeChanged reports whether key was queued for a user's change, and
// clears the mark.
func (c *Controller[T]) takeChanged(key cache.ObjectName) bool {
	c.changedMu.Lock()
	defer c.changedMu.Unlock()
	_, ok := c.changed[key]
	delete(c.changed, key)
	return ok
}

// poke wakes the feeder.
func (c *Controller[T]) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// feed moves work of the lower tiers into the queue until ctx ends.
func (c *Controller[T]) feed(ctx context.Context) {
	defer c.fresh.ShutDown()
	defer c.later.ShutDown()
	tick := time.NewTicker(feederTick)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		case <-tick.C:
		}
		for c.queue.Len() < c.workers {
			key, ok := c.nextLower()
			if !ok {
				break
			}
			c.queue.Add(key)
		}
	}
}

// nextLower takes the next item of fresh, or else of later; only the feeder
// takes from them, so a positive length means Get does not block.
func (c *Controller[T]) nextLower() (cache.ObjectName, bool) {
	for _, q := range []interface {
		Len() int
		Get() (cache.ObjectName, bool)
		Done(cache.ObjectName)
	}{c.fresh, c.later} {
		if q.Len() == 0 {
			continue
		}
		key, shutdown := q.Get()
		if shutdown {
			return key, false
		}
		q.Done(key)
		return key, true
	}
	return cache.ObjectName{}, false
}
