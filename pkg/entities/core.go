package entities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/jsonscan"
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

// errNoAnswer is a successful call whose answer carried no entity: a
// cut-off answer, whose effect is unknown.
var errNoAnswer = errors.New("the answer carries no entity")

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
	if err := c.refuseEmptyIDs(verb, p, ids...); err != nil {
		return nil, err
	}
	return konnect.Call(ctx, c.op(verb), func(ctx context.Context) (*A, error) {
		a, err := call(ctx)
		if err == nil && a == nil {
			err = errNoAnswer
		}
		return a, err
	})
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
	if err := c.refuseEmptyIDs("delete", p, id); err != nil {
		return err
	}
	_, err := konnect.Call(ctx, c.op("delete"), func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.remove(ctx, api, p, id)
	})
	return err
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

// listable reports whether the drift lister can list the collection.
func (c coreCalls[D, A]) listable() bool { return !c.nested || c.flat != nil }

// listKind returns the entities of the whole collection in p's control
// plane that an operator made for objects of kind (this one or Kong
// Operator, which tag them alike): the tag filter leaves out the entities
// other tools made, so that a listing costs pages of the operators'
// entities only. all lists the whole collection.
func (c coreCalls[D, A]) listKind(ctx context.Context, api konnect.API, p controller.Placement, kind string, all bool) ([]A, error) {
	if c.readsPages(api) {
		raw, err := c.listKindRaw(ctx, api, p, kind, all)
		if err != nil {
			return nil, err
		}
		out := make([]A, len(raw))
		for i := range raw {
			if err := c.decode(raw[i], &out[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if err := c.refuseNoPlane(p); err != nil {
		return nil, err
	}
	fetch := c.list
	if c.nested {
		fetch = c.flat
	}
	return konnect.ListAll(ctx, c.op("list"), c.kindTags(kind, all), func(ctx context.Context, page konnect.Page) ([]A, *string, error) {
		return fetch(ctx, api, p, page)
	})
}

// readsPages reports whether listKind reads the collection's pages itself
// (konnect.PageReader) rather than through the SDK.
func (c coreCalls[D, A]) readsPages(api konnect.API) bool {
	return c.collection != "" && api.Pages != nil
}

// listKindRaw is listKind with the entities as Konnect wrote them, for a
// collection whose pages are read without the SDK.
func (c coreCalls[D, A]) listKindRaw(ctx context.Context, api konnect.API, p controller.Placement, kind string, all bool) ([]json.RawMessage, error) {
	if err := c.refuseNoPlane(p); err != nil {
		return nil, err
	}
	path := "/v2/control-planes/" + url.PathEscape(p.ControlPlaneID) + "/core-entities/" + c.collection
	return konnect.ListAll(ctx, c.op("list"), c.kindTags(kind, all), func(ctx context.Context, page konnect.Page) ([]json.RawMessage, *string, error) {
		got, err := api.Pages.ReadPage(ctx, path, page)
		return got.Data, got.Offset, err
	})
}

// refuseNoPlane refuses a listing of the whole control plane's collection
// without a control plane.
func (c coreCalls[D, A]) refuseNoPlane(p controller.Placement) error {
	if p.ControlPlaneID == "" {
		return &konnect.InvalidInputError{Operation: c.op("list").String(), Message: "the control plane ID is empty"}
	}
	return nil
}

// kindTags is the tag filter of a listing of kind's entities.
func (c coreCalls[D, A]) kindTags(kind string, all bool) []string {
	if all {
		return nil
	}
	return []string{controller.KindTag(kind)}
}

// decode reads one listed entity.
func (c coreCalls[D, A]) decode(raw []byte, into *A) error {
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("reading a listed %s: %w", c.entity, err)
	}
	return nil
}

// findByUID returns the ID of the entity tagged with obj's UID, or "".
func (c coreCalls[D, A]) findByUID(ctx context.Context, api konnect.API, uidTag string, p controller.Placement) (string, error) {
	found, err := c.doList(ctx, api, p, uidTag)
	if err != nil || len(found) == 0 {
		return "", err
	}
	return deref(c.id(&found[0])), nil
}

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

// listed lists the kind's entities of one control plane for the drift
// lister. Entities read without the SDK are left undecoded until the
// lister asks (Listed.Decode): it decodes only those whose bytes changed.
func (c core[T, D, A]) listed(ctx context.Context, api konnect.API, p controller.Placement, all bool) ([]controller.Listed[D], error) {
	if !c.calls.readsPages(api) {
		found, err := c.calls.listKind(ctx, api, p, c.gvk.Kind, all)
		if err != nil {
			return nil, err
		}
		out := make([]controller.Listed[D], 0, len(found))
		for i := range found {
			out = append(out, c.listedOf(&found[i]))
		}
		return out, nil
	}
	raw, err := c.calls.listKindRaw(ctx, api, p, c.gvk.Kind, all)
	if err != nil {
		return nil, err
	}
	out := make([]controller.Listed[D], 0, len(raw))
	for _, entity := range raw {
		decode := func() (controller.Listed[D], error) {
			actual := new(A)
			if err := c.calls.decode(entity, actual); err != nil {
				return controller.Listed[D]{}, err
			}
			return c.listedOf(actual), nil
		}
		id, ok := entityID(entity)
		if !ok { // an ID that cannot be read plainly: decoded now
			l, err := decode()
			if err != nil {
				return nil, err
			}
			l.Sum = controller.SumOf(entity)
			out = append(out, l)
			continue
		}
		out = append(out, controller.Listed[D]{ID: id, Sum: controller.SumOf(entity), Decode: decode})
	}
	return out, nil
}

// listedOf is a decoded listed entity.
func (c core[T, D, A]) listedOf(actual *A) controller.Listed[D] {
	tags := c.calls.tags(actual)
	l := controller.Listed[D]{
		ID: deref(c.calls.id(actual)), Snapshot: c.ownSnapshot(actual), Actual: actual,
		Owner: controller.OwnerFromTags(tags), Object: controller.IdentityFromTags(tags),
	}
	if c.matches != nil {
		l.Differences = func(desired D) []string { return c.differences(desired, actual) }
	}
	return l
}

// entityID reads the "id" field of a listed entity without decoding it.
func entityID(raw []byte) (id string, ok bool) {
	split := jsonscan.Fields(raw, func(name, value []byte) bool {
		if string(name) != "id" {
			return true
		}
		id, ok = jsonscan.String(value)
		return false
	})
	return id, split && ok && id != ""
}

// differences compares a listed entity with the body the spec asks for:
// the fields adoption compares (with Konnect's defaults), those that must
// match, the secrets Konnect does not answer as sent, and the user's tags
// (an entity adopted as it was, or written by Kong Operator, carries other
// identity tags or none: they are written with the next write that is due
// anyway, never for themselves).
func (c core[T, D, A]) differences(desired D, actual *A) []string {
	d := c.matches(desired, actual)
	if c.mustMatch != nil {
		d = append(d, c.mustMatch(desired, actual)...)
	}
	if c.secrets != nil {
		d = append(d, c.secrets(desired, actual)...)
	}
	if !slices.Equal(controller.UserTags(c.tagsOf(desired)), controller.UserTags(c.calls.tags(actual))) {
		d = append(d, "tags")
	}
	slices.Sort(d)
	return slices.Compact(d)
}

// tagsOf reads the tags of a body.
func (c core[T, D, A]) tagsOf(body D) []string {
	if c.bodyTags != nil {
		return c.bodyTags(body)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil
	}
	var tagged struct {
		Tags []string `json:"tags"`
	}
	_ = json.Unmarshal(raw, &tagged)
	return tagged.Tags
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
