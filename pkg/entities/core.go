package entities

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// core describes a kind whose objects stand for core entities of a control
// plane: where they live (placed), the SDK calls of their collection, and
// what really differs per kind.
type core[T controller.Entity, D, A any] struct {
	gvk    schema.GroupVersionKind
	placed placed[T]
	calls  coreCalls[D, A]
	// desired returns the body obj asks for, identity tags included.
	desired func(obj T, p controller.Placement) (D, error)

	// createUnder, when set, returns the ID under which the entity is
	// created with PUT, or "" to let Konnect choose one (POST).
	createUnder func(obj T, body D) string
	// remove, when set, replaces the plain delete (a parent whose children
	// Konnect will not orphan).
	remove func(ctx context.Context, api konnect.API, p controller.Placement, id string) error
	// adopt, when set, returns spec.adopt; matches then names the fields
	// compared in match mode that differ, and mustMatch (optional) those
	// that must agree in either mode.
	adopt     func(obj T) *commonv1alpha1.AdoptOptions
	matches   func(desired D, actual *A) []string
	mustMatch func(desired D, actual *A) []string
	// secrets, when set, compares what matches leaves out because Konnect
	// does not answer it as sent (a basic-auth password comes back hashed):
	// used when a listed entity is compared with the spec after a restart.
	secrets func(desired D, actual *A) []string
	// bodyTags, when set, reads the tags of a body whose tags are not its
	// top-level "tags" field.
	bodyTags func(D) []string
	// uniqueKey, when set, returns the value of the body's unique field
	// that a path may name instead of an ID (a name, a username), "" when
	// the body sets none: how the entity a create conflicted with is found.
	uniqueKey func(D) string
	// secretValues, when set, returns obj's secret material, which
	// Konnect's answers are stripped of (controller.Kind.SecretValues).
	secretValues func(obj T) []string
	// othersFields name fields of the entity that other objects write (a
	// certificate's snis, which its KongSNIs change): left out of its
	// snapshots, so that their changes are not the entity's drift.
	othersFields []string
}

// kind is the description the generic loop runs on.
func (c core[T, D, A]) kind() controller.Kind[T, D] {
	k := controller.Kind[T, D]{
		GVK:        c.gvk,
		Conditions: c.placed.conditions,
		Resolve:    c.placed.resolve,
		Desired: func(_ context.Context, obj T, p controller.Placement) (D, error) {
			return c.desired(obj, p)
		},
		Create: func(ctx context.Context, api konnect.API, obj T, p controller.Placement, body D) (string, controller.Snapshot, error) {
			var created *A
			var err error
			if id := c.underID(obj, body); id != "" {
				created, err = c.calls.doUpsert(ctx, api, p, id, body)
			} else {
				created, err = c.calls.doCreate(ctx, api, p, body)
			}
			if err != nil {
				return "", controller.Snapshot{}, err
			}
			return deref(c.calls.id(created)), c.snapshot(created), nil
		},
		Update: func(ctx context.Context, api konnect.API, _ T, p controller.Placement, id string, body D) (controller.Snapshot, error) {
			written, err := c.calls.doUpsert(ctx, api, p, id, body)
			if err != nil {
				return controller.Snapshot{}, err
			}
			return c.snapshot(written), nil
		},
		Delete: func(ctx context.Context, api konnect.API, _ T, p controller.Placement, id string) error {
			if c.remove != nil {
				return c.remove(ctx, api, p, id)
			}
			return c.calls.doDelete(ctx, api, p, id)
		},
		FindByUID: func(ctx context.Context, api konnect.API, obj T, p controller.Placement) (string, error) {
			return c.calls.findByUID(ctx, api, controller.UIDTag(obj), p)
		},
		Owner: func(ctx context.Context, api konnect.API, _ T, p controller.Placement, id string) (string, error) {
			actual, err := c.calls.doGet(ctx, api, p, id)
			if err != nil {
				return "", err
			}
			return controller.OwnerFromTags(c.calls.tags(actual)), nil
		},
		Dependencies: c.placed.allDependencies(),
		Managed:      c.placed.managed,
		SecretValues: c.secretValues,
	}
	if c.adopt != nil {
		k.Adopt = &controller.Adoption[T, D]{Options: c.adopt, Inspect: c.inspect}
	}
	if c.calls.listable() {
		k.List = c.listed
		k.Recover = &controller.Recovery[T, D]{ByIdentity: true, Read: c.read, FindByKey: c.findByKey}
	}
	return k
}

// snapshot is the snapshot of Konnect's answer to a write; none when the
// collection is not listed (its entities are written every period).
func (c core[T, D, A]) snapshot(answer *A) controller.Snapshot {
	if !c.calls.listable() {
		return controller.Snapshot{}
	}
	return c.ownSnapshot(answer)
}

// ownSnapshot is the snapshot of an entity without othersFields.
func (c core[T, D, A]) ownSnapshot(entity *A) controller.Snapshot {
	s := controller.MustSnapshot(entity)
	for _, field := range c.othersFields {
		s = s.With(field, nil)
	}
	return s
}

func (c core[T, D, A]) underID(obj T, body D) string {
	if c.createUnder == nil {
		return ""
	}
	return c.createUnder(obj, body)
}

// inspect reads an entity to adopt and compares it with the body.
func (c core[T, D, A]) inspect(ctx context.Context, api konnect.API, _ T, p controller.Placement, id string, desired D) (controller.Inspection, error) {
	actual, err := c.calls.doGet(ctx, api, p, id)
	if err != nil {
		return controller.Inspection{}, err
	}
	tags := c.calls.tags(actual)
	found := controller.Inspection{
		UID:         controller.UIDFromTags(tags),
		Owner:       controller.OwnerFromTags(tags),
		Differences: c.matches(desired, actual),
		Actual:      actual,
	}
	if c.mustMatch != nil {
		found.Incompatibilities = c.mustMatch(desired, actual)
	}
	return found, nil
}
