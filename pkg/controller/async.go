package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Event reasons of entities that Konnect provisions asynchronously.
const (
	// EventProvisioned: Konnect finished provisioning the entity (a
	// cloud-gateway network, say), which is now ready.
	EventProvisioned = "Provisioned"
	// EventProvisioningFailed: Konnect reports that it could not provision
	// the entity.
	EventProvisioningFailed = "ProvisioningFailed"
	// EventDeleting: Konnect was asked to delete the entity; the object
	// stays until Konnect has finished.
	EventDeleting = "Deleting"
)

// Async describes an entity that Konnect provisions, changes and deletes
// in the background, through states that take minutes (a cloud-gateway
// network is initializing, then ready). The loop then reports
// Programmed=True only once the entity has settled, reads it again on a
// short, growing delay while it is in transition (not once a sync
// period), and, when the object is deleted, keeps the object until
// Konnect no longer shows the entity.
type Async[T Entity] struct {
	// Recorded returns the progress obj's status records (its phase and
	// state; a message is not needed): Create, Update and Read record it
	// there from what Konnect answered.
	Recorded func(obj T) Progress
	// Read reads the entity with the given ID, records it in obj's status
	// (obj is a copy) and returns its progress. The loop calls it after
	// every write and while the entity is not settled. It answers a
	// konnect.NotFoundError once Konnect no longer holds the entity.
	Read func(ctx context.Context, api konnect.API, obj T, p Placement, id string) (Progress, error)
}

// Phase is where Konnect is with an asynchronous entity.
type Phase int

const (
	// Settled: Konnect has finished; the entity is usable.
	Settled Phase = iota
	// Transient: Konnect is still working on the entity.
	Transient
	// Failed: Konnect gave up; only Konnect or a new entity can fix it.
	Failed
)

// Progress is what Konnect last reported of an asynchronous entity.
type Progress struct {
	Phase Phase
	// State is Konnect's own name for it ("initializing", "ready").
	State string
	// Message, when set, says more: why provisioning failed.
	Message string
	// Blocked, when set, says why Konnect would refuse to delete the entity
	// now (something still uses it); deletion waits until it is not.
	Blocked string
}

// ErrInTransition is answered by Kind.Update, after recording the entity's
// progress in the status, when Konnect refuses changes to the entity until
// it has settled: the write is tried again once it has.
var ErrInTransition = errors.New("the entity is in transition in Konnect; it is written again once it has settled")

// settle finishes a sync of an asynchronous entity whose progress is known:
// Programmed=True once it has settled, False while in transition (read again
// shortly) or after a failure. A settled or failed entity is reconciled
// again after next.
func (r *EntityReconciler[T, D]) settle(ctx context.Context, t *pass[T, D], progress Progress, next time.Duration) (Result, error) {
	obj, id := t.obj, t.facts.id
	if id == "" {
		id = t.action.id
	}
	r.recordPlacement(obj, t.res.Placement, id)
	kind := r.kind.KindName()
	result := Result{RequeueAfter: next}
	var event func()
	switch progress.Phase {
	case Settled:
		t.remember(settledRead)
		SetCondition(obj, TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, ""))
		if !IsConditionTrue(t.cached.GetConditions(), commonv1alpha1.ConditionProgrammed) {
			event = func() {
				r.recorder.Eventf(obj, corev1.EventTypeNormal, EventProvisioned, "%s %s is %s in Konnect", kind, id, progress.State)
			}
		}
	case Transient:
		result.RequeueAfter = r.nextPendingRead(t)
		message := fmt.Sprintf("%s %s is %s in Konnect; waiting for it to settle", kind, id, progress.State)
		SetCondition(obj, FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProvisioning, message))
	default:
		t.remember(settledRead)
		t.stalled = true // only Konnect, or a new entity, can fix it
		message := fmt.Sprintf("%s %s is %s in Konnect: %s", kind, id, progress.State, orNone(progress.Message))
		SetCondition(obj, FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProvisioningFailed, message))
		event = func() { r.recorder.Event(obj, corev1.EventTypeWarning, EventProvisioningFailed, message) }
	}
	changed, err := r.writeStatus(ctx, t)
	if err != nil {
		t.remember(unsynced)
		return Result{}, err
	}
	if changed && event != nil {
		event()
	}
	return result, nil
}

// nextPendingRead returns how long to wait before reading an entity in
// transition again: the pending backoff, doubled for every read in a row
// that found it still in transition, at most its maximum.
func (r *EntityReconciler[T, D]) nextPendingRead(t *pass[T, D]) time.Duration {
	delay := r.pendingBackoff
	for i := 0; i < t.rec.pendingReads && delay < r.pendingBackoffMax; i++ {
		delay *= 2
	}
	t.remember(pendingRead)
	return min(delay, r.pendingBackoffMax)
}

func orNone(message string) string {
	if message == "" {
		return "Konnect gives no reason"
	}
	return message
}

// afterWrite reads an asynchronous entity just written, for its progress
// and what Konnect says about it, and settles the sync. When the read
// fails, what the write's answer recorded in the status stands in.
func (r *EntityReconciler[T, D]) afterWrite(ctx context.Context, t *pass[T, D], api konnect.API, id string) (Result, error) {
	t.action.id = id
	r.metrics.EntityOperation(r.kind.KindName(), "read")
	progress, err := r.kind.Async.Read(ctx, api, t.obj, t.res.Placement, id)
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Could not read the entity just written; going by the write's answer", "id", id, "err", err)
		progress = r.kind.Async.Recorded(t.obj)
	}
	return r.settle(ctx, t, progress, r.timing.syncPeriod)
}

// refresh reads an asynchronous entity that was in transition (or had
// failed) when nothing else is due, and settles the sync with what Konnect
// now reports. An entity gone from Konnect is created again at once.
func (r *EntityReconciler[T, D]) refresh(ctx context.Context, t *pass[T, D]) (Result, error) {
	p := t.res.Placement
	api, err := r.konnect.API(p.Auth.ServerURL, p.Auth.Token)
	if err != nil {
		return Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
	}
	r.metrics.EntityOperation(r.kind.KindName(), "read")
	progress, err := r.kind.Async.Read(ctx, api, t.obj, p, t.action.id)
	switch {
	case konnect.IsNotFound(err):
		t.remember(unsynced, forgetCreated)
		t.obj.KonnectStatus(true).ID = ""
		_, werr := r.writeStatus(ctx, t)
		return Result{RequeueAfter: r.pendingBackoff}, werr
	case err != nil:
		return Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
	}
	return r.settle(ctx, t, progress, r.timing.syncPeriod)
}

// finalizeAsync deletes an asynchronous entity and keeps the object until
// Konnect no longer shows it. Konnect refuses to delete an entity in
// transition or in use, so the entity is read first and deleted only once
// it has settled and is free; while it terminates it is read again on the
// pending backoff. done is true once the entity is gone.
func (r *EntityReconciler[T, D]) finalizeAsync(ctx context.Context, t *pass[T, D], api konnect.API, id string) (done bool, result Result, err error) {
	kind, obj, p := r.kind.KindName(), t.obj, t.res.Placement
	r.metrics.EntityOperation(kind, "read")
	progress, err := r.kind.Async.Read(ctx, api, obj, p, id)
	if konnect.IsNotFound(err) {
		r.recorder.Eventf(obj, corev1.EventTypeNormal, EventDeleted, "Deleted %s %s from Konnect", kind, id)
		return true, Result{}, nil
	}
	if err != nil {
		return false, Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
	}
	var waiting string
	switch {
	case progress.Phase == Transient:
		waiting = fmt.Sprintf("%s %s is %s in Konnect; it is deleted once Konnect has finished", kind, id, progress.State)
	case progress.Blocked != "":
		waiting = fmt.Sprintf("%s %s cannot be deleted from Konnect yet: %s", kind, id, progress.Blocked)
	default:
		r.metrics.EntityOperation(kind, "delete")
		if err := r.kind.Delete(ctx, api, obj, p, id); err != nil && !konnect.IsNotFound(err) {
			return false, Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
		}
		r.recorder.Eventf(obj, corev1.EventTypeNormal, EventDeleting, "Asked Konnect to delete %s %s; the object stays until Konnect has finished", kind, id)
		// Konnect may be done already; otherwise this records its state.
		r.metrics.EntityOperation(kind, "read")
		progress, err = r.kind.Async.Read(ctx, api, obj, p, id)
		if konnect.IsNotFound(err) {
			r.recorder.Eventf(obj, corev1.EventTypeNormal, EventDeleted, "Deleted %s %s from Konnect", kind, id)
			return true, Result{}, nil
		}
		if err != nil {
			return false, Result{}, r.failed(ctx, t, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
		}
		waiting = fmt.Sprintf("%s %s is %s in Konnect; the object stays until Konnect has finished", kind, id, progress.State)
	}
	SetCondition(obj, FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonDeleting, waiting))
	if _, err := r.writeStatus(ctx, t); err != nil {
		return false, Result{}, err
	}
	return false, Result{RequeueAfter: r.nextPendingRead(t)}, nil
}
