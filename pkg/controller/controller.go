package controller

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// Result tells the loop what to do after a successful reconcile.
type Result struct {
	// RequeueAfter, when positive, reconciles the object again after this
	// long (the sync period, or the rest of it).
	RequeueAfter time.Duration
}

// Reconciler brings one object to its desired state.
type Reconciler interface {
	Reconcile(ctx context.Context, key cache.ObjectName) (Result, error)
}

// ReconcilerFunc adapts a function to Reconciler.
type ReconcilerFunc func(ctx context.Context, key cache.ObjectName) (Result, error)

// Reconcile implements Reconciler.
func (f ReconcilerFunc) Reconcile(ctx context.Context, key cache.ObjectName) (Result, error) {
	return f(ctx, key)
}

// Options configure a Controller.
type Options struct {
	// Workers is the most items reconciled at once: a ceiling, not a pool
	// (see workers.go). Default 1.
	Workers int
	// MetricsProvider reports the work queue's state.
	MetricsProvider workqueue.MetricsProvider
	// Metrics counts and times reconciles.
	Metrics *metrics.ControllerMetrics
	// RateLimiter spaces out retries of failing items. Default: per-item
	// exponential backoff from 50ms to 5 minutes.
	RateLimiter workqueue.TypedRateLimiter[cache.ObjectName]
	// Clock times the queues' delays; default the real clock.
	Clock clock.WithTicker
}

// backgroundRunner is a reconciler with work of its own besides the queue
// (the EntityReconciler's drift lister), run while the workers run.
type backgroundRunner interface {
	RunBackground(ctx context.Context, enqueue func(cache.ObjectName))
}

// Controller runs the work queue of one kind.
type Controller[T Object] struct {
	kind       string
	informer   *Informer[T]
	queue      workqueue.TypedRateLimitingInterface[cache.ObjectName]
	reconciler Reconciler
	workers    int
	metrics    *metrics.ControllerMetrics
	sources    []EventSource
	// throttle is the per-item backoff of 429s that named no delay (about
	// 1s, 2s, 4s … up to 30s, jittered); kept apart from the queue's
	// failure backoff because a 429 is no failure.
	throttle workqueue.TypedRateLimiter[cache.ObjectName]
	// fresh and later hold work that yields to user changes (see tiers.go):
	// new objects, and periodic or drift work.
	fresh, later workqueue.TypedDelayingInterface[cache.ObjectName]
	ready        readyItems
	wake         chan struct{}
	// changed holds the queued objects that a user changed: their Konnect
	// calls go first at the rate limiter (see tiers.go). turns holds, for
	// those whose last attempt the limiter deferred, when their turn comes
	// (see workers.go).
	changedMu sync.Mutex
	changed   map[cache.ObjectName]struct{}
	turns     map[cache.ObjectName]time.Time
	// parked holds the objects waiting for their organisation's hold to
	// end (see park.go).
	parked parking
	clock  clock.Clock
	// handlersSynced report whether the controller's handlers have been
	// given the informers' initial lists.
	handlersSynced []func() bool
	// started is set once the workers run; busy counts the items being
	// reconciled.
	started atomic.Bool
	busy    atomic.Int32
}

// New returns a controller for kind that enqueues an object whenever its
// generation, labels, annotations, finalizers or deletion timestamp change.
// Status-only updates are ignored. Register dependencies with Watch before
// the informers start.
func New[T Object](kind string, informer *Informer[T], reconciler Reconciler, opts Options) (*Controller[T], error) {
	return newController(kind, informer, nil, reconciler, opts)
}

func newController[T Object](kind string, informer *Informer[T], concerns Concerns[T], reconciler Reconciler, opts Options) (*Controller[T], error) {
	if opts.Workers < 1 {
		opts.Workers = 1
	}
	rateLimiter := opts.RateLimiter
	if rateLimiter == nil {
		rateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](50*time.Millisecond, 5*time.Minute)
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	lowerTier := func(name string) workqueue.TypedDelayingInterface[cache.ObjectName] {
		return workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[cache.ObjectName]{Name: kind + "-" + name, Clock: opts.Clock})
	}
	c := &Controller[T]{
		kind:     kind,
		throttle: newThrottleBackoff[cache.ObjectName](),
		informer: informer,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter, workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{
			Name:            kind,
			MetricsProvider: opts.MetricsProvider,
			Clock:           opts.Clock,
		}),
		reconciler: reconciler,
		workers:    opts.Workers,
		metrics:    opts.Metrics,
		fresh:      lowerTier("new"),
		later:      lowerTier("periodic"),
		wake:       make(chan struct{}, 1),
		changed:    map[cache.ObjectName]struct{}{},
		turns:      map[cache.ObjectName]time.Time{},
		clock:      opts.Clock,
	}
	opts.Metrics.InitController(kind, opts.Workers)
	concerned := func(obj T) bool { return concerns == nil || concerns(obj) }
	synced, err := informer.AddEventHandler(cache.TypedResourceEventHandlerFuncs[T]{
		AddFunc: func(obj T) {
			if concerned(obj) {
				c.enqueueFresh(cache.MetaObjectToName(obj))
			}
		},
		UpdateFunc: func(oldObj, newObj T) {
			if specOrMetadataChanged(oldObj, newObj) && (concerned(oldObj) || concerned(newObj)) {
				c.enqueueChange(cache.MetaObjectToName(newObj))
			}
		},
		DeleteFunc: func(obj cache.DeletedObject[T]) {
			// A final state that is unknown (missed while the watch was
			// down) may have concerned the controller.
			if obj.FinalStateUnknown != nil || concerned(obj.OptionalObj) {
				c.enqueueChange(obj.GetObjectName())
			}
		},
	})
	if err != nil {
		return nil, err
	}
	c.handlersSynced = append(c.handlersSynced, synced)
	return c, nil
}

// specOrMetadataChanged reports whether an update is one the loop acts on.
// Status-only updates (the operator's own status writes among them) are not;
// nor is a change of finalizers before deletion (the echo of the cleanup
// finalizer the loop adds before a create: reconciling it again would only
// write the status a second time). While an object is being deleted its
// finalizers count: another controller's going may be what it waits for.
func specOrMetadataChanged(oldObj, newObj metav1.Object) bool {
	deleting := newObj.GetDeletionTimestamp() != nil
	return oldObj.GetGeneration() != newObj.GetGeneration() ||
		!reflect.DeepEqual(oldObj.GetLabels(), newObj.GetLabels()) ||
		!reflect.DeepEqual(oldObj.GetAnnotations(), newObj.GetAnnotations()) ||
		deleting && !reflect.DeepEqual(oldObj.GetFinalizers(), newObj.GetFinalizers()) ||
		!oldObj.GetDeletionTimestamp().Equal(newObj.GetDeletionTimestamp())
}

// Enqueue adds key to the queue now.
func (c *Controller[T]) Enqueue(key cache.ObjectName) { c.queue.Add(key) }

// Kind returns the kind the controller reconciles.
func (c *Controller[T]) Kind() string { return c.kind }

// idler is a reconciler with work of its own (the drift lister) that can
// say whether it has any at hand.
type idler interface{ Idle() bool }

// Idle reports whether the controller has no work at hand: nothing queued
// or ready to be, nothing being reconciled, nothing being listed. Work
// waiting for its time (the rest of a sync period, a backoff) does not
// count. Tests wait for it instead of sleeping.
func (c *Controller[T]) Idle() bool {
	if !c.started.Load() || c.queue.Len() > 0 || c.busy.Load() > 0 || c.ready.len() > 0 || c.fresh.Len() > 0 || c.later.Len() > 0 {
		return false
	}
	i, ok := c.reconciler.(idler)
	return !ok || i.Idle()
}

// HasSynced reports whether the controller's own informer and every
// dependency's informer have synced.
func (c *Controller[T]) HasSynced() bool {
	if !c.informer.HasSynced() {
		return false
	}
	for _, s := range c.sources {
		if !s.HasSynced() {
			return false
		}
	}
	for _, synced := range c.handlersSynced {
		if !synced() {
			return false
		}
	}
	return true
}

// Run waits for the caches, runs the workers until ctx is cancelled, then
// shuts the queue down and waits for the workers to finish what they took.
func (c *Controller[T]) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithValues("controller", c.kind)
	ctx = klog.NewContext(ctx, logger)
	defer utilruntime.HandleCrashWithContext(ctx)

	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.HasSynced) {
		c.queue.ShutDown()
		return fmt.Errorf("%s: caches did not sync: %w", c.kind, context.Cause(ctx))
	}
	if s, ok := c.reconciler.(interface{ Started(time.Time) }); ok {
		s.Started(time.Now())
	}
	logger.Info("Starting workers", "count", c.workers)
	var wg sync.WaitGroup
	if b, ok := c.reconciler.(backgroundRunner); ok {
		// The drift lister; it stops with ctx, before the queue drains.
		wg.Go(func() { b.RunBackground(ctx, c.enqueueLater) })
	}
	wg.Go(func() { c.feed(ctx) })
	wg.Go(func() { c.dispatch(ctx, &wg) })
	c.started.Store(true)
	<-ctx.Done()
	logger.Info("Shutting down workers")
	c.queue.ShutDownWithDrain()
	wg.Wait()
	c.parked.waiters.Wait()
	return nil
}

// processNextItem takes the next item from the queue and reconciles it; it
// reports false once the queue is shut down.
func (c *Controller[T]) processNextItem(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	c.busy.Add(1)
	c.process(ctx, key)
	return true
}

// process reconciles key, taken from the queue and counted busy by the
// caller, and decides what happens to it next.
func (c *Controller[T]) process(ctx context.Context, key cache.ObjectName) {
	defer func() {
		c.queue.Done(key)
		c.busy.Add(-1)
		// A worker is free: the feeder may hand the queue waiting work. It
		// counts the busy workers, so the poke comes after the count.
		c.poke()
	}()
	c.poke() // the queue has room: the feeder may hand it waiting work

	logger := klog.FromContext(ctx).WithValues("object", key)
	ctx, waits := c.lane(klog.NewContext(ctx, logger), key)
	if waits {
		return
	}
	free := c.metrics.WorkerBusy(c.kind)
	start := time.Now()
	result, err := c.reconcile(ctx, key)
	took := time.Since(start)
	free()
	c.metrics.ObserveReconcile(c.kind, c.handleResult(ctx, key, result, err), took)
}

// reconcile runs the reconciler and turns a panic into a PanicError: one
// object whose reconcile panics is retried with backoff like any failure,
// and the worker, the other kinds and the process go on.
func (c *Controller[T]) reconcile(ctx context.Context, key cache.ObjectName) (result Result, err error) {
	defer func() {
		if recovered := recover(); recovered != nil {
			err = &PanicError{Value: recovered, Stack: debug.Stack()}
			c.metrics.Panicked(c.kind)
		}
	}()
	return c.reconciler.Reconcile(ctx, key)
}

// handleResult decides what happens to key after a reconcile and returns
// how it ended, for the metrics.
func (c *Controller[T]) handleResult(ctx context.Context, key cache.ObjectName, result Result, err error) metrics.Outcome {
	logger := klog.FromContext(ctx)
	var rateLimited *RateLimitedError
	var permanent *PermanentError
	var panicked *PanicError
	held, isHeld := konnect.IsHeld(err)
	switch {
	case isHeld:
		// Konnect does not answer the organisation, or rejects its token:
		// the object waits for the hold to end, not for a backoff.
		logger.V(4).Info("Waiting for the organisation's hold to end", "reason", held.Reason, "since", held.Since)
		c.park(ctx, key, held)
		return metrics.Outcome{Result: metrics.ResultHeld}
	case err == nil:
		c.queue.Forget(key)
		c.throttle.Forget(key)
		if result.RequeueAfter > 0 {
			// Periodic work yields to user changes.
			c.later.AddAfter(key, result.RequeueAfter)
		}
		return metrics.Outcome{Result: metrics.ResultSuccess, Scheduled: result.RequeueAfter > 0}
	case errors.As(err, &rateLimited):
		if turn, deferred := konnect.IsDeferred(err); deferred {
			// Not sent: the organisation's turn for it comes later, and
			// the worker takes other work meanwhile (see workers.go).
			logger.V(4).Info("Waiting for the organisation's turn", "delay", turn)
			c.deferUntilTurn(ctx, key, turn)
			return metrics.Outcome{Result: metrics.ResultRateLimited}
		}
		// A 429 is Konnect asking us to wait, not a failure: the failure
		// backoff does not grow. When Konnect named no delay, this object
		// waits a little longer each time it is refused.
		delay := rateLimited.Delay
		if delay <= 0 {
			delay = c.throttle.When(key)
		}
		logger.V(2).Info("Konnect rate limit reached; waiting", "delay", delay, "delayFromKonnect", rateLimited.Delay > 0)
		c.queue.AddAfter(key, delay)
		return metrics.Outcome{Result: metrics.ResultRateLimited}
	case errors.As(err, &permanent):
		c.queue.Forget(key)
		c.throttle.Forget(key)
		logger.V(2).Info("Not retrying until something changes", "err", err, "retryAfter", permanent.RetryAfter)
		if permanent.RetryAfter > 0 {
			c.queue.AddAfter(key, permanent.RetryAfter)
		}
		return metrics.Outcome{Result: metrics.ResultError, Terminal: true}
	case errors.As(err, &panicked):
		// Logged at once, whatever the error rate limit: a panic is a bug
		// to report, with where it happened.
		logger.Error(err, "Reconcile panicked; retrying with backoff", "stack", string(panicked.Stack))
		c.queue.AddRateLimited(key)
		return metrics.Outcome{Result: metrics.ResultError}
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		// Our cached copy was stale (the object changed or went away); the
		// next attempt reads the new one.
		logger.V(4).Info("Object changed while reconciling; retrying", "err", err)
		c.queue.AddRateLimited(key)
		return metrics.Outcome{Result: metrics.ResultRequeue}
	default:
		utilruntime.HandleErrorWithContext(ctx, err, "Reconcile failed; retrying with backoff", "kind", c.kind, "object", key)
		c.queue.AddRateLimited(key)
		return metrics.Outcome{Result: metrics.ResultError}
	}
}
