package catalog

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// ComparisonState says how an object and its Konnect entity compare.
type ComparisonState string

const (
	// StateEqual: Konnect holds what the object asks for.
	StateEqual ComparisonState = "Equal"
	// StateDiffers: some fields differ (Comparison.Fields).
	StateDiffers ComparisonState = "Differs"
	// StateMissing: the object has no entity in Konnect (not created yet,
	// or gone), so the operator would create one.
	StateMissing ComparisonState = "Missing"
	// StateUnresolved: the object's references cannot be used, so the
	// operator would not write anything (Comparison.Message says why).
	StateUnresolved ComparisonState = "Unresolved"
	// StateNotCompared: the operator does not write this object's entity
	// (not its object, being deleted, a mirror), or the kind has no
	// comparison.
	StateNotCompared ComparisonState = "NotCompared"
)

// Comparison is how one object compares with its Konnect entity.
type Comparison struct {
	State ComparisonState
	// ID is the Konnect ID compared with: the status's, or the one
	// spec.adopt names.
	ID string
	// Message explains the states other than Equal and Differs, and notes
	// what else the operator would find (another object's k8s-uid tag).
	Message string
	// Fields are the fields that differ, by their Konnect names.
	Fields []FieldDifference
}

// FieldDifference is one field in which Konnect differs from what the
// operator would write.
type FieldDifference struct {
	// Field is the Konnect field name.
	Field string
	// Cluster and Konnect are the two values as compact JSON, "" when the
	// side leaves the field unset or the kind cannot show it.
	Cluster, Konnect string
	// Hidden says that the values are secret material (from a Secret, a
	// key or a credential) and are not given.
	Hidden bool
}

// Catalog compares objects of every kind the operator reconciles into
// Konnect with their entities.
type Catalog struct {
	entries []comparer
	refs    *entities.Refs
	// validating sets refs' Validations from the first Compare's clients.
	validating sync.Once
}

// comparer compares the objects of one kind, and lists their references;
// handled is false for objects of other kinds.
type comparer interface {
	compare(ctx context.Context, clients controller.ClientSource, obj runtime.Object) (c Comparison, handled bool, err error)
	// references lists what obj refers to (References).
	references(obj runtime.Object) (refs []controller.Reference, handled bool)
}

// Compare compares obj, one of the objects the catalog was made from or
// one like them, with its entity in Konnect, read through clients. It
// reads only.
//
// A token is used as the operator uses it: proven valid with Konnect (GET
// /v3/organizations/me, once per auth configuration) before anything else
// is sent with it, when clients can ask (an entities.OrganizationSource, as
// konnect.ClientFactory is); a Secret of another namespace only under a
// KongReferenceGrant, and the servers clients allow.
func (c *Catalog) Compare(ctx context.Context, clients controller.ClientSource, obj runtime.Object) (Comparison, error) {
	c.validating.Do(func() {
		if org, ok := clients.(entities.OrganizationSource); ok && c.refs != nil {
			c.refs.Validations = &entities.Validations{Konnect: org}
		}
	})
	for _, entry := range c.entries {
		if cmp, handled, err := entry.compare(ctx, clients, obj); handled {
			return cmp, err
		}
	}
	return Comparison{State: StateNotCompared, Message: fmt.Sprintf("%T is not a kind the operator writes to Konnect", obj)}, nil
}
