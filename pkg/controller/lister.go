package controller

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// The lister of a kind finds drift in list mode: once per sync period and
// listing scope it lists the operator's entities of the kind (one request
// per 1,000 entities), compares each with the snapshot of the operator's
// last write, and enqueues only the objects whose entity differs or is
// missing, with a mark that says why. Everything else costs no request:
// an idle period costs the list pages and no write.
//
// Its queue holds listing scopes (see scopeOf): control-plane IDs, or for
// control planes themselves an organisation as one set of credentials sees
// it. A scope's first listing comes at a random point of the first period
// after its first entity is known, so that scopes (and kinds) do not all
// list at the same moment; each later one a period after the previous one
// started. A drift is thus seen at most one period after it happened, and
// written at once.

// listing reports whether this kind finds drift by listing.
func (r *EntityReconciler[T, D]) listing() bool {
	return r.driftMode == DriftList && r.kind.List != nil
}

// lists reports whether obj's entity is found by listing: if not, it is
// written again every sync period. Under the report policy an entity is
// listed in either mode of drift detection: writing it every period would
// overwrite what it reports.
func (r *EntityReconciler[T, D]) lists(obj T, p commonv1alpha1.Policies) bool {
	listing := r.listing() || r.kind.List != nil && p.Reconcile == commonv1alpha1.ReconcilePolicyReport
	return listing && (r.kind.Lists == nil || r.kind.Lists(obj))
}

// RunBackground lists the kind's listing scopes until ctx ends, enqueueing
// the objects to write again with enqueue, and drops what the recovery
// index no longer needs. The controller runs it once its caches synced.
func (r *EntityReconciler[T, D]) RunBackground(ctx context.Context, enqueue func(cache.ObjectName)) {
	if r.kind.Recover != nil && r.kind.Recover.ByIdentity {
		go r.recovery.sweepUntil(ctx)
	}
	if r.scopes == nil {
		return
	}
	go func() {
		<-ctx.Done()
		r.scopes.ShutDown()
	}()
	var listers sync.WaitGroup
	for range listersPerKind {
		listers.Go(func() { r.listLoop(ctx, enqueue) })
	}
	listers.Wait()
}

// listLoop takes listing scopes off the queue and lists them, until the
// queue shuts down. A scope whose organisation is being listed already
// (by another of the kind's listers) waits for that listing to end.
func (r *EntityReconciler[T, D]) listLoop(ctx context.Context, enqueue func(cache.ObjectName)) {
	for {
		scope, shutdown := r.scopes.Get()
		if shutdown {
			return
		}
		org, ok := r.memory.scopeOrganization(scope)
		if !ok || !r.listingOrgs.begin(org, scope) {
			r.scopes.Done(scope)
			continue
		}
		started := r.clock.Now()
		r.listingNow.Add(1)
		turn, deferred := r.listScope(ctx, scope, enqueue)
		r.listingNow.Add(-1)
		r.scopes.Done(scope)
		for _, waiting := range r.listingOrgs.end(org) {
			r.scopes.Add(waiting)
		}
		switch _, ok := r.memory.scopeMembers(scope); {
		case ok && deferred:
			r.scopeTurns.Store(scope, true)
			r.scopes.AddAfter(scope, turn)
		case ok:
			r.scopes.AddAfter(scope, max(r.timing.syncPeriod-r.clock.Since(started), 0))
		}
	}
}

// Idle reports whether the lister is neither listing nor has a listing
// due.
func (r *EntityReconciler[T, D]) Idle() bool {
	return r.scopes == nil || r.scopes.Len() == 0 && r.listingNow.Load() == 0
}

// scheduleScope plans the first listing of a listing scope.
func (r *EntityReconciler[T, D]) scheduleScope(scope string) {
	if r.timing.syncPeriod <= 0 {
		return
	}
	r.scopes.AddAfter(scope, rand.N(r.timing.syncPeriod)+time.Millisecond)
}

// listScope lists one listing scope and enqueues what drifted. When the
// organisation's limiter deferred the listing (it lists with a deferrable
// context, as the workers reconcile: the lister serves every organisation,
// and must not sleep on one's limiter), it returns the listing's turn.
func (r *EntityReconciler[T, D]) listScope(ctx context.Context, scope string, enqueue func(cache.ObjectName)) (turn time.Duration, deferred bool) {
	members, ok := r.memory.scopeMembers(scope)
	if !ok {
		return 0, false
	}
	if _, comes := r.scopeTurns.LoadAndDelete(scope); comes {
		ctx = konnect.WithTurn(ctx)
	} else {
		ctx = konnect.WithDeferral(ctx)
	}
	started := r.clock.Now()
	p, err := r.currentPlacement(ctx, scope, members, enqueue)
	if p == nil && err == nil {
		return 0, false
	}
	logger := klog.FromContext(ctx)
	var api konnect.API
	if err == nil {
		logger = logger.WithValues("controlPlane", p.ControlPlaneID, "organization", p.Auth.OrgID)
		api, err = r.konnect.API(p.Auth.ServerURL, p.Auth.Token)
	}
	if err == nil {
		var listed []Listed[D]
		if listed, err = r.list(ctx, api, *p, members); err == nil {
			r.compareListed(ctx, members, listed, started, enqueue)
			return 0, false
		}
	}
	if turn, deferred := konnect.IsDeferred(err); deferred {
		logger.V(4).Info("Listing waits for the organisation's turn", "kind", r.kind.KindName(), "delay", turn)
		return turn, true
	}
	if konnect.IsServerFault(err) {
		r.refuseListing(members, err.Error(), enqueue)
	}
	// The next period lists again; until then the entities stay as they
	// are: nothing is written that was not found to differ.
	logger.Info("Could not list entities to find drift; trying again next period", "kind", r.kind.KindName(), "err", err)
	return 0, false
}

// list lists the kind's entities of a listing scope: those tagged as the
// kind's, and, when some members are not among them and were not written
// by this process (adopted as they were, or written by Kong Operator, so
// that they may carry other tags or none), every entity of the scope, so
// that an adopted entity is compared like any other instead of being taken
// for missing and written again.
func (r *EntityReconciler[T, D]) list(ctx context.Context, api konnect.API, p Placement, members map[cache.ObjectName]member) ([]Listed[D], error) {
	listed, err := r.kind.List(ctx, api, p, false)
	if err != nil {
		return nil, err
	}
	r.metrics.EntityOperation(r.kind.KindName(), "list")
	seen := make(map[string]bool, len(listed))
	for _, l := range listed {
		seen[l.ID] = true
	}
	for _, m := range members {
		if !seen[m.id] && m.writtenAt.IsZero() {
			r.metrics.EntityOperation(r.kind.KindName(), "list")
			return r.kind.List(ctx, api, p, true)
		}
	}
	return listed, nil
}

// refuseListing records on every member why its scope's listing was
// refused ("": it no longer is), and enqueues those whose objects must say
// so: their condition Drifted is Unknown while it lasts (policyConditions).
func (r *EntityReconciler[T, D]) refuseListing(members map[cache.ObjectName]member, why string, enqueue func(cache.ObjectName)) {
	for key, m := range members {
		if why == "" && !m.listingRefused {
			continue
		}
		if r.memory.refuseListing(key, m.uid, why) {
			enqueue(key)
		}
	}
}

// unchanged reports whether a listed entity with sum is as the member's
// entity was when a listing last found it equal to its snapshot, and
// nothing since asks for more than that comparison (another cluster's
// ownership, drift reported under the report policy).
func (m member) unchanged(sum uint64) bool {
	return sum != 0 && sum == m.listedSum && m.snapshot.Known() && m.foreign == "" && !m.reported
}

// compareListed compares every member with its listed entity; entities
// listed undecoded are decoded only when their sum changed.
func (r *EntityReconciler[T, D]) compareListed(ctx context.Context, members map[cache.ObjectName]member, listed []Listed[D], started time.Time, enqueue func(cache.ObjectName)) {
	byID := make(map[string]*Listed[D], len(listed))
	for i := range listed {
		byID[listed[i].ID] = &listed[i]
	}
	// A listing refused before is over: the objects that said so say it
	// no more, whatever the comparison finds.
	r.refuseListing(members, "", enqueue)
	for key, m := range members {
		if !m.writtenAt.Before(started) {
			continue // written while the listing ran: it may show the old entity
		}
		l, found := byID[m.id]
		if found && m.unchanged(l.Sum) {
			continue
		}
		if found {
			if err := l.decoded(); err != nil {
				// Left as it is until a listing can read it, as when a
				// whole listing fails.
				klog.FromContext(ctx).Info("Could not read a listed entity to find drift", "kind", r.kind.KindName(), "id", l.ID, "err", err)
				continue
			}
		}
		foreign := found && r.cluster != "" && l.Owner != "" && l.Owner != r.cluster
		switch {
		case !found:
			r.memory.mark(key, driftMark{uid: m.uid, cause: driftMissing})
		case foreign && l.Owner != m.foreign:
			r.memory.mark(key, driftMark{uid: m.uid, cause: driftForeign, fields: []string{l.Owner}})
		case foreign:
			continue // reported already
		case m.foreign != "":
			r.memory.mark(key, driftMark{uid: m.uid, cause: driftOwned})
		case m.snapshot.Known():
			fields := m.snapshot.Differences(l.Snapshot)
			if len(fields) == 0 {
				r.memory.inSync(key, m, l.Sum)
				if !m.reported {
					continue
				}
				r.memory.mark(key, driftMark{uid: m.uid, cause: driftInSync})
				break
			}
			r.memory.mark(key, driftMark{uid: m.uid, cause: driftChanged, fields: fields})
		default:
			if !r.compareWithSpec(ctx, key, m, l) {
				continue
			}
		}
		enqueue(key)
	}
}

// compareWithSpec checks an entity that no write of this process left a
// snapshot of (after a restart) against the spec: equal, the listed entity
// becomes the snapshot without a write; different, or not comparable, the
// object is marked to be written. It reports whether it marked.
func (r *EntityReconciler[T, D]) compareWithSpec(ctx context.Context, key cache.ObjectName, m member, l *Listed[D]) bool {
	cached, err := r.informer.Get(key.Namespace, key.Name)
	if err != nil || cached.GetUID() != m.uid || cached.GetDeletionTimestamp() != nil {
		return false // gone or going: its own reconcile handles it
	}
	if l.Differences == nil {
		r.memory.mark(key, driftMark{uid: m.uid, cause: driftUnknown})
		return true
	}
	obj := cached.DeepCopyObject().(T)
	res, err := r.resolve(ctx, obj, ForSync)
	if err != nil || !res.Ready {
		return false // the reconcile reports its references
	}
	desired, err := r.kind.Desired(ctx, obj, res.Placement)
	if err != nil {
		return false
	}
	if fields := l.Differences(desired); len(fields) > 0 {
		r.memory.mark(key, driftMark{uid: m.uid, cause: driftChanged, fields: fields})
		return true
	}
	r.memory.adoptListed(key, m, l.Snapshot, l.Sum)
	return false
}
