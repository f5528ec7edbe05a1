package controller

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// TestUserChangesCallKonnectInTheForeground: the reconcile of an object its
// user changed calls Konnect in the rate limiter's foreground lane; that of
// a new object, periodic work or a dependency's change does not, and the
// mark lasts for one reconcile.
func TestUserChangesCallKonnectInTheForeground(t *testing.T) {
	foreground := map[string]bool{}
	c := &Controller[svc]{
		queue:    workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]()),
		fresh:    workqueue.NewTypedDelayingQueue[cache.ObjectName](),
		later:    workqueue.NewTypedDelayingQueue[cache.ObjectName](),
		workers:  1,
		wake:     make(chan struct{}, 1),
		changed:  map[cache.ObjectName]struct{}{},
		throttle: newThrottleBackoff[cache.ObjectName](),
		reconciler: ReconcilerFunc(func(ctx context.Context, key cache.ObjectName) (Result, error) {
			foreground[key.Name] = konnect.IsForeground(ctx)
			return Result{}, nil
		}),
	}
	name := func(n string) cache.ObjectName { return cache.ObjectName{Namespace: "ns", Name: n} }
	c.enqueueChange(name("changed"))
	c.Enqueue(name("dependent"))
	for _, lower := range []string{"new", "periodic"} {
		c.queue.Add(name(lower)) // as the feeder moves them
	}
	for c.queue.Len() > 0 {
		c.processNextItem(context.Background())
	}
	want := map[string]bool{"changed": true, "dependent": false, "new": false, "periodic": false}
	for key, fg := range want {
		if foreground[key] != fg {
			t.Errorf("%s reconciled in the foreground: %v, want %v", key, foreground[key], fg)
		}
	}
	c.Enqueue(name("changed"))
	c.processNextItem(context.Background())
	if foreground["changed"] {
		t.Error("the mark of a change outlived its reconcile")
	}
}

// TestFeederServesUserChangesFirst: the feeder hands the workers new
// objects before periodic work, and neither while the queue already holds
// one item per worker, so that a user's change is never behind them; it
// needs no polling, as the tiers hand their items over once ready.
func TestFeederServesUserChangesFirst(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &Controller[svc]{
		queue:   workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]()),
		fresh:   workqueue.NewTypedDelayingQueue[cache.ObjectName](),
		later:   workqueue.NewTypedDelayingQueue[cache.ObjectName](),
		workers: 2,
		wake:    make(chan struct{}, 1),
		changed: map[cache.ObjectName]struct{}{},
	}
	name := func(n string) cache.ObjectName { return cache.ObjectName{Namespace: "ns", Name: n} }
	c.enqueueLater(name("periodic"))
	c.enqueueFresh(name("new-1"))
	c.enqueueFresh(name("new-2"))
	c.enqueueFresh(name("new-3"))
	c.enqueueChange(name("changed"))

	var wg sync.WaitGroup
	defer wg.Wait()
	defer c.later.ShutDown()
	defer c.fresh.ShutDown()
	defer cancel()
	c.pump(&wg, c.fresh, true)
	c.pump(&wg, c.later, false)
	waitFor(t, "the tiers' items to be ready", func() bool { return c.ready.len() == 4 })
	wg.Go(func() { c.feedReady(ctx) })

	take := func() string {
		waitFor(t, "an item in the queue", func() bool { return c.queue.Len() > 0 })
		key, _ := c.queue.Get()
		c.queue.Done(key)
		c.poke()
		return key.Name
	}
	waitFor(t, "the feeder to fill the queue", func() bool { return c.queue.Len() == c.workers })
	if got := []string{take(), take()}; got[0] != "changed" || got[1] != "new-1" {
		t.Fatalf("workers got %v, want the user's change first, then one new object to fill the second worker", got)
	}
	if got := []string{take(), take(), take()}; got[0] != "new-2" || got[1] != "new-3" || got[2] != "periodic" {
		t.Fatalf("then %v, want the new objects before the periodic work", got)
	}
	// A delay that runs out reaches the queue without any poll.
	c.later.AddAfter(name("resync"), 10*time.Millisecond)
	if got := take(); got != "resync" {
		t.Fatalf("then %q, want the delayed item", got)
	}
}

func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.Gosched()
	}
}
