package entities

import (
	"context"
	"slices"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// coreCalls are the calls of Kong's SDK for one collection of core entities
// of a control plane (or of a parent entity in one), in the SDK's own terms:
// D is the desired body sent, A the entity Konnect answers with. Each call only
// translates; errors are classified by the methods below.
type coreCalls[D, A any] struct {
	// entity names the collection in errors and metrics (singular).
	entity string
	// nested says that the collection lives under a parent entity, whose
	// ID is Placement.ParentID.
	nested bool
	create func(ctx context.Context, api konnect.API, p controller.Placement, body D) (*A, error)
	upsert func(ctx context.Context, api konnect.API, p controller.Placement, id string, body D) (*A, error)
	get    func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*A, error)
	remove func(ctx context.Context, api konnect.API, p controller.Placement, id string) error
	// list returns one page and the next page's offset.
	list func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]A, *string, error)
	// flat, for a nested collection, lists one page of the whole control
	// plane's collection (every parent at once): what the drift lister
	// reads. Nil for a nested collection without one: it is not listed.
	flat func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]A, *string, error)
	// id and tags read an answer.
	id   func(*A) *string
	tags func(*A) []string
	// collection, when set, is the path of the whole control plane's
	// collection below /v2/control-planes/{id}/core-entities/ (for a
	// nested one, what flat lists): the drift lister then reads its pages
	// with encoding/json instead of the SDK's decoding (see
	// konnect.PageReader), which A must allow (TestPagesReadAsTheSDKDoes).
	collection string
}

func (c coreCalls[D, A]) op(verb string) konnect.Operation {
	return konnect.Operation{Verb: verb, Entity: c.entity, Core: true}
}

// refuseEmptyIDs refuses, before anything is sent, a call whose path would
// lack an ID: a request for one entity must never become one for its whole
// collection.
func (c coreCalls[D, A]) refuseEmptyIDs(verb string, p controller.Placement, ids ...string) error {
	empty := ""
	switch {
	case p.ControlPlaneID == "":
		empty = "control plane ID"
	case c.nested && p.ParentID == "":
		empty = "parent ID"
	case slices.Contains(ids, ""):
		empty = c.entity + " ID"
	default:
		return nil
	}
	return &konnect.InvalidInputError{Operation: c.op(verb).String(), Message: "the " + empty + " is empty"}
}

// answered runs one call that answers with an entity.
func (c coreCalls[D, A]) answered(ctx context.Context, verb string, p controller.Placement, ids []string, call func(context.Context) (*A, error)) (*A, error) {
	return callForEntity(ctx, c.op(verb), c.refuseEmptyIDs(verb, p, ids...), call)
}

func (c coreCalls[D, A]) doCreate(ctx context.Context, api konnect.API, p controller.Placement, body D) (*A, error) {
	return c.answered(ctx, "create", p, nil, func(ctx context.Context) (*A, error) { return c.create(ctx, api, p, body) })
}

func (c coreCalls[D, A]) doUpsert(ctx context.Context, api konnect.API, p controller.Placement, id string, body D) (*A, error) {
	return c.answered(ctx, "upsert", p, []string{id}, func(ctx context.Context) (*A, error) { return c.upsert(ctx, api, p, id, body) })
}

func (c coreCalls[D, A]) doGet(ctx context.Context, api konnect.API, p controller.Placement, id string) (*A, error) {
	return c.answered(ctx, "get", p, []string{id}, func(ctx context.Context) (*A, error) { return c.get(ctx, api, p, id) })
}

func (c coreCalls[D, A]) doDelete(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
	return callForDeletion(ctx, c.op("delete"), c.refuseEmptyIDs("delete", p, id), func(ctx context.Context) error { return c.remove(ctx, api, p, id) })
}

// doList returns every entity of the collection that carries all tags.
func (c coreCalls[D, A]) doList(ctx context.Context, api konnect.API, p controller.Placement, tags ...string) ([]A, error) {
	if err := c.refuseEmptyIDs("list", p); err != nil {
		return nil, err
	}
	return konnect.ListAll(ctx, c.op("list"), tags, func(ctx context.Context, page konnect.Page) ([]A, *string, error) {
		return c.list(ctx, api, p, page)
	})
}

// findByUID returns the ID of the entity tagged with obj's UID, or "".
func (c coreCalls[D, A]) findByUID(ctx context.Context, api konnect.API, uidTag string, p controller.Placement) (string, error) {
	found, err := c.doList(ctx, api, p, uidTag)
	if err != nil || len(found) == 0 {
		return "", err
	}
	return deref(c.id(&found[0])), nil
}
