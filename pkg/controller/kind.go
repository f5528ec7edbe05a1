package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Kind describes one kind of object that stands for one Konnect entity:
// everything the generic loop (EntityReconciler) needs that differs between
// kinds. D is the desired entity, what the object asks for: the body sent
// to Konnect, or a struct of everything that decides the kind's Konnect
// calls (its fingerprint decides when the entity is written again).
//
// The fields up to Dependencies are required. Every optional behaviour is a
// field that is nil (or empty) when the kind does not have it.
type Kind[T Entity, D any] struct {
	// GVK is T's GroupVersionKind, for identity tags and Events.
	GVK schema.GroupVersionKind
	// Conditions are the reference conditions Resolve may set; those it
	// does not return are removed from the status.
	Conditions []string
	// Resolve checks obj's references through listers and says where the
	// entity lives. It may record references' Konnect IDs in obj's status
	// (obj is a copy).
	Resolve func(ctx context.Context, obj T, purpose Purpose) (Resolution, error)
	// Desired returns the entity obj asks for.
	Desired func(ctx context.Context, obj T, p Placement) (D, error)
	// Create creates the entity and returns its Konnect ID and the snapshot
	// of Konnect's answer (SnapshotOf; none when the kind cannot list, or
	// its entity is more than the answer shows). It may record what Konnect
	// answered in obj's status (obj is a copy).
	Create func(ctx context.Context, api konnect.API, obj T, p Placement, desired D) (string, Snapshot, error)
	// Update writes desired over the entity with the given ID and returns
	// the snapshot of Konnect's answer, as Create does. It answers a
	// konnect.NotFoundError when the entity no longer exists and cannot be
	// upserted, so that the loop creates it again.
	Update func(ctx context.Context, api konnect.API, obj T, p Placement, id string, desired D) (Snapshot, error)
	// Delete deletes the entity with the given ID; a konnect.NotFoundError
	// counts as done.
	Delete func(ctx context.Context, api konnect.API, obj T, p Placement, id string) error
	// FindByUID returns the ID of the entity tagged (or labelled) with obj's
	// UID, or "" when there is none: how an entity whose ID never reached the
	// status is found again instead of created twice. A kind whose entities
	// carry no tags finds it by what it holds instead (see Recovery).
	FindByUID func(ctx context.Context, api konnect.API, obj T, p Placement) (string, error)
	// Dependencies are the other objects obj refers to: their changes
	// reconcile obj again.
	Dependencies []Dependency[T]

	// Managed reports whether the operator reconciles obj at all (objects
	// bound to an in-cluster control plane are not). Nil: every object.
	Managed func(obj T) bool
	// Adopt, when set, lets spec.adopt take over an existing entity.
	Adopt *Adoption[T, D]
	// Compare, when set, reads the entity with the given ID and compares
	// it with desired, as Adoption.Inspect does, for a kind without
	// spec.adopt: what kubectl konnect diff shows.
	Compare func(ctx context.Context, api konnect.API, obj T, p Placement, id string, desired D) (Inspection, error)
	// AfterSync, when set, runs after every successful create or update,
	// for what follows the entity (a group's memberships).
	AfterSync func(ctx context.Context, api konnect.API, obj T, p Placement, id string, created bool) error
	// Borrows, when set, reports whether obj stands for an entity that the
	// operator reads but does not own (a mirrored control plane): creating it
	// only reads it, and deleting obj never deletes it.
	Borrows func(obj T) bool
	// UsedBy names the dependencies (Dependency.Name, registered by other
	// controllers with this kind's informer as Source) through which
	// objects of other kinds use this kind's objects: while being deleted,
	// an object is kept, and its entity left alone, until no object that
	// refers to it through one of them (a dependent) still carries the
	// cleanup finalizer.
	// A borrowed control plane waits so, as Konnect does not delete what
	// other objects created inside it; a network waits for the data-plane
	// groups deployed on it. For a kind with Borrows, only borrowed objects
	// wait.
	UsedBy []string
	// Owner, when set, reads the identity of the cluster whose operator
	// wrote the entity with the given ID (its k8s-cluster tag or label; ""
	// when none): before the first write or delete of an entity this
	// process knows nothing of, so that another cluster's entity is never
	// overwritten or deleted from here.
	Owner func(ctx context.Context, api konnect.API, obj T, p Placement, id string) (string, error)
	// ExtraFinalizers are removed together with the cleanup finalizer once
	// the entity is deleted.
	ExtraFinalizers []string
	// Async, when set, says that Konnect provisions and deletes the entity
	// asynchronously: see Async.
	Async *Async[T]
	// List, when set, lists the entities of this kind in the control plane
	// of p (ControlPlaneID and Auth; no parent, so nested collections use
	// their flat endpoint), in pages of konnect.PageSize; for an entity
	// outside control planes with a parent (ParentID: a portal's page),
	// those of the parent; for the others (a control plane, a portal), those
	// that p's credentials see in their organisation. Without all, only the entities tagged (or labelled)
	// with the kind, as this operator and Kong Operator tag what they write;
	// with all, every entity of the collection, for entities adopted as
	// they were (from Konnect's UI, decK, Terraform).
	// It is how drift is found once per sync period in the list mode of
	// drift detection. Nil: the kind's entities are written again every
	// sync period, the update mode of drift detection (DriftUpdate).
	List func(ctx context.Context, api konnect.API, p Placement, all bool) ([]Listed[D], error)
	// Lists, when set with List, reports whether List shows obj's entity;
	// the entities of other objects (a mirrored control plane, which the
	// operator does not label) are written, or read, every sync period.
	// Nil: every object's.
	Lists func(obj T) bool
	// Recover, when set, says how an object that does not know its
	// entity's ID finds it again (see Recovery). Nil: by its UID, when the
	// entity may exist already (the object is older than this process, or a
	// create's outcome was unknown) and after a conflict.
	Recover *Recovery[T, D]
	// SecretValues, when set, returns the secret material obj writes to
	// Konnect (a key-auth key, a basic-auth password, an HMAC or JWT
	// secret): Konnect's answers to obj's calls are stripped of them
	// (konnect.WithSecrets) before their messages reach conditions,
	// Events or logs.
	SecretValues func(obj T) []string
}

// Listed is one entity as a listing showed it.
type Listed[D any] struct {
	// ID is the entity's Konnect ID.
	ID string
	// Owner is the identity of the cluster whose operator wrote the entity
	// (its k8s-cluster tag or label), "" when it names none.
	Owner string
	// Object is the object the entity was written for, as its identity
	// tags (or labels) name it: how an object that lost the entity's ID
	// (a rebuilt cluster, a restore without status) finds it again.
	Object ObjectIdentity
	// Actual is the entity as Konnect answered it (an SDK type), for
	// Recovery.Record; nil when the kind does not give it.
	Actual any
	// Snapshot is the listed entity, to compare with the snapshot of the
	// operator's last write.
	Snapshot Snapshot
	// Differences compares the listed entity with what an object asks for,
	// field by field with Konnect's defaults (and hashes), and names the
	// fields that differ: how an entity is checked when no write of this
	// process left a snapshot (after a restart). Nil: it cannot be
	// compared, and is written once to take the snapshot.
	Differences func(desired D) []string
	// Sum is a hash of the entity as listed (SumOf its bytes, and of
	// whatever else the kind compares, such as a consumer's groups); 0
	// when the kind has none. An entity listed with the sum it had when a
	// listing last found it equal to its snapshot is unchanged, and is
	// compared no further.
	Sum uint64
	// Decode, when set, reads the rest of the entity (ID and Sum are set):
	// a kind may leave its entities undecoded until the lister finds that
	// their sum changed.
	Decode func() (Listed[D], error)
}

// decoded reads the rest of an entity listed undecoded.
func (l *Listed[D]) decoded() error {
	if l.Decode == nil {
		return nil
	}
	d, err := l.Decode()
	if err != nil {
		return err
	}
	d.ID, d.Sum = l.ID, l.Sum
	*l = d
	return nil
}

// Adoption is how a kind with spec.adopt takes over an existing entity
// instead of creating one: overwriting it with the spec (override) or
// verifying that it already equals the spec (match).
type Adoption[T Entity, D any] struct {
	// Options returns obj's spec.adopt, or nil.
	Options func(obj T) *commonv1alpha1.AdoptOptions
	// Inspect reads the entity to adopt and compares it with desired.
	Inspect func(ctx context.Context, api konnect.API, obj T, p Placement, id string, desired D) (Inspection, error)
}

// Inspection is what Adoption.Inspect found out about an entity to adopt.
type Inspection struct {
	// UID is the value of the entity's k8s-uid tag (or label), "" when it
	// has none.
	UID string
	// Owner is the identity of the cluster whose operator wrote the entity
	// (its k8s-cluster tag or label), "" when it names none.
	Owner string
	// Differences names, by their Konnect field names, the fields compared
	// in match mode that differ from the spec.
	Differences []string
	// Incompatibilities names the fields that must already agree in either
	// mode and do not, because overwriting them would move the entity
	// elsewhere (a route must already lead to the service its object names).
	Incompatibilities []string
	// Actual is the entity as read, in the JSON shape of the desired
	// entity where the kind can give it, so that a tool can show the
	// values of the fields that differ (kubectl konnect diff). Nil when the
	// kind does not give it; the loop does not read it.
	Actual any
}

// KindName is the kind's name, as Events and metrics show it.
func (k *Kind[T, D]) KindName() string { return k.GVK.Kind }

// IsManaged reports whether the operator reconciles obj.
func (k *Kind[T, D]) IsManaged(obj T) bool { return k.Managed == nil || k.Managed(obj) }

func (k *Kind[T, D]) borrows(obj T) bool { return k.Borrows != nil && k.Borrows(obj) }

// Inspector returns how the kind reads an entity and compares it with what
// an object asks for: its adoption's, or Compare; nil when it has none.
func (k *Kind[T, D]) Inspector() func(ctx context.Context, api konnect.API, obj T, p Placement, id string, desired D) (Inspection, error) {
	if k.Adopt != nil {
		return k.Adopt.Inspect
	}
	return k.Compare
}

func (k *Kind[T, D]) adoptOptions(obj T) *commonv1alpha1.AdoptOptions {
	if k.Adopt == nil {
		return nil
	}
	return k.Adopt.Options(obj)
}
