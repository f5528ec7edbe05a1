package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// Event reasons.
const (
	EventCreated         = "Created"
	EventUpdated         = "Updated"
	EventDeleted         = "Deleted"
	EventFound           = "FoundByUID"
	EventReferenceFailed = "ReferencesNotReady"
)

// ReconcilerOptions configure an EntityReconciler.
type ReconcilerOptions struct {
	// SyncPeriod is how often an unchanged entity is written to Konnect
	// again, so that changes made outside the cluster are overwritten.
	SyncPeriod time.Duration
	// Clock defaults to the real clock.
	Clock clock.PassiveClock
	// Metrics counts status writes and entity operations.
	Metrics *metrics.ControllerMetrics
	// PendingBackoff is the first delay before an entity that Konnect is
	// still provisioning (or terminating) is read again; it doubles on
	// every read that finds it so, up to PendingBackoffMax. Defaults: 1s
	// and 30s.
	PendingBackoff, PendingBackoffMax time.Duration
	// ReferenceGracePeriod is how long a reference problem lasts before a
	// Warning Event reports it; default DefaultReferenceGracePeriod.
	ReferenceGracePeriod time.Duration
	// DriftDetection is DriftList (the default) or DriftUpdate: how changes
	// made in Konnect outside the cluster are found each sync period.
	DriftDetection string
}

// EntityReconciler implements the seed algorithm for one kind.
type EntityReconciler[T Entity, D any] struct {
	kind       *Kind[T, D]
	informer   *Informer[T]
	clients    ClientGetter[T]
	konnect    ClientSource
	recorder   record.EventRecorder
	clock      clock.PassiveClock
	syncPeriod time.Duration
	metrics    *metrics.ControllerMetrics
	state      *syncState
	warnings   *warnings
	// referenceGrace is how long a reference problem lasts before a
	// Warning Event reports it.
	referenceGrace time.Duration
	// driftMode is DriftList or DriftUpdate; drift and planes are the
	// lister's index and queue of control planes (lister.go).
	driftMode string
	drift     *driftIndex
	planes    workqueue.TypedDelayingInterface[string]
	// startedAt separates objects created while this reconciler runs (their
	// entities can only come from it) from older ones, whose entity may
	// have been created by an earlier process, or an earlier leader, that
	// stopped before writing the ID to the status.
	startedAt time.Time
	// pendingBackoff and pendingBackoffMax space out the reads of entities
	// in transition (Kind.Async).
	pendingBackoff, pendingBackoffMax time.Duration
}

// NewEntityReconciler returns the reconciler of one kind.
func NewEntityReconciler[T Entity, D any](kind *Kind[T, D], informer *Informer[T], clients ClientGetter[T], konnectClients ClientSource, recorder record.EventRecorder, opts ReconcilerOptions) *EntityReconciler[T, D] {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.PendingBackoff <= 0 {
		opts.PendingBackoff = time.Second
	}
	if opts.PendingBackoffMax < opts.PendingBackoff {
		opts.PendingBackoffMax = max(30*time.Second, opts.PendingBackoff)
	}
	if opts.ReferenceGracePeriod == 0 {
		opts.ReferenceGracePeriod = DefaultReferenceGracePeriod
	}
	if opts.DriftDetection == "" {
		opts.DriftDetection = DriftList
	}
	opts.Metrics.InitKind(kind.KindName())
	r := &EntityReconciler[T, D]{
		kind:       kind,
		informer:   informer,
		clients:    clients,
		konnect:    konnectClients,
		recorder:   recorder,
		clock:      opts.Clock,
		syncPeriod: opts.SyncPeriod,
		metrics:    opts.Metrics,
		state:      newSyncState(),
		startedAt:  opts.Clock.Now(),

		pendingBackoff:    opts.PendingBackoff,
		pendingBackoffMax: opts.PendingBackoffMax,
		warnings:          newWarnings(),
		referenceGrace:    opts.ReferenceGracePeriod,
		driftMode:         opts.DriftDetection,
		planes:            newPlaneQueue(),
	}
	r.drift = newDriftIndex(r.schedulePlane)
	return r
}

// Started records when the reconciler's workers started.
func (r *EntityReconciler[T, D]) Started(at time.Time) { r.startedAt = at }

// Reconcile implements Reconciler.
func (r *EntityReconciler[T, D]) Reconcile(ctx context.Context, key cache.ObjectName) (Result, error) {
	cached, err := r.informer.Get(key.Namespace, key.Name)
	if apierrors.IsNotFound(err) {
		r.state.forget(key)
		r.drift.forget(key)
		r.warnings.forget(key)
		return Result{}, nil
	}
	if err != nil {
		return Result{}, err
	}
	if !r.kind.IsManaged(cached) {
		return Result{}, nil
	}
	obj := cached.DeepCopyObject().(T)
	if obj.GetDeletionTimestamp() != nil {
		return r.finalize(ctx, key, cached, obj)
	}
	return r.sync(ctx, key, cached, obj)
}

func (r *EntityReconciler[T, D]) sync(ctx context.Context, key cache.ObjectName, cached, obj T) (Result, error) {
	logger := klog.FromContext(ctx)
	res, err := r.kind.Resolve(ctx, obj, ForSync)
	if err != nil {
		return Result{}, err
	}
	r.applyReferenceConditions(obj, res.Conditions)
	if !res.Ready {
		if wait := r.quietWait(obj, res); wait > 0 {
			// The references' own changes enqueue this object again.
			return Result{RequeueAfter: wait}, nil
		}
		message := falseConditionsMessage(obj.GetConditions())
		SetCondition(obj, FalseCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonConditionWithStatusFalseExists, message))
		_, err := r.writeStatus(ctx, cached, obj)
		if res.ParentGone {
			r.reportGoneWithParent(cached, message)
		}
		// The references' own changes enqueue this object again; the wait
		// is for the Warning of a problem that lasts.
		return Result{RequeueAfter: r.warnReferences(obj, message)}, err
	}
	if err := r.ensureFinalizer(ctx, obj); err != nil {
		return Result{}, err
	}
	api, err := r.konnect.API(res.Placement.Auth.ServerURL, res.Placement.Auth.Token)
	if err != nil {
		return Result{}, r.failed(ctx, cached, obj, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
	}
	desired, err := r.kind.Desired(ctx, obj, res.Placement)
	if err != nil {
		return Result{}, r.failed(ctx, cached, obj, commonv1alpha1.ReasonFailedToCreate, Permanent(err, r.syncPeriod))
	}
	fp, err := fingerprint(desired, obj)
	if err != nil {
		return Result{}, err
	}

	now := r.clock.Now()
	id := obj.KonnectStatus(false).GetKonnectID()
	if id == "" {
		// Created by an earlier reconcile whose status write did not land.
		id = r.state.createdID(obj.GetUID())
	} else {
		r.state.forgetCreated(obj.GetUID())
	}
	var created, changed bool
	var snapshot Snapshot
	// A write the lister asked for: the entity drifted, or is missing.
	mark, marked := r.drift.takeMark(key, obj.GetUID())
	if id == "" {
		if id, snapshot, created, err = r.create(ctx, api, obj, res.Placement, desired); err != nil {
			return Result{}, r.failed(ctx, cached, obj, commonv1alpha1.ReasonFailedToCreate, err)
		}
		r.state.rememberCreated(obj.GetUID(), id)
		// Taking an existing entity over records its own Event.
		changed = created
	} else {
		if !marked {
			if wait, write := r.due(key, cached, fp, now); !write {
				if async := r.kind.Async; async != nil {
					if async.Recorded(obj).Phase != Settled {
						// Konnect is still working on the entity, or gave
						// up: read it again.
						return r.refresh(ctx, api, key, cached, obj, res.Placement, id)
					}
					r.warnings.programmed(key, obj.GetUID(), obj.GetGeneration())
					return r.settle(ctx, key, cached, obj, res.Placement, id, async.Recorded(obj), wait)
				}
				// Nothing to write to Konnect yet; the status may still need
				// to say so again (a reference that was broken came back).
				r.markProgrammed(obj, res.Placement, id)
				if r.lists(obj) {
					r.drift.ensure(key, obj.GetUID(), res.Placement, id)
				}
				_, err := r.writeStatus(ctx, cached, obj)
				r.warnings.programmed(key, obj.GetUID(), obj.GetGeneration())
				return Result{RequeueAfter: wait}, err
			}
		}
		changed = !r.state.isSynced(key, obj.GetUID(), fp)
		r.metrics.EntityOperation(r.kind.KindName(), "update")
		snapshot, err = r.kind.Update(ctx, api, obj, res.Placement, id, desired)
		if errors.Is(err, ErrInTransition) {
			// Not written: the next reconcile after the entity settles
			// writes it (nothing is remembered as synced).
			r.state.forgetSync(key)
			return r.settle(ctx, key, cached, obj, res.Placement, id, r.kind.Async.Recorded(obj), r.syncPeriod)
		}
		if konnect.IsNotFound(err) {
			logger.Info("Entity is gone from Konnect; creating it again", "id", id)
			if !marked {
				mark, marked = driftMark{uid: obj.GetUID(), cause: driftMissing}, true
			}
			if id, snapshot, created, err = r.create(ctx, api, obj, res.Placement, desired); err == nil {
				r.state.rememberCreated(obj.GetUID(), id)
			}
		}
		if err != nil {
			r.remark(key, mark, marked)
			return Result{}, r.failed(ctx, cached, obj, commonv1alpha1.ReasonFailedToUpdate, err)
		}
	}
	if r.kind.AfterSync != nil {
		if err := r.kind.AfterSync(ctx, api, obj, res.Placement, id, created); err != nil {
			// The entity was written but what follows it was not: whatever
			// the spec says next, write again.
			r.state.forgetSync(key)
			r.remark(key, mark, marked)
			r.markProgrammed(obj, res.Placement, id) // the entity exists: keep its ID
			return Result{}, r.failed(ctx, cached, obj, commonv1alpha1.ReasonFailedToUpdate, err)
		}
	}
	r.state.synced(key, obj.GetUID(), fp, now)
	switch {
	case !r.lists(obj):
		r.drift.forget(key)
	case snapshot.Known():
		r.drift.track(key, obj.GetUID(), res.Placement, id, snapshot, now)
	default:
		// Nothing was written (an entity adopted in match mode): the first
		// listing compares it with the spec.
		r.drift.ensure(key, obj.GetUID(), res.Placement, id)
	}
	r.warnings.programmed(key, obj.GetUID(), obj.GetGeneration())
	if r.kind.Async != nil {
		r.recordWrite(obj, id, created, changed)
		return r.afterWrite(ctx, api, key, cached, obj, res.Placement, id)
	}
	r.markProgrammed(obj, res.Placement, id)
	if _, err := r.writeStatus(ctx, cached, obj); err != nil {
		// What the adapter recorded in the status (conditions, endpoints)
		// is lost with the write; only another sync records it again.
		r.state.forgetSync(key)
		return Result{}, err
	}
	if marked && mark.counts() {
		r.metrics.DriftCorrected(r.kind.KindName())
		r.recorder.Eventf(obj, corev1.EventTypeWarning, EventDriftCorrected, "%s %s %s; wrote what the cluster declares again", r.kind.KindName(), id, mark.describe())
	}
	r.recordWrite(obj, id, created, changed)
	if r.lists(obj) {
		// The lister finds drift; nothing is written until something changes.
		return Result{}, nil
	}
	return Result{RequeueAfter: r.syncPeriod}, nil
}

// QuietWait is how long a new object whose references are on their way to
// Konnect waits without saying so in its status: most such waits end
// within seconds (a route applied with its service), and a status that said
// "waiting" would cost a second status write per object. A reference that
// fails ends the quiet at once, as its condition then names a cause. A
// reference that does not exist is waited for quietly only for the
// reference grace period.
const QuietWait = 5 * time.Minute

// quietWait returns how long obj may still wait for its references without
// a status write: only a new object (Programmed not reported yet) with
// nothing wrong but references not there yet, up to QuietWait (references
// on their way) or the reference grace period (references not found) after
// its creation. Zero: write the status now.
func (r *EntityReconciler[T, D]) quietWait(obj T, res Resolution) time.Duration {
	if c := meta.FindStatusCondition(obj.GetConditions(), commonv1alpha1.ConditionProgrammed); c != nil && c.Status != metav1.ConditionUnknown {
		return 0 // reported already (the schema's default is Unknown)
	}
	var quiet time.Duration
	switch res.Waiting {
	case WaitProgress:
		quiet = QuietWait
	case WaitMissing:
		quiet = r.referenceGrace
	default:
		return 0
	}
	return max(obj.GetCreationTimestamp().Add(quiet).Sub(r.clock.Now()), 0)
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

// due decides whether the entity must be written now and, when not, how
// long until it must be (zero: never by itself). In list mode an entity is
// written only when the spec or the metadata changed (or the lister marked
// it); in update mode, and for kinds that cannot list, also every sync
// period.
func (r *EntityReconciler[T, D]) due(key cache.ObjectName, cached T, fp uint64, now time.Time) (time.Duration, bool) {
	if r.lists(cached) {
		return 0, r.state.changed(key, cached.GetUID(), fp, IsProgrammed(cached), now)
	}
	wait := r.state.due(key, cached.GetUID(), fp, IsProgrammed(cached), now, r.syncPeriod)
	return wait, wait == 0
}

// remark puts back the lister's request after a failed write, so that the
// retry writes even though the spec did not change.
func (r *EntityReconciler[T, D]) remark(key cache.ObjectName, mark driftMark, marked bool) {
	if marked {
		r.drift.mark(key, mark)
	}
}

// create creates the entity, unless it already exists with this object's
// UID, and returns its ID. Never a duplicate: an entity is looked up by its
// UID before creating when it may exist already, and after a conflict.
// created is false when an existing entity was taken over instead (by
// spec.adopt or by its UID tag): it may hold more than was sent.
// The snapshot is Konnect's answer to the write, when the kind takes one.
func (r *EntityReconciler[T, D]) create(ctx context.Context, api konnect.API, obj T, p Placement, desired D) (id string, snapshot Snapshot, created bool, err error) {
	if opts := r.kind.adoptOptions(obj); opts != nil && opts.Konnect != nil {
		id, snapshot, err := r.adoptExisting(ctx, api, obj, p, desired, opts)
		return id, snapshot, false, err
	}
	if r.mayExistAlready(obj) {
		if id, snapshot, err := r.adopt(ctx, api, obj, p, desired); id != "" || err != nil {
			return id, snapshot, false, err
		}
	}
	r.metrics.EntityOperation(r.kind.KindName(), "create")
	id, snapshot, err = r.kind.Create(ctx, api, obj, p, desired)
	switch {
	case err == nil:
		if r.kind.borrows(obj) {
			// A borrowed entity is only read, never created.
			r.recorder.Eventf(obj, corev1.EventTypeNormal, EventBorrowed, "Using %s %s, which exists in Konnect; it is never changed or deleted from here", r.kind.KindName(), id)
			return id, snapshot, false, nil
		}
		return id, snapshot, true, nil
	case konnect.IsConflict(err):
		if found, snapshot, adoptErr := r.adopt(ctx, api, obj, p, desired); found != "" || adoptErr != nil {
			return found, snapshot, false, adoptErr
		}
		// Another entity holds a unique field (a name, a username): only a
		// spec change can fix that.
		return "", Snapshot{}, false, Permanent(err, r.syncPeriod)
	case outcomeUnknown(err):
		r.state.markCreateOutcomeUnknown(obj.GetUID())
	}
	return "", Snapshot{}, false, err
}

// adopt finds the entity tagged with obj's UID and writes desired over it,
// returning its ID, or "" when there is none.
func (r *EntityReconciler[T, D]) adopt(ctx context.Context, api konnect.API, obj T, p Placement, desired D) (string, Snapshot, error) {
	id, err := r.kind.FindByUID(ctx, api, obj, p)
	if err != nil || id == "" {
		return "", Snapshot{}, err
	}
	r.metrics.EntityOperation(r.kind.KindName(), "update")
	snapshot, err := r.kind.Update(ctx, api, obj, p, id, desired)
	if err != nil {
		if konnect.IsNotFound(err) {
			return "", Snapshot{}, nil
		}
		return "", Snapshot{}, err
	}
	klog.FromContext(ctx).Info("Found the entity by its UID tag; taking it over", "id", id)
	r.recorder.Eventf(obj, corev1.EventTypeNormal, EventFound, "Found %s %s in Konnect by its UID tag and took it over", r.kind.KindName(), id)
	return id, snapshot, nil
}

func (r *EntityReconciler[T, D]) mayExistAlready(obj T) bool {
	return obj.GetCreationTimestamp().Time.Before(r.startedAt) || r.state.isCreateOutcomeUnknown(obj.GetUID())
}

// outcomeUnknown reports whether a failed create may have created the
// entity anyway.
func outcomeUnknown(err error) bool {
	return !konnect.IsInvalidInput(err) && !konnect.IsAuth(err) && !konnect.IsConflict(err) &&
		!konnect.IsNotFound(err) && !isRateLimited(err)
}

func isRateLimited(err error) bool {
	var rl *konnect.RateLimitedError
	return errors.As(err, &rl)
}

func (r *EntityReconciler[T, D]) finalize(ctx context.Context, key cache.ObjectName, cached, obj T) (Result, error) {
	if !hasFinalizer(obj, commonv1alpha1.FinalizerKonnectCleanup) {
		r.state.forget(key)
		return Result{}, nil
	}
	if r.state.isFinalized(key, obj.GetUID()) {
		// Done already; the cache has not caught up with the write.
		return Result{}, nil
	}
	if wait := obj.GetDeletionTimestamp().Sub(r.clock.Now()); wait > 0 {
		return Result{RequeueAfter: wait}, nil
	}
	if r.kind.borrows(obj) {
		return Result{}, r.release(ctx, key, obj)
	}
	if held, err := r.held(key, obj); held || err != nil {
		return Result{}, err
	}
	res, err := r.kind.Resolve(ctx, obj, ForDelete)
	if err != nil {
		return Result{}, err
	}
	if res.Gone {
		if id := obj.KonnectStatus(false).GetKonnectID(); id != "" {
			r.recorder.Eventf(obj, corev1.EventTypeNormal, EventDeletedWithParent,
				"%s %s was deleted from Konnect with its control plane or parent already; nothing left to delete", r.kind.KindName(), id)
		}
	} else {
		if !res.Ready {
			r.applyReferenceConditions(obj, res.Conditions)
			err := fmt.Errorf("cannot delete the entity from Konnect: %s", falseConditionsMessage(obj.GetConditions()))
			return Result{}, r.failed(ctx, cached, obj, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
		}
		api, err := r.konnect.API(res.Placement.Auth.ServerURL, res.Placement.Auth.Token)
		if err != nil {
			return Result{}, r.failed(ctx, cached, obj, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
		}
		id := obj.KonnectStatus(false).GetKonnectID()
		if id == "" {
			id = r.state.createdID(obj.GetUID())
		}
		if id == "" {
			// A create may have succeeded without its ID reaching the status.
			if id, err = r.kind.FindByUID(ctx, api, obj, res.Placement); err != nil {
				return Result{}, r.failed(ctx, cached, obj, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
			}
		}
		if id != "" && r.kind.Async != nil {
			done, result, err := r.finalizeAsync(ctx, api, key, cached, obj, res.Placement, id)
			if !done || err != nil {
				return result, err
			}
		} else if id != "" {
			r.metrics.EntityOperation(r.kind.KindName(), "delete")
			err := r.kind.Delete(ctx, api, obj, res.Placement, id)
			if err != nil && !konnect.IsNotFound(err) {
				return Result{}, r.failed(ctx, cached, obj, commonv1alpha1.ReasonKonnectAPIOpFailed, err)
			}
			r.recorder.Eventf(obj, corev1.EventTypeNormal, EventDeleted, "Deleted %s %s from Konnect", r.kind.KindName(), id)
		}
	}
	if err := r.removeFinalizers(ctx, obj); err != nil {
		return Result{}, err
	}
	r.state.markFinalized(key, obj.GetUID())
	return Result{}, nil
}

// failed records a failed Konnect call: Programmed=False with Konnect's
// message and a Warning Event. A 429 is not a failure: the status is left
// alone and the object waits for the delay.
func (r *EntityReconciler[T, D]) failed(ctx context.Context, cached, obj T, reason string, err error) error {
	var rl *konnect.RateLimitedError
	if errors.As(err, &rl) {
		return &RateLimitedError{Delay: rl.RetryAfter, Err: err}
	}
	var withReason *ReasonError
	if errors.As(err, &withReason) {
		reason = withReason.Reason
	}
	SetCondition(obj, FalseCondition(commonv1alpha1.ConditionProgrammed, reason, err.Error()))
	if _, werr := r.writeStatus(ctx, cached, obj); werr != nil {
		klog.FromContext(ctx).V(2).Info("Could not record the failure in the status", "err", werr)
	}
	r.warnFailure(obj, reason, err.Error())
	if konnect.IsAuth(err) || konnect.IsInvalidInput(err) {
		// Retrying will not help until the spec, the token or a referenced
		// object changes, and those changes enqueue the object.
		return Permanent(err, r.syncPeriod)
	}
	return err
}

func (r *EntityReconciler[T, D]) markProgrammed(obj T, p Placement, id string) {
	r.recordPlacement(obj, p, id)
	SetCondition(obj, TrueCondition(commonv1alpha1.ConditionProgrammed, commonv1alpha1.ReasonProgrammed, ""))
}

// recordPlacement records the entity's ID, server URL and organisation.
func (r *EntityReconciler[T, D]) recordPlacement(obj T, p Placement, id string) {
	status := obj.KonnectStatus(true)
	status.ID = id
	status.ServerURL = p.Auth.ServerURL
	status.OrgID = p.Auth.OrgID
}

// applyReferenceConditions sets the reference conditions Resolve returned
// and removes those of the adapter's types that no longer apply.
func (r *EntityReconciler[T, D]) applyReferenceConditions(obj T, conditions []metav1.Condition) {
	present := map[string]bool{}
	for _, c := range conditions {
		present[c.Type] = true
		SetCondition(obj, c)
	}
	for _, t := range r.kind.Conditions {
		if !present[t] {
			RemoveCondition(obj, t)
		}
	}
}

func (r *EntityReconciler[T, D]) writeStatus(ctx context.Context, cached, obj T) (bool, error) {
	written, err := WriteStatus(ctx, r.clients(obj.GetNamespace()), cached, obj)
	if written {
		r.metrics.StatusWritten(r.kind.KindName())
	}
	return written, err
}

func (r *EntityReconciler[T, D]) ensureFinalizer(ctx context.Context, obj T) error {
	if hasFinalizer(obj, commonv1alpha1.FinalizerKonnectCleanup) {
		return nil
	}
	return updateFinalizers(ctx, r.clients(obj.GetNamespace()), obj, append(obj.GetFinalizers(), commonv1alpha1.FinalizerKonnectCleanup))
}

func (r *EntityReconciler[T, D]) removeFinalizers(ctx context.Context, obj T) error {
	remove := map[string]bool{commonv1alpha1.FinalizerKonnectCleanup: true}
	for _, f := range r.kind.ExtraFinalizers {
		remove[f] = true
	}
	var keep []string
	for _, f := range obj.GetFinalizers() {
		if !remove[f] {
			keep = append(keep, f)
		}
	}
	return updateFinalizers(ctx, r.clients(obj.GetNamespace()), obj, keep)
}
