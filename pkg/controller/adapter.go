package controller

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Auth is what a Konnect call needs from a KonnectAPIAuthConfiguration.
// Token must never be logged.
type Auth struct {
	ServerURL string
	Token     string
	OrgID     string
}

// Placement says where an entity lives in Konnect.
type Placement struct {
	Auth Auth
	// ControlPlaneID is the Konnect ID of the entity's control plane; empty
	// for a control plane itself.
	ControlPlaneID string
}

// Purpose says why references are resolved.
type Purpose int

const (
	// ForSync resolves references to create or update the entity: every
	// reference must exist, not be deleting, be Programmed and be permitted.
	ForSync Purpose = iota
	// ForDelete resolves only what a delete call needs (the control plane,
	// the parent's Konnect ID and the credentials), from objects that may
	// themselves be deleting. Grants are not enforced.
	ForDelete
)

// Resolution is the outcome of resolving an object's references.
type Resolution struct {
	// Placement is where the entity lives, when Ready.
	Placement Placement
	// Ready is true when every reference is usable and Konnect may be
	// called.
	Ready bool
	// Gone is true, for ForDelete, when the object that held the entity in
	// Konnect (its control plane or its parent) no longer exists, so
	// Konnect has already deleted the entity with it.
	Gone bool
	// ParentGone is true, for ForSync, when the control plane or parent
	// that the object refers to does not exist: an entity recorded in the
	// status went with it.
	ParentGone bool
	// Conditions are the reference conditions (True or False) to set on the
	// object. Condition types of Adapter.ConditionTypes that are missing are
	// removed from the status.
	Conditions []metav1.Condition
}

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

// ClientSource hands out Konnect clients, one per server URL and token.
type ClientSource interface {
	Client(serverURL, token string) (*konnect.Client, error)
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
