package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// EventTookBack is the reason of the Event recorded when an object took
// back the entity written for it before (see recoverylookup.go).
const EventTookBack = "TookBack"

// refusal is why a create took no entity: what it found in the way.
type refusal struct {
	// fingerprint and scope are the object's desired entity and listing
	// scope when it was found: a change of either tries again at once.
	fingerprint uint64
	scope       string
	// inTheWay is the ID of the entity in the way, read again once a sync
	// period; "" when it cannot be read (only a change tries again).
	inTheWay string
	// at is when it was found; reason and message are the Programmed
	// condition that says so.
	at              time.Time
	reason, message string
}

// refusedError is a create that found another entity in its way: another
// cluster's, another object's, or one made outside the operator.
type refusedError struct {
	reason, message, inTheWay string
}

func (e *refusedError) Error() string { return e.message }

// foundBy says how an entity to take back was found.
type foundBy int

const (
	// byListing: in the kind's listing, which shows everything the
	// comparison needs (a consumer's groups).
	byListing foundBy = iota
	// byReading: read alone, by its ID or its unique name.
	byReading
)

// findFirst looks for the entity the pass's object may have before it is
// created: the one in its way last time, the one tagged with its UID
// (lookFirst), the one written for its kind, namespace and name. took says
// that it found one and took it back (or found it in the way: err is a
// refusedError); otherwise the create goes ahead.
func (r *EntityReconciler[T, D]) findFirst(ctx context.Context, t *pass[T, D], api konnect.API, lookFirst bool) (w written, took bool, err error) {
	if id := t.action.inTheWay; id != "" {
		found, err := r.kind.Recover.Read(ctx, api, t.obj, t.res.Placement, id)
		switch {
		case konnect.IsNotFound(err):
			// Gone: nothing is in the way any more.
		case err != nil:
			return written{}, true, err
		default:
			if w, took, err := r.takeBack(ctx, t, api, found, byReading); took || err != nil {
				return w, true, err
			}
		}
	}
	if rec := r.kind.Recover; lookFirst && rec != nil && rec.ByKey && rec.FindByKey != nil {
		found, err := rec.FindByKey(ctx, api, t.obj, t.res.Placement, t.desired)
		if err != nil {
			return written{}, true, err
		}
		if found != nil && !r.standsForAnother(found.ID, t.obj) {
			if w, took, err := r.takeBack(ctx, t, api, *found, byListing); took || err != nil {
				return w, true, err
			}
		}
	} else if lookFirst {
		if w, err := r.adoptByUID(ctx, t, api); w.id != "" || err != nil {
			return w, true, err
		}
	}
	if t.action.byIdentity {
		found, ok, err := r.findByIdentity(ctx, t, api)
		if err != nil {
			return written{}, true, err
		}
		if ok {
			if w, took, err := r.takeBack(ctx, t, api, found, byListing); took || err != nil {
				return w, true, err
			}
		}
	}
	return written{}, false, nil
}

// standsForAnother reports whether another object of the kind stands for
// the entity with the given ID (by its status): two objects that ask for the same key (two IP
// allow lists of the same addresses) each stand for an entity of their
// own.
func (r *EntityReconciler[T, D]) standsForAnother(id string, obj T) bool {
	for _, other := range r.informer.List() {
		if other.GetUID() != obj.GetUID() && other.KonnectStatus(false).GetKonnectID() == id {
			return true
		}
	}
	return false
}

// explainConflict looks up the entity that has the unique name a create
// was refused for, and takes it back when it was written for this object,
// or says what it is (a refusedError).
func (r *EntityReconciler[T, D]) explainConflict(ctx context.Context, t *pass[T, D], api konnect.API, conflict error) (written, error) {
	if rec := r.kind.Recover; rec != nil && rec.FindByKey != nil {
		inTheWay, err := rec.FindByKey(ctx, api, t.obj, t.res.Placement, t.desired)
		if err != nil && !konnect.IsNotFound(err) {
			return written{}, err
		}
		if inTheWay != nil {
			if w, took, err := r.takeBack(ctx, t, api, *inTheWay, byReading); took || err != nil {
				return w, err
			}
		}
	}
	return written{}, &refusedError{reason: commonv1alpha1.ReasonConflictsWithExistingEntity, message: fmt.Sprintf(
		"Konnect refused to create the %s: it conflicts with an existing entity (%v); it is not created again until the spec changes%s",
		r.kind.KindName(), conflict, r.takeOverHint("<its ID>", "; "))}
}

// takeBack decides what to do with an entity found for the pass's object:
// take it back when it was written for this object in this cluster (or in
// none), or refuse, saying whose it is and how to take it over. took is
// false when the entity went since it was found: the create goes ahead.
func (r *EntityReconciler[T, D]) takeBack(ctx context.Context, t *pass[T, D], api konnect.API, found Listed[D], by foundBy) (w written, took bool, err error) {
	kind := r.kind.KindName()
	// An entity without identity that has the object's key is the
	// object's, for a kind whose entities carry none.
	keyed := r.kind.Recover != nil && r.kind.Recover.ByKey && found.Object == ObjectIdentity{}
	same := keyed || found.Object.Names(kind, t.obj)
	refuse := func(reason, message string) (written, bool, error) {
		inTheWay := found.ID
		if r.kind.Recover == nil || r.kind.Recover.Read == nil {
			inTheWay = "" // it cannot be read again: only a change tries again
		}
		return written{}, true, &refusedError{reason: reason, inTheWay: inTheWay, message: message}
	}
	switch {
	case same && ownedHere(found.Owner, r.cluster):
		return r.recover(ctx, t, api, found, by)
	case same:
		return refuse(commonv1alpha1.ReasonOwnedByOtherCluster, fmt.Sprintf(
			"%s %s in Konnect was written for this object by the operator of cluster %s (tag %s); it is not taken back from here: run this operator with --cluster-identity=%s if this cluster replaces that one%s",
			kind, found.ID, found.Owner, TagKeyCluster, found.Owner, r.takeOverHint(found.ID, ", or ")))
	case found.Object.Name != "":
		where := ""
		if found.Owner != "" && found.Owner != r.cluster {
			where = " in cluster " + found.Owner
		}
		return refuse(commonv1alpha1.ReasonConflictsWithExistingEntity, fmt.Sprintf(
			"%s %s in Konnect holds this object's unique name and was written for %s%s; rename one of them%s",
			kind, found.ID, found.Object, where, r.takeOverHint(found.ID, ", or ")))
	}
	return refuse(commonv1alpha1.ReasonConflictsWithExistingEntity, fmt.Sprintf(
		"%s %s in Konnect holds this object's unique name and was not written for an object by an operator (it carries no identity tags)%s",
		kind, found.ID, r.takeOverHint(found.ID, "; ")))
}

// takeOverHint says how an object takes the entity with the given ID over
// deliberately, after sep; "" when the kind has no way.
func (r *EntityReconciler[T, D]) takeOverHint(id, sep string) string {
	switch {
	case r.kind.Adopt != nil:
		return sep + "an object created with spec.adopt (from: konnect, mode: override, konnect.id: " + id + ") takes it over"
	case r.kind.Borrows != nil:
		return sep + "a " + r.kind.KindName() + " with spec.source Mirror and spec.mirror.konnect.id " + id + " uses it without owning it"
	}
	return ""
}

// recover takes back an entity written for the pass's object before:
// without a write when it equals the spec, otherwise by writing the spec
// over it. took is false when it went since it was found.
func (r *EntityReconciler[T, D]) recover(ctx context.Context, t *pass[T, D], api konnect.API, found Listed[D], by foundBy) (w written, took bool, err error) {
	kind := r.kind.KindName()
	w = written{id: found.ID}
	var differs []string
	if found.Differences != nil {
		differs = found.Differences(t.desired)
	}
	how := "without a write: Konnect holds what the spec declares"
	if found.Differences == nil || len(differs) > 0 {
		r.metrics.EntityOperation(kind, "update")
		if w.snapshot, err = r.kind.Update(ctx, api, t.obj, t.res.Placement, found.ID, t.desired); err != nil {
			if konnect.IsNotFound(err) {
				r.recovery.take(found.ID)
				return written{}, false, nil
			}
			return written{}, true, err
		}
		how = "and wrote the spec over it"
		if len(differs) > 0 {
			how += " (it differed in " + strings.Join(differs, ", ") + ")"
		}
	} else if by == byListing {
		// The listing shows all the comparison needed (a consumer's groups,
		// a group's members): nothing follows the entity either.
		w.snapshot, w.untouched = found.Snapshot, true
	}
	if rec := r.kind.Recover; rec != nil && rec.Record != nil {
		rec.Record(t.obj, found)
	}
	r.recovery.take(found.ID)
	owner := "no cluster"
	if found.Owner != "" {
		owner = "cluster " + found.Owner
	}
	if found.Object == (ObjectIdentity{}) {
		klog.FromContext(ctx).Info("Found the entity by what Konnect keys it on; taking it over", "id", found.ID)
		r.recorder.Eventf(t.obj, corev1.EventTypeNormal, EventTookBack, "Took back %s %s, found by what Konnect keys it on, %s", kind, found.ID, how)
		return w, true, nil
	}
	if found.Object.UID == string(t.obj.GetUID()) {
		// The object itself wrote it, and lost its ID (a create whose
		// status write never landed).
		klog.FromContext(ctx).Info("Found the entity by its UID tag; taking it over", "id", found.ID)
		r.recorder.Eventf(t.obj, corev1.EventTypeNormal, EventFound, "Found %s %s in Konnect by its UID tag and took it over, %s", kind, found.ID, how)
		return w, true, nil
	}
	klog.FromContext(ctx).Info("Took back the entity written for this object before", "id", found.ID, "owner", found.Owner)
	r.recorder.Eventf(t.obj, corev1.EventTypeNormal, EventTookBack, "Took back %s %s, written for this object's namespace and name before (by %s), %s", kind, found.ID, owner, how)
	return w, true, nil
}

// refuse reports that a create found another entity in its way, and
// remembers it: nothing is created while the spec stays as it is, and the
// entity in the way is read again once a sync period.
func (r *EntityReconciler[T, D]) refuse(ctx context.Context, t *pass[T, D], in *refusedError) (Result, error) {
	SetCondition(t.obj, FalseCondition(commonv1alpha1.ConditionProgrammed, in.reason, in.message))
	// Only a change (of the spec, or of the entity in the way) lets it
	// progress: it is stalled, not progressing.
	t.stalled = true
	_, err := r.writeStatus(ctx, t)
	r.warnOnce(t, in.reason, in.message)
	t.remember(refused(refusal{
		fingerprint: t.facts.fingerprint, scope: scopeOf(t.res.Placement), inTheWay: in.inTheWay,
		at: r.clock.Now(), reason: in.reason, message: in.message,
	}))
	if in.inTheWay == "" {
		return Result{}, err
	}
	return Result{RequeueAfter: r.timing.syncPeriod}, err
}

// reportRefusal says again what the last create found in the way, without
// a Konnect call.
func (r *EntityReconciler[T, D]) reportRefusal(ctx context.Context, t *pass[T, D]) (Result, error) {
	why := t.rec.refusal
	SetCondition(t.obj, FalseCondition(commonv1alpha1.ConditionProgrammed, why.reason, why.message))
	t.stalled = true
	_, err := r.writeStatus(ctx, t)
	return Result{RequeueAfter: t.action.wait}, err
}
