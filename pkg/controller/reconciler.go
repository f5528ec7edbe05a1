package controller

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	events "k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// Event reasons of the entity's life in Konnect.
const (
	// EventCreated: the operator created the entity in Konnect.
	EventCreated = "Created"
	// EventUpdated: the operator wrote the spec over the entity.
	EventUpdated = "Updated"
	// EventDeleted: the operator deleted the entity from Konnect.
	EventDeleted = "Deleted"
	// EventFound: an entity the operator had created, but whose ID it had
	// not recorded (a crash between the create and the status write), was
	// found by its k8s-uid tag and taken over instead of created twice.
	EventFound = "FoundByUID"
	// EventReferenceFailed: a reference has not been usable for a while
	// (10 seconds); the message follows it to its cause.
	EventReferenceFailed = "ReferencesNotReady"
)

// QuietWait is how long a new object whose references are on their way to
// Konnect waits without saying so in its status: most such waits end
// within seconds (a route applied with its service), and a status that said
// "waiting" would cost a second status write per object. A reference that
// fails ends the quiet at once, as its condition then names a cause. A
// reference that does not exist is waited for quietly only for the
// reference grace period.
const QuietWait = 5 * time.Minute

// ReconcilerOptions configure an EntityReconciler.
type ReconcilerOptions struct {
	// SyncPeriod is how often an unchanged entity is written to Konnect
	// again, so that changes made outside the cluster are overwritten.
	SyncPeriod time.Duration
	// Clock defaults to the real clock.
	Clock clock.WithTicker
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
	// Policies are the day-2 controls of objects that name none.
	Policies commonv1alpha1.PolicyDefaults
	// Cluster is this cluster's identity: entities tagged with another are
	// another cluster's operator's, and never written or deleted from here.
	Cluster string
}

// EntityReconciler reconciles the objects of one kind with their Konnect
// entities: each reconcile (a pass) observes the object, decides one action
// (decide.go) and carries it out (execute.go, finalize.go, async.go).
type EntityReconciler[T Entity, D any] struct {
	kind     *Kind[T, D]
	informer *Informer[T]
	clients  ClientGetter[T]
	konnect  ClientSource
	recorder events.EventRecorder
	clock    clock.WithTicker
	metrics  *metrics.ControllerMetrics
	timing   timing
	memory   *memory
	// driftMode is DriftList or DriftUpdate; scopes is the lister's queue
	// of listing scopes, nil when the kind is not listed (lister.go).
	driftMode string
	scopes    workqueue.TypedDelayingInterface[string]
	// listingNow counts the listings running; scopeTurns holds the
	// listing scopes whose last listing the limiter deferred; listingOrgs
	// the organisations being listed (listerorgs.go).
	listingNow  atomic.Int32
	scopeTurns  sync.Map
	listingOrgs listingOrgs
	// pendingBackoff and pendingBackoffMax space out the reads of entities
	// in transition (Kind.Async).
	pendingBackoff, pendingBackoffMax time.Duration
	// defaults are the day-2 policies of objects that name none; cluster
	// is this cluster's identity (see ReconcilerOptions).
	defaults commonv1alpha1.PolicyDefaults
	cluster  string
	// recovery indexes the listed entities that objects without an ID
	// take back (Recovery.ByIdentity).
	recovery *recoveryIndex[D]
}

// NewEntityReconciler returns the reconciler of one kind.
func NewEntityReconciler[T Entity, D any](kind *Kind[T, D], informer *Informer[T], clients ClientGetter[T], konnectClients ClientSource, recorder events.EventRecorder, opts ReconcilerOptions) *EntityReconciler[T, D] {
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
		kind:     kind,
		informer: informer,
		clients:  clients,
		konnect:  konnectClients,
		recorder: recorder,
		clock:    opts.Clock,
		metrics:  opts.Metrics,
		timing: timing{
			syncPeriod:     opts.SyncPeriod,
			referenceGrace: opts.ReferenceGracePeriod,
			quietWait:      QuietWait,
			startedAt:      time.Now(),
		},
		driftMode:         opts.DriftDetection,
		pendingBackoff:    opts.PendingBackoff,
		pendingBackoffMax: opts.PendingBackoffMax,
		defaults:          opts.Policies,
		cluster:           opts.Cluster,
		recovery:          newRecoveryIndex[D](opts.Clock, opts.SyncPeriod),
	}
	r.memory = newMemory(nil)
	if kind.List != nil {
		// In update mode only the entities under the report policy are
		// listed; a kind that cannot list has no lister at all.
		r.scopes = workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{
			Name:  kind.KindName() + "-listing",
			Clock: opts.Clock,
		})
		r.memory.schedule = r.scheduleScope
	}
	return r
}

// Started records when the reconciler's workers started, by the API
// server's clock (the real one): objects created before may have entities
// that an earlier process created.
func (r *EntityReconciler[T, D]) Started(at time.Time) { r.timing.startedAt = at }

// pass is one reconcile of one object: what it works on, what was decided,
// and the edits to the object's record that carrying it out makes.
type pass[T Entity, D any] struct {
	key cache.ObjectName
	// cached is the informer's object; obj a copy the pass may change.
	cached, obj T
	facts       facts
	desired     D
	res         Resolution
	// rec is the record as decide saw it.
	rec    record
	action action
	edits  []edit
	// stalled: what the pass found cannot go on without a change (a
	// permanent failure, references refused or blocked, an entity another
	// cluster owns): the status says Stalled rather than Reconciling.
	stalled bool
}

// remember adds edits to the object's record, applied once the pass ends.
func (t *pass[T, D]) remember(edits ...edit) { t.edits = append(t.edits, edits...) }

// Reconcile implements Reconciler.
func (r *EntityReconciler[T, D]) Reconcile(ctx context.Context, key cache.ObjectName) (Result, error) {
	cached, err := r.informer.Get(key.Namespace, key.Name)
	if apierrors.IsNotFound(err) {
		if r.memory.forget(key) {
			r.recovery.forget() // its entity stays: the listings no longer show all
		}
		return Result{}, nil
	}
	if err != nil {
		return Result{}, err
	}
	if !r.kind.IsManaged(cached) {
		return Result{}, nil
	}
	t := &pass[T, D]{key: key, cached: cached, obj: cached.DeepCopyObject().(T)}
	if r.kind.SecretValues != nil {
		ctx = konnect.WithSecrets(ctx, r.kind.SecretValues(t.obj)...)
	}
	purpose := ForSync
	if t.obj.GetDeletionTimestamp() != nil {
		purpose = ForDelete
	}
	if t.res, err = r.resolve(ctx, t.obj, purpose); err != nil {
		return Result{}, err
	}
	t.rec = r.memory.get(key, t.obj.GetUID())
	if r.memory.vacated(key, t.obj.GetUID()) {
		r.recovery.forget() // as when it is forgotten: it went while its entity stays
	}
	// Whatever the pass did is remembered in one place, however it ends.
	defer func() { r.memory.update(key, t.obj.GetUID(), t.edits...) }()
	refused, err := r.observe(ctx, t)
	switch {
	case err != nil:
		return Result{}, err
	case refused != nil:
		return Result{}, r.failed(ctx, t, commonv1alpha1.ReasonFailedToCreate, Permanent(refused, r.timing.syncPeriod))
	}
	t.action = r.timing.decide(t.facts, t.res, t.rec, r.clock.Now())
	klog.FromContext(ctx).V(4).Info("Decided", "action", t.action.op, "id", t.action.id, "wait", t.action.wait, "changed", t.action.changed)
	return r.act(ctx, t)
}

// resolve resolves obj's references, and places its entity as this
// cluster's: what the entity is written with names this cluster.
func (r *EntityReconciler[T, D]) resolve(ctx context.Context, obj T, purpose Purpose) (Resolution, error) {
	res, err := r.kind.Resolve(ctx, obj, purpose)
	res.Placement.Cluster = r.cluster
	return res, err
}

// act carries out the pass's action.
func (r *EntityReconciler[T, D]) act(ctx context.Context, t *pass[T, D]) (Result, error) {
	if t.facts.id != "" && t.rec.createdID != "" {
		t.remember(forgetCreated) // the status carries the ID now
	}
	if t.facts.id != "" && t.rec.knownID != t.facts.id {
		t.remember(knownEntity(t.facts.id))
	}
	if !t.action.assumeSyncedAt.IsZero() {
		t.remember(assumeSynced(t.facts.fingerprint, t.action.assumeSyncedAt))
	}
	switch t.action.op {
	case opWaitQuietly, opWaitForDeletion:
		if t.action.noteProblem {
			t.remember(problemSeen(t.facts.problem, r.clock.Now()))
		}
		return Result{RequeueAfter: t.action.wait}, nil
	case opForget:
		t.remember(forgetAll)
		return Result{}, nil
	case opAwaitCache:
		return Result{}, nil
	case opReportReferences:
		return r.reportReferences(ctx, t)
	case opWaitForDependents:
		r.reportDependents(t)
		return Result{}, nil
	case opRelease, opDropWithParent, opDelete:
		return r.delete(ctx, t)
	case opReportUndeletable:
		return Result{}, r.reportUndeletable(ctx, t)
	case opPause:
		return r.pause(ctx, t)
	case opReportPolicy:
		return r.reportPolicy(ctx, t)
	case opOrphan:
		return r.orphan(ctx, t)
	case opReportForeign:
		return r.reportForeign(ctx, t)
	case opReportRefusal:
		return r.reportRefusal(ctx, t)
	}
	// Finalizer before any Konnect call, so that no entity can exist that
	// the operator does not know to delete.
	if err := r.ensureFinalizer(ctx, t.obj); err != nil {
		return Result{}, err
	}
	switch t.action.op {
	case opKeep:
		return r.keep(ctx, t)
	case opReportDrift:
		return r.reportDrift(ctx, t)
	case opSettle:
		t.remember(programmedAt(t.obj.GetGeneration()))
		r.policyConditions(t, false)
		return r.settle(ctx, t, r.kind.Async.Recorded(t.obj), t.action.wait)
	case opRefresh:
		return r.refresh(ctx, t)
	case opCreate, opAdopt:
		if err := r.showUnfinished(ctx, t); err != nil {
			return Result{}, err
		}
	}
	return r.write(ctx, t) // opCreate, opAdopt, opUpdate
}

// showUnfinished writes, before the first create of an object whose status
// shows nothing yet (a kind whose schema defaults no status), that it is
// being created, so that no reader takes it for done meanwhile. The pass
// goes on from the status written.
func (r *EntityReconciler[T, D]) showUnfinished(ctx context.Context, t *pass[T, D]) error {
	v := r.verdict(t)
	if t.facts.unfinishedShown || v.Standing == Current {
		return nil
	}
	SetReadiness(t.obj, v)
	updated, err := r.clients(t.obj.GetNamespace()).UpdateStatus(ctx, t.obj, metav1.UpdateOptions{FieldManager: FieldManager})
	if err != nil {
		return err
	}
	r.metrics.StatusWritten(r.kind.KindName())
	t.cached = updated
	t.obj.SetResourceVersion(updated.GetResourceVersion())
	return nil
}

// observe reads what decide needs of the object into t.facts: and, for a
// sync with ready references, the desired entity and its fingerprint. It
// sets the reference conditions on the copy. refused is the kind's refusal
// to build the entity; err any other failure.
func (r *EntityReconciler[T, D]) observe(ctx context.Context, t *pass[T, D]) (refused, err error) {
	obj, f := t.obj, &t.facts
	*f = facts{
		finalizer:     hasFinalizer(obj, commonv1alpha1.FinalizerKonnectCleanup),
		id:            obj.KonnectStatus(false).GetKonnectID(),
		createdAt:     obj.GetCreationTimestamp().Time,
		programmed:    IsProgrammed(t.cached),
		borrowed:      r.kind.borrows(obj),
		policies:      commonv1alpha1.PoliciesOf(obj, r.defaults),
		ownerReadable: r.cluster != "" && r.kind.Owner != nil,
		find:          r.findMode(obj),
	}
	f.lists = r.lists(obj, f.policies)
	if c := meta.FindStatusCondition(obj.GetConditions(), commonv1alpha1.ConditionProgrammed); c != nil {
		f.reported = c.Status != metav1.ConditionUnknown
	}
	f.unfinishedShown = IsConditionTrue(obj.GetConditions(), commonv1alpha1.ConditionReconciling) ||
		IsConditionTrue(obj.GetConditions(), commonv1alpha1.ConditionStalled)
	if deleted := obj.GetDeletionTimestamp(); deleted != nil {
		f.deleting, f.deletionAt = true, deleted.Time
		if f.finalizer && r.waitsForDependents(obj) {
			f.dependents, err = r.dependents(t.key)
		}
		return nil, err
	}
	r.applyReferenceConditions(obj, t.res.Conditions)
	if !t.res.Ready {
		f.problem = falseConditionsMessage(obj.GetConditions())
		return nil, nil
	}
	if opts := r.kind.adoptOptions(obj); opts != nil && opts.Konnect != nil {
		f.adopting = true
		f.takeOver = opts.EffectiveMode() == commonv1alpha1.AdoptModeOverride
	}
	if r.kind.Async != nil {
		f.async, f.phase = true, r.kind.Async.Recorded(obj).Phase
	}
	if t.desired, refused = r.kind.Desired(ctx, obj, t.res.Placement); refused != nil {
		return refused, nil
	}
	f.fingerprint, err = fingerprint(t.desired, obj)
	return nil, err
}
