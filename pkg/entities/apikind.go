package entities

import (
	"context"
	"encoding/json"
	"errors"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// The kinds of Konnect's newer APIs (the Dev Portal, a control plane's
// config stores, and the Event Gateway after them) are described by
// apiKind: where the entity lives (placed: the organisation's credentials,
// or a parent entity), the SDK calls of its collection, what the object
// asks for, how the entity compares with it, and how an entity whose
// object lost its ID is found again. kind() turns the description into
// the controller.Kind the generic loop runs on. See
// docs/development/adding-a-kind.md.

// apiCalls are the calls of Kong's SDK for one collection of the newer
// APIs, in the SDK's terms: D is what an object asks for (a create body,
// or a struct of what decides its calls), A the entity as Konnect answers
// it (one type for every answer: convert with sameAs where the SDK's
// types differ). Each call only translates; the entity's parent, when it
// has one, is Placement.ParentID.
type apiCalls[D, A any] struct {
	// entity names the collection in errors and metrics (singular).
	entity string
	// parented says that the collection lives under a parent entity;
	// nested, that its path also names the parent's parent; inControlPlane,
	// that it lives in a control plane.
	parented, nested, inControlPlane bool
	create                           func(ctx context.Context, api konnect.API, p controller.Placement, desired D) (*A, error)
	update                           func(ctx context.Context, api konnect.API, p controller.Placement, id string, desired D) (*A, error)
	get                              func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*A, error)
	remove                           func(ctx context.Context, api konnect.API, p controller.Placement, id string) error
	// list returns every entity of the scope: the parent's, or the
	// organisation's as the credentials see it.
	list func(ctx context.Context, api konnect.API, p controller.Placement) ([]A, error)
	// id reads an answer's ID; a singleton without one of its own answers
	// what addresses it (its parent's ID, or its key).
	id func(p controller.Placement, a *A) string
}

// errEmptyID refuses a call whose path would lack an ID.
var errEmptyID = errors.New("an ID of the path is empty")

func (c apiCalls[D, A]) op(verb string) konnect.Operation {
	return konnect.Operation{Verb: verb, Entity: c.entity}
}

// guard refuses, before anything is sent, a call without the IDs its path
// needs: a request for one entity must never become one for a collection.
func (c apiCalls[D, A]) guard(verb string, p controller.Placement, ids ...string) error {
	missing := c.parented && p.ParentID == "" || c.nested && p.GrandparentID == "" || c.inControlPlane && p.ControlPlaneID == ""
	for _, id := range ids {
		missing = missing || id == ""
	}
	if missing {
		return &konnect.InvalidInputError{Operation: c.op(verb).String(), Message: errEmptyID.Error()}
	}
	return nil
}

// answered runs one call that answers with an entity.
func (c apiCalls[D, A]) answered(ctx context.Context, verb string, p controller.Placement, ids []string, call func(context.Context) (*A, error)) (*A, error) {
	return callForEntity(ctx, c.op(verb), c.guard(verb, p, ids...), call)
}

func (c apiCalls[D, A]) doCreate(ctx context.Context, api konnect.API, p controller.Placement, desired D) (*A, error) {
	return c.answered(ctx, "create", p, nil, func(ctx context.Context) (*A, error) { return c.create(ctx, api, p, desired) })
}

func (c apiCalls[D, A]) doUpdate(ctx context.Context, api konnect.API, p controller.Placement, id string, desired D) (*A, error) {
	return c.answered(ctx, "update", p, []string{id}, func(ctx context.Context) (*A, error) { return c.update(ctx, api, p, id, desired) })
}

func (c apiCalls[D, A]) doGet(ctx context.Context, api konnect.API, p controller.Placement, id string) (*A, error) {
	return c.answered(ctx, "get", p, []string{id}, func(ctx context.Context) (*A, error) { return c.get(ctx, api, p, id) })
}

func (c apiCalls[D, A]) doDelete(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
	return callForDeletion(ctx, c.op("delete"), c.guard("delete", p, id), func(ctx context.Context) error { return c.remove(ctx, api, p, id) })
}

// doList lists the scope; each page is a call of its own (list returns
// them all).
func (c apiCalls[D, A]) doList(ctx context.Context, api konnect.API, p controller.Placement) ([]A, error) {
	if err := c.guard("list", p); err != nil {
		return nil, err
	}
	return c.list(ctx, api, p)
}

// apiKind describes a kind whose objects stand for entities of Konnect's
// newer APIs.
type apiKind[T controller.Entity, D, A any] struct {
	gvk    schema.GroupVersionKind
	placed placed[T]
	calls  apiCalls[D, A]
	// desired returns what obj asks for, identity labels included where
	// the entity carries labels.
	desired func(obj T, p controller.Placement) (D, error)
	// differences names, by their Konnect field names, the fields of an
	// entity that differ from what an object asks for (with Konnect's
	// defaults for what it leaves unset).
	differences func(desired D, actual *A) []string

	// How an entity is found again when its object lost its ID: by the
	// identity labels it carries (labels), or by what Konnect keys it on
	// (key and keyOf: a name, a slug, a host name; an object whose key is
	// empty finds none). A singleton of its scope (a portal's email
	// configuration) is the one entity there is.
	labels    func(a *A) map[string]string
	key       func(desired D) string
	keyOf     func(a *A) string
	singleton bool

	// usedBy: see controller.Kind.UsedBy.
	usedBy []string
	// record, when set, records what Konnect answered in obj's status.
	record func(obj T, a *A)
}

// kind is the description the generic loop runs on.
func (k apiKind[T, D, A]) kind() controller.Kind[T, D] {
	kind := controller.Kind[T, D]{
		GVK:        k.gvk,
		Conditions: k.placed.conditions,
		Resolve:    k.placed.resolve,
		Desired: func(_ context.Context, obj T, p controller.Placement) (D, error) {
			return k.desired(obj, p)
		},
		Create: func(ctx context.Context, api konnect.API, obj T, p controller.Placement, desired D) (string, controller.Snapshot, error) {
			created, err := k.calls.doCreate(ctx, api, p, desired)
			if err != nil {
				return "", controller.Snapshot{}, err
			}
			k.recordAnswer(obj, created)
			return k.calls.id(p, created), controller.MustSnapshot(created), nil
		},
		Update: func(ctx context.Context, api konnect.API, obj T, p controller.Placement, id string, desired D) (controller.Snapshot, error) {
			written, err := k.calls.doUpdate(ctx, api, p, id, desired)
			if err != nil {
				return controller.Snapshot{}, err
			}
			k.recordAnswer(obj, written)
			return controller.MustSnapshot(written), nil
		},
		Delete: func(ctx context.Context, api konnect.API, _ T, p controller.Placement, id string) error {
			return k.calls.doDelete(ctx, api, p, id)
		},
		FindByUID:    k.findByUID,
		Dependencies: k.placed.allDependencies(),
		Managed:      k.placed.managed,
		UsedBy:       k.usedBy,
		List: func(ctx context.Context, api konnect.API, p controller.Placement, all bool) ([]controller.Listed[D], error) {
			found, err := k.calls.doList(ctx, api, p)
			if err != nil {
				return nil, err
			}
			out := make([]controller.Listed[D], 0, len(found))
			for i := range found {
				if all || k.labels == nil || controller.IdentityFromLabels(k.labels(&found[i])).Kind == k.gvk.Kind {
					out = append(out, k.listedOf(p, &found[i]))
				}
			}
			return out, nil
		},
		Recover: &controller.Recovery[T, D]{
			ByIdentity: k.labels != nil,
			ByKey:      k.labels == nil,
			Read: func(ctx context.Context, api konnect.API, _ T, p controller.Placement, id string) (controller.Listed[D], error) {
				actual, err := k.calls.doGet(ctx, api, p, id)
				if err != nil {
					return controller.Listed[D]{}, err
				}
				return k.listedOf(p, actual), nil
			},
			FindByKey: k.findByKey,
			Record: func(obj T, l controller.Listed[D]) {
				if actual, ok := l.Actual.(*A); ok {
					k.recordAnswer(obj, actual)
				}
			},
		},
		// Kong Operator gives these kinds no spec.adopt.
		Compare: k.inspect,
	}
	if k.labels != nil {
		kind.Owner = func(ctx context.Context, api konnect.API, _ T, p controller.Placement, id string) (string, error) {
			actual, err := k.calls.doGet(ctx, api, p, id)
			if err != nil {
				return "", err
			}
			return k.labels(actual)[controller.TagKeyCluster], nil
		}
	}
	return kind
}

func (k apiKind[T, D, A]) recordAnswer(obj T, a *A) {
	if k.record != nil && a != nil {
		k.record(obj, a)
	}
}

// listedOf is an entity as a listing shows it.
func (k apiKind[T, D, A]) listedOf(p controller.Placement, actual *A) controller.Listed[D] {
	l := controller.Listed[D]{
		ID: k.calls.id(p, actual), Actual: actual, Snapshot: controller.MustSnapshot(actual),
		Differences: func(desired D) []string { return k.differences(desired, actual) },
	}
	if k.labels != nil {
		labels := k.labels(actual)
		l.Owner, l.Object = labels[controller.TagKeyCluster], controller.IdentityFromLabels(labels)
	}
	return l
}

// findByUID finds the entity labelled with obj's UID, or, for a kind whose
// entities carry no labels, the one Konnect keys on what obj asks for.
func (k apiKind[T, D, A]) findByUID(ctx context.Context, api konnect.API, obj T, p controller.Placement) (string, error) {
	if k.labels == nil {
		desired, err := k.desired(obj, p)
		if err != nil {
			return "", err
		}
		found, err := k.findByKey(ctx, api, obj, p, desired)
		if err != nil || found == nil {
			return "", err
		}
		return found.ID, nil
	}
	found, err := k.calls.doList(ctx, api, p)
	if err != nil {
		return "", err
	}
	for i := range found {
		if k.labels(&found[i])[controller.TagKeyUID] == string(obj.GetUID()) {
			return k.calls.id(p, &found[i]), nil
		}
	}
	return "", nil
}

// findByKey returns the entity that has what Konnect keys desired on (the
// singleton of the scope), nil when none does or desired keys on nothing.
func (k apiKind[T, D, A]) findByKey(ctx context.Context, api konnect.API, _ T, p controller.Placement, desired D) (*controller.Listed[D], error) {
	want := ""
	if k.key != nil {
		want = k.key(desired)
	}
	if want == "" && !k.singleton {
		return nil, nil
	}
	found, err := k.calls.doList(ctx, api, p)
	if err != nil {
		return nil, err
	}
	for i := range found {
		if k.singleton || k.keyOf(&found[i]) == want {
			l := k.listedOf(p, &found[i])
			return &l, nil
		}
	}
	return nil, nil
}

// inspect reads an entity and compares it with what the object asks for.
func (k apiKind[T, D, A]) inspect(ctx context.Context, api konnect.API, _ T, p controller.Placement, id string, desired D) (controller.Inspection, error) {
	actual, err := k.calls.doGet(ctx, api, p, id)
	if err != nil {
		return controller.Inspection{}, err
	}
	found := controller.Inspection{Differences: k.differences(desired, actual), Actual: actual}
	if k.labels != nil {
		labels := k.labels(actual)
		found.UID, found.Owner = labels[controller.TagKeyUID], labels[controller.TagKeyCluster]
	}
	return found, nil
}

// sameAs reads the JSON of from into to: the SDK gives one entity
// different types in different answers (a listed portal, a portal), and
// the fields of a create body and a patch are the same.
func sameAs(from, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, to)
}
