package controller

import (
	"context"
	"time"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// An object whose status holds no Konnect ID may still have an entity: its
// cluster was rebuilt from Git, or it was restored from a backup without
// its status (with a new UID and a new creation time), or it is the same
// object under a new operator. What survives is in Konnect: the kind,
// namespace and name of the object and the cluster's identity, written on
// every entity as tags (control planes: labels), and the entity's unique
// name. So, before a create, the object looks for its entity there:
//
//   - Kinds whose listing shows those identities (Recovery.ByIdentity)
//     list each listing scope once while creates use it (recoveryindex.go),
//     when its first create comes
//     (one request per 1,000 entities; a cold create of a new control plane
//     costs one request per kind), and each object takes back the entity
//     written for its kind, namespace and name: the normal create stays at
//     one call.
//   - Kinds that carry no tags find an entity by what it holds (a name and
//     its settings, a certificate), with FindByUID before every create:
//     they are few (cloud gateways, pinned certificates). Those whose
//     entities Konnect keys on a name (a portal's pages and teams, config
//     stores: Recovery.ByKey) take back the entity that has it, as the
//     listed kinds do.
//   - A create refused as a conflict looks the entity that has the unique
//     name up (Recovery.FindByKey), and says what it found instead of trying
//     again every period.
//
// An entity written for the object in this cluster (or with no cluster
// tag: by Kong Operator) is taken back, without a write when it
// equals the spec. One that another cluster's operator wrote is left, and
// the object says which cluster and how to take it over; one written for
// another object, or by another tool, is a conflict that says how to adopt
// it (takebackorrefuse.go).

// Recovery is how a kind's objects find their entities again when they no
// longer know their IDs.
type Recovery[T Entity, D any] struct {
	// ByIdentity says that Kind.List shows every entity's Object and Owner
	// (its identity tags or labels), so that the entities of a listing
	// scope are listed once and found by their objects' kind, namespace and
	// name. Without it, FindByUID finds an entity by what it holds rather
	// than by a UID (the kind carries no tags), and runs before every
	// create.
	ByIdentity bool
	// Read, when set, reads the entity with the given ID as a listing
	// shows it: how an entity found to be another's is looked at again
	// once a sync period, instead of a create tried again.
	Read func(ctx context.Context, api konnect.API, obj T, p Placement, id string) (Listed[D], error)
	// FindByKey, when set, returns the entity that has the unique fields
	// of desired (its name, a username), nil when none does: the one a
	// create refused as a conflict clashed with.
	FindByKey func(ctx context.Context, api konnect.API, obj T, p Placement, desired D) (*Listed[D], error)
	// Record, when set, records in obj's status what Create records from
	// Konnect's answer, from an entity taken back (Listed.Actual).
	Record func(obj T, l Listed[D])
	// ByKey says that the kind's entities carry no identity, and FindByKey
	// finds an object's entity by what Konnect keys it on (a name, a slug,
	// a host name; the one entity of a singleton), as a listing shows it:
	// before every create, the entity FindByKey finds is taken back as the
	// object's own, without a write when it equals the spec.
	ByKey bool
}

// findMode is how decide has a create look for an existing entity first.
type findMode int

const (
	// findByUID: by its UID tag (FindByUID), when it may exist already.
	findByUID findMode = iota
	// findByIdentity: among the listed entities, by the object's kind,
	// namespace and name; by its UID too after a create of unknown outcome.
	findByIdentity
	// findByContent: by what it holds (FindByUID), before every create.
	findByContent
)

// findMode is how obj's create looks for an existing entity: a borrowed
// entity (a mirror) is found by its ID only, and an object whose entity
// the kind's listing does not show cannot be found in it.
func (r *EntityReconciler[T, D]) findMode(obj T) findMode {
	rec := r.kind.Recover
	switch {
	case rec == nil || r.kind.borrows(obj):
		return findByUID
	case !rec.ByIdentity:
		return findByContent
	case r.kind.List == nil || r.kind.Lists != nil && !r.kind.Lists(obj):
		return findByUID
	}
	return findByIdentity
}

// decideCreate decides for an object with no entity known: a create that
// first looks for the entity it may have, or, when the last one found
// another entity in the way and nothing changed since, the report of it:
// read again once a sync period (a conflict whose entity in the way cannot
// be read waits for a change), never a create tried again blindly.
func (tm timing) decideCreate(f facts, res Resolution, rec record, now time.Time) action {
	if why := rec.refusal; why != nil && why.fingerprint == f.fingerprint && why.scope == scopeOf(res.Placement) {
		if why.inTheWay == "" {
			return action{op: opReportRefusal}
		}
		if wait := why.at.Add(tm.syncPeriod).Sub(now); wait > 0 {
			return action{op: opReportRefusal, wait: wait}
		}
		return action{op: opCreate, inTheWay: why.inTheWay}
	}
	switch f.find {
	case findByIdentity:
		// The listing shows what earlier processes created; a create of
		// this one whose outcome is unknown may not be in it yet.
		return action{op: opCreate, byIdentity: true, lookFirst: rec.createOutcomeUnknown}
	case findByContent:
		return action{op: opCreate, lookFirst: true}
	}
	return action{op: opCreate, lookFirst: tm.mayExistAlready(f, rec)}
}

func indexKey(namespace, name string) string { return namespace + "/" + name }

// ownedHere reports whether an entity that names owner as its cluster is
// this cluster's (cluster) to take: it names this one, or none.
func ownedHere(owner, cluster string) bool {
	return owner == "" || cluster == "" || owner == cluster
}

// listForRecovery lists the kind's entities of p's listing scope and
// indexes those that no object of this cluster stands for by the namespace
// and name they were written for.
func (r *EntityReconciler[T, D]) listForRecovery(ctx context.Context, api konnect.API, p Placement) (map[string][]Listed[D], error) {
	listed, err := r.kind.List(ctx, api, p, false)
	if err != nil {
		return nil, err
	}
	r.metrics.EntityOperation(r.kind.KindName(), "list")
	standing := map[string]bool{}
	for _, obj := range r.informer.List() {
		if id := obj.KonnectStatus(false).GetKonnectID(); id != "" {
			standing[id] = true
		}
	}
	entries := map[string][]Listed[D]{}
	for i := range listed {
		l := &listed[i]
		if standing[l.ID] {
			continue // undecoded: the entities of a running cluster cost nothing
		}
		if err := l.decoded(); err != nil {
			return nil, err
		}
		if l.Object.Kind != r.kind.KindName() || l.Object.Name == "" {
			continue
		}
		key := indexKey(l.Object.Namespace, l.Object.Name)
		entries[key] = append(entries[key], *l)
	}
	return entries, nil
}

// findByIdentity returns the entity written for the pass's object in its
// listing scope, listing the scope first when no index of it is kept.
func (r *EntityReconciler[T, D]) findByIdentity(ctx context.Context, t *pass[T, D], api konnect.API) (Listed[D], bool, error) {
	p := t.res.Placement
	s, err := r.recovery.scope(ctx, scopeOf(p), func() (map[string][]Listed[D], error) {
		return r.listForRecovery(ctx, api, p)
	})
	if err != nil {
		return Listed[D]{}, false, err
	}
	found, ok := r.recovery.find(s, r.kind.KindName(), t.obj, r.cluster)
	return found, ok, nil
}
