package controller

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2/ktesting"
)

func TestJitteredBackoffGrowsIsCappedAndStartsOver(t *testing.T) {
	tests := []struct {
		name   string
		random float64
		// want are the delays of consecutive When calls.
		want []time.Duration
	}{
		{name: "without jitter it doubles up to the cap", random: 0.5,
			want: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}},
		{name: "the lowest jitter halves each delay", random: 0,
			want: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 15 * time.Second}},
		{name: "the highest jitter stays under the cap", random: 0.999,
			want: []time.Duration{1499 * time.Millisecond, 2998 * time.Millisecond, 5996 * time.Millisecond, 11992 * time.Millisecond, 23984 * time.Millisecond, 30 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newThrottleBackoff[string]()
			b.random = func() float64 { return tt.random }
			for i, want := range tt.want {
				if got := b.When("a").Round(time.Millisecond); got != want {
					t.Errorf("delay %d = %v, want %v", i+1, got, want)
				}
			}
			if got := b.NumRequeues("a"); got != len(tt.want) {
				t.Errorf("NumRequeues = %d, want %d", got, len(tt.want))
			}
			if got := b.When("b").Round(time.Millisecond); got != tt.want[0] {
				t.Errorf("another item's first delay = %v, want %v: items back off on their own", got, tt.want[0])
			}
			b.Forget("a")
			if got := b.When("a").Round(time.Millisecond); got != tt.want[0] {
				t.Errorf("first delay after Forget = %v, want %v", got, tt.want[0])
			}
		})
	}
}

// afterQueue records the delays the loop asks for.
type afterQueue struct {
	workqueue.TypedRateLimitingInterface[cache.ObjectName]
	delays []time.Duration
}

func (q *afterQueue) AddAfter(_ cache.ObjectName, d time.Duration) { q.delays = append(q.delays, d) }

func TestRateLimitedItemsWaitForKonnectsDelayOrBackOff(t *testing.T) {
	limited := func(delay time.Duration) error {
		return &RateLimitedError{Delay: delay, Err: errors.New("create service: rate limited (HTTP 429)")}
	}
	const named = 7 * time.Second
	steps := []struct {
		err       error
		wantDelay time.Duration // 0: no AddAfter
	}{
		{err: limited(0), wantDelay: time.Second},
		{err: limited(0), wantDelay: 2 * time.Second},
		{err: limited(named), wantDelay: named}, // Konnect's own delay, not the backoff's
		{err: limited(0), wantDelay: 4 * time.Second},
		{err: nil}, // success forgets the backoff
		{err: limited(0), wantDelay: time.Second},  // so it starts over
		{err: Permanent(errors.New("invalid"), 0)}, // and so does a permanent failure
		{err: limited(0), wantDelay: time.Second},
	}
	queue := &afterQueue{TypedRateLimitingInterface: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())}
	defer queue.ShutDown()
	throttle := newThrottleBackoff[cache.ObjectName]()
	throttle.random = func() float64 { return 0.5 }
	c := &Controller[*corev1.ConfigMap]{kind: "ConfigMap", queue: queue, throttle: throttle}
	_, ctx := ktesting.NewTestContext(t)
	key := cache.ObjectName{Namespace: "ns", Name: "svc"}
	for i, step := range steps {
		queue.delays = nil
		c.handleResult(context.WithoutCancel(ctx), key, Result{}, step.err)
		var want []time.Duration
		if step.wantDelay > 0 {
			want = []time.Duration{step.wantDelay}
		}
		if len(queue.delays) != len(want) || (len(want) == 1 && queue.delays[0] != want[0]) {
			t.Errorf("step %d (%v): AddAfter %v, want %v", i+1, step.err, queue.delays, want)
		}
		if queue.NumRequeues(key) != 0 {
			t.Errorf("step %d (%v): the failure backoff grew; a 429 is not a failure", i+1, step.err)
		}
	}
}
