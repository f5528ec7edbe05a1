package entities

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/jsonscan"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

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
