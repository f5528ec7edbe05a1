package controller

import (
	"context"
	"testing"

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
// one item per worker, so that a user's change is never behind them.
func TestFeederServesUserChangesFirst(t *testing.T) {
	c := &Controller[svc]{
		queue:   workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]()),
		fresh:   workqueue.NewTypedDelayingQueue[cache.ObjectName](),
		later:   workqueue.NewTypedDelayingQueue[cache.ObjectName](),
		workers: 2,
		wake:    make(chan struct{}, 1),
	}
	name := func(n string) cache.ObjectName { return cache.ObjectName{Namespace: "ns", Name: n} }
	c.enqueueLater(name("periodic"))
	c.enqueueFresh(name("new-1"))
	c.enqueueFresh(name("new-2"))
	c.enqueueFresh(name("new-3"))
	c.Enqueue(name("changed"))

	var order []string
	for c.queue.Len() < c.workers {
		key, ok := c.nextLower()
		if !ok {
			break
		}
		c.queue.Add(key)
	}
	for c.queue.Len() > 0 {
		key, _ := c.queue.Get()
		order = append(order, key.Name)
		c.queue.Done(key)
	}
	want := []string{"changed", "new-1"}
	if len(order) != len(want) || order[0] != want[0] || order[1] != want[1] {
		t.Fatalf("workers got %v, want %v: the user's change first, then one new object to fill the second worker", order, want)
	}
	var rest []string
	for {
		key, ok := c.nextLower()
		if !ok {
			break
		}
		rest = append(rest, key.Name)
	}
	if len(rest) != 3 || rest[2] != "periodic" {
		t.Fatalf("then %v, want the new objects before the periodic work", rest)
	}
}
