package controller

import (
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
)

const (
	// throttleBaseDelay is the first wait of an object whose request Konnect
	// refused with a 429 that named no delay: about a second, jittered.
	throttleBaseDelay = time.Second
	// throttleMaxDelay caps that wait however often the object is refused;
	// the organisation's limiter slows down meanwhile, so long waits per
	// object would only leave Konnect's budget unspent.
	throttleMaxDelay = 30 * time.Second
)

// jitteredBackoff is a per-item rate limiter for the work queue: the n-th
// consecutive delay of an item is base·2ⁿ, capped at max, then scaled by a
// random factor in [0.5, 1.5) so that objects refused together do not come
// back together. Forget starts an item over.
type jitteredBackoff[T comparable] struct {
	base, max time.Duration
	random    func() float64 // in [0, 1)

	mu       sync.Mutex
	failures map[T]int
}

// newThrottleBackoff is the backoff of objects whose request got a 429 that
// named no delay.
func newThrottleBackoff[T comparable]() *jitteredBackoff[T] {
	return &jitteredBackoff[T]{base: throttleBaseDelay, max: throttleMaxDelay, random: rand.Float64, failures: map[T]int{}}
}

var _ workqueue.TypedRateLimiter[string] = &jitteredBackoff[string]{}

// When returns how long item waits now, and counts one more delay.
func (b *jitteredBackoff[T]) When(item T) time.Duration {
	b.mu.Lock()
	n := b.failures[item]
	b.failures[item] = n + 1
	random := b.random()
	b.mu.Unlock()
	delay := b.max
	if n < 32 { // beyond, the shift overflows; the cap applies long before
		delay = min(b.base<<n, b.max)
	}
	return min(time.Duration(float64(delay)*(0.5+random)), b.max)
}

// Forget starts item's delays over.
func (b *jitteredBackoff[T]) Forget(item T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.failures, item)
}

// NumRequeues is how many delays item has had since it was last forgotten.
func (b *jitteredBackoff[T]) NumRequeues(item T) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failures[item]
}
