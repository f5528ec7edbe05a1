package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Adapter is what differs per kind: which references it has, how its spec
// becomes a Konnect entity, and which Konnect calls create, update, delete
// and find it. D is the kind's Konnect entity type.
type Adapter[T Entity, D any] interface {
	// GroupVersionKind of T, for identity tags and Events.
	GroupVersionKind() schema.GroupVersionKind
	// Managed reports whether the operator reconciles obj at all (for
	// example, objects bound to an in-cluster KIC control plane are not).
	Managed(obj T) bool
	// ConditionTypes lists the reference conditions Resolve may set.
	ConditionTypes() []string
	// Resolve checks obj's references through listers. It records the
	// Konnect IDs of parents in obj's status (obj is a copy).
	Resolve(ctx context.Context, obj T, purpose Purpose) (Resolution, error)
	// Desired returns the Konnect entity obj asks for.
	Desired(ctx context.Context, obj T, p Placement) (D, error)
	// Create creates the entity and returns its Konnect ID. It may record
	// what Konnect answered in obj's status (obj is a copy).
	Create(ctx context.Context, c *konnect.Client, obj T, p Placement, desired D) (string, error)
	// Update writes desired over the entity with the given ID. It answers a
	// konnect.NotFoundError when the entity no longer exists and cannot be
	// upserted.
	Update(ctx context.Context, c *konnect.Client, obj T, p Placement, id string, desired D) error
	// Delete deletes the entity with the given ID.
	Delete(ctx context.Context, c *konnect.Client, obj T, p Placement, id string) error
	// FindByUID returns the ID of the entity tagged (or labelled) with obj's
	// UID, or "" when there is none.
	FindByUID(ctx context.Context, c *konnect.Client, obj T, p Placement) (string, error)
}

// AfterSyncer is implemented by adapters with work to do after every
// successful create or update, such as group memberships.
type AfterSyncer[T Entity] interface {
	AfterSync(ctx context.Context, c *konnect.Client, obj T, p Placement, id string, created bool) error
}

// Borrower is implemented by adapters whose objects may stand for a Konnect
// entity that the operator reads but does not own, such as a mirrored
// control plane. Deleting a borrowing object never deletes its entity. As
// the entity stays, Konnect does not delete what other objects created
// inside it either: while being deleted, the object is kept until no object
// that refers to it through one of the HeldBy dependencies (Dependency.Name,
// registered by other controllers with this kind's informer as Source)
// still holds the cleanup finalizer, so that those objects can still reach
// Konnect through it to delete their entities.
type Borrower[T Entity] interface {
	// Borrows reports whether obj's entity is borrowed.
	Borrows(obj T) bool
	// HeldBy names the dependencies whose objects keep a borrowing object.
	HeldBy() []string
}

// Adopter is implemented by the adapters of kinds with spec.adopt.
type Adopter[T Entity, D any] interface {
	AdoptOptions(obj T) *commonv1alpha1.AdoptOptions
	Fetch(ctx context.Context, c *konnect.Client, obj T, p Placement, id string) (actual D, uid string, err error)
	Differences(desired, actual D) []string
}

// AdoptPrecondition is implemented by adopters whose entities can only be
// adopted when some fields already agree with the spec.
type AdoptPrecondition[D any] interface {
	Incompatibilities(desired, actual D) []string
}

// DependentAdapter is an Adapter that also says which other objects its
// kind refers to.
type DependentAdapter[T Entity, D any] interface {
	Adapter[T, D]
	Dependencies() []Dependency[T]
}

// FromAdapter describes as a Kind a kind whose adapter still calls Konnect
// through the generated client (API.Legacy). It goes once every kind is
// described directly.
func FromAdapter[T Entity, D any](a DependentAdapter[T, D]) Kind[T, D] {
	k := Kind[T, D]{
		GVK:        a.GroupVersionKind(),
		Conditions: a.ConditionTypes(),
		Resolve:    a.Resolve,
		Desired:    a.Desired,
		Create: func(ctx context.Context, api konnect.API, obj T, p Placement, desired D) (string, error) {
			return a.Create(ctx, api.Legacy, obj, p, desired)
		},
		Update: func(ctx context.Context, api konnect.API, obj T, p Placement, id string, desired D) error {
			return a.Update(ctx, api.Legacy, obj, p, id, desired)
		},
		Delete: func(ctx context.Context, api konnect.API, obj T, p Placement, id string) error {
			return a.Delete(ctx, api.Legacy, obj, p, id)
		},
		FindByUID: func(ctx context.Context, api konnect.API, obj T, p Placement) (string, error) {
			return a.FindByUID(ctx, api.Legacy, obj, p)
		},
		Dependencies: a.Dependencies(),
		Managed:      a.Managed,
	}
	if after, ok := any(a).(AfterSyncer[T]); ok {
		k.AfterSync = func(ctx context.Context, api konnect.API, obj T, p Placement, id string, created bool) error {
			return after.AfterSync(ctx, api.Legacy, obj, p, id, created)
		}
	}
	if b, ok := any(a).(Borrower[T]); ok {
		k.Borrows, k.HeldBy = b.Borrows, b.HeldBy()
	}
	if extra, ok := any(a).(interface{ ExtraFinalizers() []string }); ok {
		k.ExtraFinalizers = extra.ExtraFinalizers()
	}
	if adopter, ok := any(a).(Adopter[T, D]); ok {
		pre, _ := any(a).(AdoptPrecondition[D])
		k.Adopt = &Adoption[T, D]{
			Options: adopter.AdoptOptions,
			Inspect: func(ctx context.Context, api konnect.API, obj T, p Placement, id string, desired D) (Inspection, error) {
				actual, uid, err := adopter.Fetch(ctx, api.Legacy, obj, p, id)
				if err != nil {
					return Inspection{}, err
				}
				found := Inspection{UID: uid, Differences: adopter.Differences(desired, actual)}
				if pre != nil {
					found.Incompatibilities = pre.Incompatibilities(desired, actual)
				}
				return found, nil
			},
		}
	}
	return k
}
