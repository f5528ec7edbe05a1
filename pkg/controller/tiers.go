package controller

import (
	"context"
	"sync"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
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
// free workers (each lower tier hands its items over as they become ready,
// and workers wake the feeder as they take and finish items), so that the
// queue never fills up with work of the lower tiers: a user's change waits
// behind at most the items the free workers are about to take, never behind
// a backlog of creates of other objects, or of periodic and drift work.
//
// The tiers share the organisation's rate limiter. The reconcile of an
// object its user changed (spec, labels, annotations, deletion) calls
// Konnect in the limiter's foreground lane (konnect.WithForeground), ahead
// of every other call of every controller: a change waits for the calls
// already under way and for other changes, not behind the backlog of
// requests that the workers of all kinds have at the limiter. A change
// whose call is deferred (its organisation's limiter is paused) keeps that lane when
// it comes back (see workers.go).

// enqueueFresh adds an object new to the controller.
func (c *Controller[T]) enqueueFresh(key cache.ObjectName) { c.fresh.Add(key) }

// enqueueLater adds periodic or drift work.
func (c *Controller[T]) enqueueLater(key cache.ObjectName) { c.later.Add(key) }

// enqueueChange adds an object its user changed: first in the queue, and
// first at the rate limiter.
func (c *Controller[T]) enqueueChange(key cache.ObjectName) {
	c.changedMu.Lock()
	c.changed[key] = struct{}{}
	c.changedMu.Unlock()
	c.queue.Add(key)
}

// poke tells the feeder that the queue may have room, or that an item is
// ready.
func (c *Controller[T]) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// readyItems holds the lower tiers' items whose time has come, each once,
// in the order they became ready.
type readyItems struct {
	mu           sync.Mutex
	fresh, later []cache.ObjectName
	queued       map[cache.ObjectName]struct{}
}

func (r *readyItems) add(fresh bool, key cache.ObjectName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.queued[key]; ok {
		return
	}
	if r.queued == nil {
		r.queued = map[cache.ObjectName]struct{}{}
	}
	r.queued[key] = struct{}{}
	if fresh {
		r.fresh = append(r.fresh, key)
	} else {
		r.later = append(r.later, key)
	}
}

// next takes the first ready new object or, when there is none, the first
// ready periodic item.
func (r *readyItems) next() (cache.ObjectName, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, items := range []*[]cache.ObjectName{&r.fresh, &r.later} {
		if len(*items) == 0 {
			continue
		}
		key := (*items)[0]
		*items = (*items)[1:]
		delete(r.queued, key)
		return key, true
	}
	return cache.ObjectName{}, false
}

func (r *readyItems) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.fresh) + len(r.later)
}

// feed moves work of the lower tiers into the queue until ctx ends, and
// returns once the tiers have stopped.
func (c *Controller[T]) feed(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	defer c.later.ShutDown()
	defer c.fresh.ShutDown()
	c.pump(&wg, c.fresh, true)
	c.pump(&wg, c.later, false)
	c.feedReady(ctx)
}

// pump moves a lower tier's items to the ready ones as they become ready
// (a delay that ran out, or an add) and wakes the feeder: a blocking Get is
// what tells, so that nothing polls.
func (c *Controller[T]) pump(wg *sync.WaitGroup, q workqueue.TypedDelayingInterface[cache.ObjectName], fresh bool) {
	wg.Go(func() {
		for {
			key, shutdown := q.Get()
			if shutdown {
				return
			}
			q.Done(key)
			c.ready.add(fresh, key)
			c.poke()
		}
	})
}

// feedReady adds ready items to the queue while it holds fewer items than
// there are free workers; it sleeps until poked (a ready item, a worker
// that took or finished one).
func (c *Controller[T]) feedReady(ctx context.Context) {
	for {
		if c.queue.Len()+int(c.busy.Load()) < c.workers {
			if key, ok := c.ready.next(); ok {
				c.queue.Add(key)
				continue
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
	}
}
