package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Event reasons of objects that use an entity made outside the operator (a
// mirrored control plane), and of deletions that wait.
const (
	// EventBorrowed: the object uses an entity that exists in Konnect,
	// which the operator never changes or deletes.
	EventBorrowed = "Borrowed"
	// EventWaitingForDependents: the object being deleted is kept until
	// the objects that use it (named) are deleted.
	EventWaitingForDependents = "WaitingForDependents"
	// EventReleased: a borrowed entity's object was deleted; the entity
	// stays in Konnect.
	EventReleased = "Released"
)

// delete finishes the deletion of an object: its entity is deleted from
// Konnect (opDelete), was deleted with its parent already
// (opDropWithParent), or is borrowed and stays (opRelease); then the
// finalizers go.
func (r *EntityReconciler[T, D]) delete(ctx context.Context, t *pass[T, D]) (Result, error) {
	kind, obj := r.kind.KindName(), t.obj
	switch t.action.op {
	case opDropWithParent:
		if t.facts.id != "" {
			r.recorder.Eventf(obj, corev1.EventTypeNormal, EventDeletedWithParent,
				"%s %s was deleted from Konnect with its control plane or parent already; nothing left to delete", kind, t.facts.id)
		}
	case opDelete:
		if done, result, err := r.deleteEntity(ctx, t); !done || err != nil {
			return result, err
		}
	}
	if err := r.removeFinalizers(ctx, obj); err != nil {
		return Result{}, err
	}
	t.remember(finalized)
	if t.action.op == opRelease {
		r.recorder.Eventf(obj, corev1.EventTypeNormal, EventReleased, "Released %s %s; it stays in Konnect", kind, t.facts.id)
	}
	return Result{}, nil
}

// deleteEntity deletes the entity from Konnect; done is false while an
// asynchronous entity is still going.
func (r *EntityReconciler[T, D]) deleteEntity(ctx context.Context, t *pass[T, D]) (done bool, result Result, err error) {
	p := t.res.Placement
	api, err := r.konnect.API(p.Auth.ServerURL, p.Auth.Token)
	if err != nil {
		return false, Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
	}
	id := t.action.id
	if t.action.lookFirst {
		if id, err = r.kind.FindByUID(ctx, api, t.obj, p); err != nil {
			return false, Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
		}
	}
	if id == "" && t.action.byIdentity {
		// Restored without its status and deleted before it took its
		// entity back: the entity written for its name is its.
		found, ok, err := r.findByIdentity(ctx, t, api)
		if err != nil {
			return false, Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
		}
		if ok && ownedHere(found.Owner, r.cluster) {
			id = found.ID
			r.recovery.take(id)
		}
	}
	if t.action.checkOwner {
		owner, err := r.readOwner(ctx, t, api)
		if err != nil && !konnect.IsNotFound(err) {
			return false, Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
		}
		if owner != "" {
			t.action.owner = owner
			result, err := r.orphan(ctx, t)
			return false, result, err
		}
	}
	switch {
	case id == "":
		return true, Result{}, nil
	case r.kind.Async != nil:
		return r.finalizeAsync(ctx, t, api, id)
	}
	r.metrics.EntityOperation(r.kind.KindName(), "delete")
	if err := r.kind.Delete(ctx, api, t.obj, p, id); err != nil && !konnect.IsNotFound(err) {
		return false, Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
	}
	r.recorder.Eventf(t.obj, corev1.EventTypeNormal, EventDeleted, "Deleted %s %s from Konnect", r.kind.KindName(), id)
	return true, Result{}, nil
}

// reportUndeletable says why the entity cannot be deleted yet: what the
// delete call needs (the control plane, the parent, the credentials) is not
// usable, or not allowed (a grant revoked, a token no longer valid). The
// object keeps its finalizer, and the message says the ways on: make the
// references usable again, or leave the entity in Konnect. What only a
// change can fix is not retried: that change enqueues the object.
func (r *EntityReconciler[T, D]) reportUndeletable(ctx context.Context, t *pass[T, D]) error {
	r.applyReferenceConditions(t.obj, t.res.Conditions)
	var err error = &undeletableError{cause: falseConditionsMessage(t.obj.GetConditions()), refState: t.res.RefState}
	if t.res.RefState != RefWaiting {
		err = Permanent(err, r.timing.syncPeriod)
	}
	return r.failed(ctx, t, ReasonCannotDelete, err)
}

// ReasonCannotDelete is the reason of Programmed=False, and of the Warning
// Event, of an object being deleted whose entity cannot be deleted from
// Konnect now: what the delete needs is not usable, or not allowed.
const ReasonCannotDelete = "CannotDelete"

// undeletableError says why an entity cannot be deleted, and the ways on.
type undeletableError struct {
	cause    string
	refState RefState
}

func (e *undeletableError) Error() string {
	fix := "it is deleted once what it refers to is usable again"
	if e.refState == RefRefused {
		fix = "restore what allowed it (a KongReferenceGrant, or the auth configuration as it was) and it is deleted"
	}
	return fmt.Sprintf("cannot delete the entity from Konnect, nothing is sent: %s; %s, or annotate the object %s=%s to leave the entity in Konnect and let the object go",
		e.cause, fix, commonv1alpha1.AnnotationDeletionPolicy, commonv1alpha1.DeletionPolicyOrphan)
}

// reportDependents says which objects keep the object being deleted; their
// own changes enqueue it again (see NewEntityController).
func (r *EntityReconciler[T, D]) reportDependents(t *pass[T, D]) {
	waiting := strings.Join(t.facts.dependents, ", ")
	if t.facts.borrowed {
		r.recorder.Eventf(t.obj, corev1.EventTypeNormal, EventWaitingForDependents,
			"Kept until these objects have deleted their entities from the %s in Konnect: %s", r.kind.KindName(), waiting)
		return
	}
	r.recorder.Eventf(t.obj, corev1.EventTypeNormal, EventWaitingForDependents,
		"Kept, with its entity in Konnect, until these objects that use it are deleted: %s", waiting)
}

// waitsForDependents reports whether obj, being deleted, waits for the
// objects that use its entity (Kind.UsedBy). In a kind that borrows, only
// borrowed objects wait: an owned control plane goes first, and Konnect
// deletes its entities with it.
func (r *EntityReconciler[T, D]) waitsForDependents(obj T) bool {
	if len(r.kind.UsedBy) == 0 {
		return false
	}
	return r.kind.Borrows == nil || r.kind.borrows(obj)
}

// dependents names, sorted, the objects that refer to the object with key
// through one of the kind's UsedBy dependencies and still carry the cleanup
// finalizer.
func (r *EntityReconciler[T, D]) dependents(key cache.ObjectName) ([]string, error) {
	var waiting []string
	for _, dependency := range r.kind.UsedBy {
		found, err := r.informer.Referrers(key.String(), dependency)
		if err != nil {
			return nil, err
		}
		for _, ref := range found {
			if hasFinalizer(ref.Object, commonv1alpha1.FinalizerKonnectCleanup) {
				waiting = append(waiting, fmt.Sprintf("%s %s", ref.Kind, cache.MetaObjectToName(ref.Object)))
			}
		}
	}
	slices.Sort(waiting)
	return slices.Compact(waiting), nil
}

func (r *EntityReconciler[T, D]) ensureFinalizer(ctx context.Context, obj T) error {
	return SetFinalizer(ctx, r.clients(obj.GetNamespace()), obj, commonv1alpha1.FinalizerKonnectCleanup, true)
}

// removeFinalizers removes the cleanup finalizer and the kind's extra ones.
func (r *EntityReconciler[T, D]) removeFinalizers(ctx context.Context, obj T) error {
	return removeFinalizers(ctx, r.clients(obj.GetNamespace()), obj, append([]string{commonv1alpha1.FinalizerKonnectCleanup}, r.kind.ExtraFinalizers...)...)
}
