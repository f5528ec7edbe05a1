package controller

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// written is what a write to Konnect left.
type written struct {
	id       string
	snapshot Snapshot
	// created is false when an existing entity was taken over instead (by
	// spec.adopt, its UID tag or its identity): it may hold more than was
	// sent.
	created bool
	// untouched: an entity taken back as the listing showed it, equal to
	// the spec in everything that follows it too (Kind.AfterSync is not
	// needed).
	untouched bool
	// mark is the drift the write corrected, if any.
	mark *driftMark
}

// write creates, adopts or updates the entity, then records the outcome:
// the record, the drift lister's view, Events and the status.
func (r *EntityReconciler[T, D]) write(ctx context.Context, t *pass[T, D]) (Result, error) {
	p := t.res.Placement
	api, err := r.konnect.API(p.Auth.ServerURL, p.Auth.Token)
	if err != nil {
		return Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
	}
	var w written
	if t.action.checkOwner {
		owner, err := r.readOwner(ctx, t, api)
		if err != nil {
			return Result{}, r.failed(ctx, t, commonv1alpha1.ReasonFailedToUpdate, err)
		}
		if owner != "" {
			t.action.owner = owner
			return r.reportForeign(ctx, t)
		}
	}
	if t.action.op == opUpdate {
		w, err = r.update(ctx, t, api)
		if errors.Is(err, ErrInTransition) {
			// Not written: the next reconcile after the entity settles
			// writes it.
			t.remember(unsynced)
			return r.settle(ctx, t, r.kind.Async.Recorded(t.obj), r.timing.syncPeriod)
		}
		var in *refusedError
		if errors.As(err, &in) {
			// Created again, the entity found its name taken.
			return r.refuse(ctx, t, in)
		}
		if err != nil {
			return Result{}, r.failed(ctx, t, commonv1alpha1.ReasonFailedToUpdate, err)
		}
	} else if w, err = r.create(ctx, t, api, t.action.lookFirst); err != nil {
		var in *refusedError
		if errors.As(err, &in) {
			return r.refuse(ctx, t, in)
		}
		return Result{}, r.failed(ctx, t, commonv1alpha1.ReasonFailedToCreate, err)
	}
	if r.kind.AfterSync != nil && !w.untouched {
		if err := r.kind.AfterSync(ctx, api, t.obj, p, w.id, w.created); err != nil {
			// The entity was written but what follows it was not: whatever
			// the spec says next, write again.
			t.remember(unsynced, remark(w.mark))
			r.markProgrammed(t.obj, p, w.id) // the entity exists: keep its ID
			return Result{}, r.failed(ctx, t, commonv1alpha1.ReasonFailedToUpdate, err)
		}
	}
	now := r.clock.Now()
	t.remember(synced(t.facts.fingerprint, now, t.action.mark), programmedAt(t.obj.GetGeneration()), func(rec *record) {
		// Konnect holds what was just written, and the entity is this
		// cluster's now.
		rec.driftReported, rec.foreign, rec.ownerKnown = nil, "", true
		// Known again; the next listing tells whether it still is.
		rec.listingRefused = ""
	}, knownEntity(w.id))
	r.policyConditions(t, true)
	if t.facts.lists {
		// Without a snapshot (an entity adopted in match mode, nothing
		// written) the first listing compares the entity with the spec.
		t.remember(listed(p, w.id, w.snapshot, now))
	} else {
		t.remember(unlisted)
	}
	changed := w.created || (t.action.op == opUpdate && t.action.changed)
	if r.kind.Async != nil {
		r.recordWrite(t.obj, w.id, w.created, changed)
		return r.afterWrite(ctx, t, api, w.id)
	}
	r.markProgrammed(t.obj, p, w.id)
	if _, err := r.writeStatus(ctx, t); err != nil {
		if w.untouched {
			// Nothing was written to Konnect, and the status does not show
			// the entity taken back: the next reconcile takes it back
			// again (the listings show it again), recording what this one
			// could not, rather than writing the spec over an entity that
			// holds it already.
			t.remember(forgetCreated)
			r.recovery.forget()
			return Result{}, err
		}
		// What the kind recorded in the status (conditions, endpoints)
		// is lost with the write; only another sync records it again.
		t.remember(unsynced)
		return Result{}, err
	}
	if w.mark != nil && w.mark.counts() {
		r.metrics.DriftCorrected(r.kind.KindName())
		r.recorder.Eventf(t.obj, corev1.EventTypeWarning, EventDriftCorrected, "%s %s %s; wrote what the cluster declares again", r.kind.KindName(), w.id, w.mark.describe())
	}
	r.recordWrite(t.obj, w.id, w.created, changed)
	if t.facts.lists {
		// The lister finds drift; nothing is written until something changes.
		return Result{}, nil
	}
	return Result{RequeueAfter: r.timing.syncPeriod}, nil
}

// update writes the entity over its ID; an entity gone from Konnect is
// created again, and the write then counts as correcting its absence.
func (r *EntityReconciler[T, D]) update(ctx context.Context, t *pass[T, D], api konnect.API) (written, error) {
	w := written{id: t.action.id, mark: t.action.mark}
	r.metrics.EntityOperation(r.kind.KindName(), "update")
	var err error
	w.snapshot, err = r.kind.Update(ctx, api, t.obj, t.res.Placement, w.id, t.desired)
	if !konnect.IsNotFound(err) {
		return w, err
	}
	klog.FromContext(ctx).Info("Entity is gone from Konnect; creating it again", "id", w.id)
	if w.mark == nil {
		w.mark = &driftMark{uid: t.obj.GetUID(), cause: driftMissing}
	}
	created, err := r.create(ctx, t, api, r.timing.mayExistAlready(t.facts, t.rec))
	if err != nil {
		t.remember(remark(w.mark))
		return w, err
	}
	created.mark = w.mark
	return created, nil
}

// create creates the entity, unless the object has one already, and
// returns its ID. Never a duplicate: the entity is looked for before
// creating (findFirst: by its identity, or by its UID when it may exist
// already), and after a conflict, which is explained rather than tried
// again (a refusedError).
func (r *EntityReconciler[T, D]) create(ctx context.Context, t *pass[T, D], api konnect.API, lookFirst bool) (written, error) {
	if opts := r.kind.adoptOptions(t.obj); opts != nil && opts.Konnect != nil {
		w, err := r.adoptExisting(ctx, t, api, opts)
		if err == nil {
			t.remember(created(w.id))
		}
		return w, err
	}
	if w, took, err := r.findFirst(ctx, t, api, lookFirst); took || err != nil {
		if err == nil {
			t.remember(created(w.id))
		}
		return w, err
	}
	r.metrics.EntityOperation(r.kind.KindName(), "create")
	id, snapshot, err := r.kind.Create(ctx, api, t.obj, t.res.Placement, t.desired)
	switch {
	case err == nil:
		t.remember(created(id))
		if r.kind.borrows(t.obj) {
			// A borrowed entity is only read, never created.
			r.recorder.Eventf(t.obj, corev1.EventTypeNormal, EventBorrowed, "Using %s %s, which exists in Konnect; it is never changed or deleted from here", r.kind.KindName(), id)
			return written{id: id, snapshot: snapshot}, nil
		}
		return written{id: id, snapshot: snapshot, created: true}, nil
	case konnect.IsConflict(err):
		w, adoptErr := r.adoptByUID(ctx, t, api)
		if w.id != "" || adoptErr != nil {
			if adoptErr == nil {
				t.remember(created(w.id))
			}
			return w, adoptErr
		}
		// Another entity holds a unique field (a name, a username): which?
		w, err = r.explainConflict(ctx, t, api, err)
		if err == nil {
			t.remember(created(w.id))
		}
		return w, err
	case outcomeUnknown(err):
		t.remember(mayHaveCreated)
	}
	return written{}, err
}

// adoptByUID finds the entity tagged with the object's UID and writes the
// desired entity over it; its ID is "" when there is none.
func (r *EntityReconciler[T, D]) adoptByUID(ctx context.Context, t *pass[T, D], api konnect.API) (written, error) {
	id, err := r.kind.FindByUID(ctx, api, t.obj, t.res.Placement)
	if err != nil || id == "" {
		return written{}, err
	}
	r.metrics.EntityOperation(r.kind.KindName(), "update")
	snapshot, err := r.kind.Update(ctx, api, t.obj, t.res.Placement, id, t.desired)
	if err != nil {
		if konnect.IsNotFound(err) {
			return written{}, nil
		}
		return written{}, err
	}
	klog.FromContext(ctx).Info("Found the entity by its UID tag; taking it over", "id", id)
	r.recorder.Eventf(t.obj, corev1.EventTypeNormal, EventFound, "Found %s %s in Konnect by its UID tag and took it over", r.kind.KindName(), id)
	return written{id: id, snapshot: snapshot}, nil
}

// outcomeUnknown reports whether a failed create may have created the
// entity anyway.
func outcomeUnknown(err error) bool {
	if _, held := konnect.IsHeld(err); held || isWriteRefused(err) {
		return false // never sent
	}
	return !konnect.IsInvalidInput(err) && !konnect.IsAuth(err) && !konnect.IsConflict(err) &&
		!konnect.IsNotFound(err) && !isRateLimited(err)
}

func isWriteRefused(err error) bool {
	var refused *konnect.WriteRefusedError
	return errors.As(err, &refused)
}

func isRateLimited(err error) bool {
	var rl *konnect.RateLimitedError
	return errors.As(err, &rl)
}

// keep writes nothing to Konnect; the status says Programmed again if it
// did not (a reference that was broken came back).
//
// A mark of the lister's it answers: the entity whose drift was reported
// equals the last write again, or the entity taken for another cluster's is
// no longer so.
func (r *EntityReconciler[T, D]) keep(ctx context.Context, t *pass[T, D]) (Result, error) {
	p := t.res.Placement
	if t.facts.lists {
		t.remember(listed(p, t.action.id, Snapshot{}, r.clock.Now()))
	}
	inSync := false
	if mark := t.action.mark; mark != nil {
		inSync = mark.cause == driftInSync
		t.remember(clearMark(mark), func(rec *record) {
			switch mark.cause {
			case driftInSync:
				rec.driftReported = nil
			case driftOwned:
				rec.foreign = ""
			}
		})
	}
	r.policyConditions(t, inSync)
	r.markProgrammed(t.obj, p, t.action.id)
	_, err := r.writeStatus(ctx, t)
	t.remember(programmedAt(t.obj.GetGeneration()))
	return Result{RequeueAfter: t.action.wait}, err
}

// recordWrite records the Event of a create or of a change written to
// Konnect.
func (r *EntityReconciler[T, D]) recordWrite(obj T, id string, created, changed bool) {
	switch {
	case created:
		r.recorder.Eventf(obj, corev1.EventTypeNormal, EventCreated, "Created %s in Konnect with ID %s", r.kind.KindName(), id)
	case changed:
		r.recorder.Eventf(obj, corev1.EventTypeNormal, EventUpdated, "Updated %s %s in Konnect", r.kind.KindName(), id)
	}
}
