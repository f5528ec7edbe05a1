package controller

import (
	"context"
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Objects wait for Konnect, not for their own backoff. When a reconcile
// meets its organisation held (Konnect stopped answering it, or rejects
// its token: see pkg/konnect's hold.go), the object is parked on the hold:
// it leaves the queue without counting a failure and comes back the moment
// the hold ends, with every other object parked on it. The organisation's
// rate limiter paces their calls then, as it paces any backlog; meanwhile
// none of them costs a request, and none waits out a backoff grown during
// the outage. An event of the object (a change, a reference) reconciles it
// as usual meanwhile: it meets the hold again, unsent, and stays parked.

// parking holds a controller's parked objects, by the hold they wait on.
type parking struct {
	mu sync.Mutex
	// byHold is keyed by the release channel of one hold: each hold has a
	// new one.
	byHold map[<-chan struct{}]map[cache.ObjectName]struct{}
	// waiters are the goroutines that wait for a hold's end, one per hold
	// with parked objects.
	waiters sync.WaitGroup
}

// park keeps key until the hold of held ends, then enqueues it; a user's
// change keeps its lane. ctx is the controller's: the wait ends with it.
func (c *Controller[T]) park(ctx context.Context, key cache.ObjectName, held *konnect.HeldError) {
	c.queue.Forget(key)
	c.throttle.Forget(key)
	if konnect.IsForeground(ctx) {
		c.changedMu.Lock()
		c.changed[key] = struct{}{}
		c.changedMu.Unlock()
	}
	released := held.Released()
	p := &c.parked
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byHold == nil {
		p.byHold = map[<-chan struct{}]map[cache.ObjectName]struct{}{}
	}
	keys, waiting := p.byHold[released]
	if !waiting {
		keys = map[cache.ObjectName]struct{}{}
		p.byHold[released] = keys
		p.waiters.Go(func() { c.unparkWhenReleased(ctx, released) })
	}
	keys[key] = struct{}{}
}

// unparkWhenReleased enqueues the objects parked on a hold once it ends
// (or drops them when ctx ends: the queue is shutting down).
func (c *Controller[T]) unparkWhenReleased(ctx context.Context, released <-chan struct{}) {
	select {
	case <-released:
	case <-ctx.Done():
	}
	p := &c.parked
	p.mu.Lock()
	keys := p.byHold[released]
	delete(p.byHold, released)
	p.mu.Unlock()
	if ctx.Err() != nil {
		return
	}
	for key := range keys {
		c.queue.Add(key)
	}
}

// parkedCount is how many objects wait for a hold to end.
func (c *Controller[T]) parkedCount() int {
	p := &c.parked
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, keys := range p.byHold {
		n += len(keys)
	}
	return n
}
