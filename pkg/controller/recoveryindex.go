package controller

import (
	"context"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// recoveryIndex holds, per listing scope, the entities of the kind that a
// listing found and that no object of the cluster stands for (by its
// status ID), by the namespace and name their identity tags name. An object takes
// its entity out when it takes it back.
//
// It is listed once per scope while creates use it: what this process
// creates after that is known to its objects. Only an object that goes
// while its entity stays (its finalizer removed by hand, deletion-policy
// orphan) can leave an entity the index does not show: forget then drops
// every scope, and the next create lists again.
//
// What it holds is bounded, since a server may list whatever it likes (up
// to the client's listing limits): a scope no create has looked at for
// recoveryIdle goes, and once the scopes hold more than maxRecoveryEntries
// entities the least recently used go first. A scope that went is listed
// again by the next create that needs it, one request per 1,000 entities.
type recoveryIndex[D any] struct {
	clock clock.WithTicker
	// idle is how long a scope is kept without a look.
	idle time.Duration
	// maxEntries bounds the entities of all scopes together.
	maxEntries int

	mu     sync.Mutex
	scopes map[string]*recoveryScope[D]
	// entries counts the entities of the listed scopes.
	entries int
}

// maxRecoveryEntries bounds the entities a kind's recovery index holds:
// the default listing limit of one scope, so that a scope the listing
// allows fits, and no more than one such.
const maxRecoveryEntries = 100_000

// defaultRecoveryIdle is how long an unused scope is kept when the
// reconciler has no sync period.
const defaultRecoveryIdle = 10 * time.Minute

// recoveryScope is the index of one listing scope.
type recoveryScope[D any] struct {
	// listed is closed once entries (or err) are set.
	listed chan struct{}
	err    error
	// entries are the entities by the namespace and name they were written
	// for (indexKey); keys the key of each entity's ID; size how many
	// entities it holds.
	entries map[string][]Listed[D]
	keys    map[string]string
	size    int
	// used is when a create last looked at it (the index's mu guards it).
	used time.Time
}

func newRecoveryIndex[D any](clk clock.WithTicker, idle time.Duration) *recoveryIndex[D] {
	if idle <= 0 {
		idle = defaultRecoveryIdle
	}
	return &recoveryIndex[D]{clock: clk, idle: idle, maxEntries: maxRecoveryEntries, scopes: map[string]*recoveryScope[D]{}}
}

// Callers that may not wait (konnect.IsDeferrable: the workers) wait for
// another's listing of their scope at most recoveryInlineWait, and then
// come back recoveryRetry later: a server that stalls the listing ties up
// the one worker that lists, not every worker of the kind that needs it.
const (
	recoveryInlineWait = 250 * time.Millisecond
	recoveryRetry      = 2 * time.Second
)

// scope returns the index of a listing scope, listing it with list when no
// index of it is kept (one caller lists; the others wait for it, a while
// when they may not wait).
func (x *recoveryIndex[D]) scope(ctx context.Context, name string, list func() (map[string][]Listed[D], error)) (*recoveryScope[D], error) {
	x.mu.Lock()
	s, ok := x.scopes[name]
	if !ok {
		s = &recoveryScope[D]{listed: make(chan struct{})}
		x.scopes[name] = s
	}
	s.used = x.clock.Now()
	x.mu.Unlock()
	if !ok {
		entries, err := list()
		x.indexed(name, s, entries, err)
	}
	var gaveUp <-chan time.Time
	if konnect.IsDeferrable(ctx) {
		timer := x.clock.NewTimer(recoveryInlineWait)
		defer timer.Stop()
		gaveUp = timer.C()
	}
	select {
	case <-s.listed:
		return s, s.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-gaveUp:
		return nil, &konnect.RateLimitedError{RetryAfter: recoveryRetry, DelayKnown: true, Deferred: true,
			Message: "waits for the listing of its control plane, which another object's create runs"}
	}
}

// indexed stores what the listing of scope name found and lets its
// waiters go; a failed listing is not kept, so that the next create lists
// again.
func (x *recoveryIndex[D]) indexed(name string, s *recoveryScope[D], entries map[string][]Listed[D], err error) {
	defer close(s.listed)
	s.entries, s.err, s.keys = entries, err, map[string]string{}
	for key, listed := range entries {
		for _, l := range listed {
			s.keys[l.ID] = key
		}
		s.size += len(listed)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.scopes[name] != s {
		return // forgotten while it was listed
	}
	if err != nil {
		delete(x.scopes, name)
		return
	}
	x.entries += s.size
	x.shrinkLocked(name)
}

// shrinkLocked drops the least recently used scopes, but keep, while the
// scopes hold more than maxEntries entities.
func (x *recoveryIndex[D]) shrinkLocked(keep string) {
	for x.entries > x.maxEntries {
		oldest := ""
		for name, s := range x.scopes {
			if name == keep || !isListed(s) {
				continue
			}
			if oldest == "" || s.used.Before(x.scopes[oldest].used) {
				oldest = name
			}
		}
		if oldest == "" {
			return
		}
		x.dropLocked(oldest)
	}
}

// sweepUntil drops, every idle, the scopes no create has looked at for
// idle, until ctx ends.
func (x *recoveryIndex[D]) sweepUntil(ctx context.Context) {
	ticker := x.clock.NewTicker(x.idle)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
			x.sweep()
		}
	}
}

// sweep drops the scopes no create has looked at for idle.
func (x *recoveryIndex[D]) sweep() {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := x.clock.Now()
	for name, s := range x.scopes {
		if isListed(s) && now.Sub(s.used) >= x.idle {
			x.dropLocked(name)
		}
	}
}

func (x *recoveryIndex[D]) dropLocked(name string) {
	if s := x.scopes[name]; s != nil && isListed(s) {
		x.entries -= s.size
	}
	delete(x.scopes, name)
}

func isListed[D any](s *recoveryScope[D]) bool {
	select {
	case <-s.listed:
		return true
	default:
		return false
	}
}

// size reports how many scopes the index has and their entities.
func (x *recoveryIndex[D]) size() (scopes, entries int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.scopes), x.entries
}

// find returns the entity written for obj, an object of kind, in a scope:
// one this cluster wrote (or nobody) before another cluster's.
func (x *recoveryIndex[D]) find(s *recoveryScope[D], kind string, obj metav1.Object, cluster string) (Listed[D], bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var found Listed[D]
	ok := false
	for _, name := range cutNames(obj.GetName()) {
		for _, l := range s.entries[indexKey(obj.GetNamespace(), name)] {
			if !l.Object.Names(kind, obj) {
				continue
			}
			if !ok || !ownedHere(found.Owner, cluster) && ownedHere(l.Owner, cluster) {
				found, ok = l, true
			}
		}
	}
	return found, ok
}

// take removes an entity taken back from every scope's index.
func (x *recoveryIndex[D]) take(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, s := range x.scopes {
		if !isListed(s) {
			continue // being listed: not shared yet
		}
		key, ok := s.keys[id]
		if !ok {
			continue
		}
		delete(s.keys, id)
		s.entries[key] = slices.DeleteFunc(s.entries[key], func(l Listed[D]) bool { return l.ID == id })
		s.size--
		x.entries--
	}
}

// forget drops every scope's index: an entity may have been left behind
// that none shows.
func (x *recoveryIndex[D]) forget() {
	x.mu.Lock()
	defer x.mu.Unlock()
	clear(x.scopes)
	x.entries = 0
}
