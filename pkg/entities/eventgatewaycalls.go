package entities

import (
	"context"
	"fmt"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// The SDK calls of the Event Gateway's collections. Each kind writes and
// reads its entities as egBody; egSDK turns a body into the SDK's request
// type (C for a create, U for an update) and the SDK's answer (R) back,
// through their JSON: the SDK's unions pick their member by the body's
// type.

// egSDK are the SDK calls of one collection, in the SDK's types.
type egSDK[C, U, R any] struct {
	entity string
	// nested: the path names the gateway (GrandparentID) and the parent
	// (ParentID); otherwise the gateway alone (ParentID), or nothing.
	nested, parented bool
	create           func(ctx context.Context, api konnect.API, p controller.Placement, body *C) (*R, error)
	update           func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *U) (*R, error)
	get              func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*R, error)
	remove           func(ctx context.Context, api konnect.API, p controller.Placement, id string) error
	// list reads one page after the cursor after ("" for the first),
	// returning the next cursor ("" after the last page).
	list func(ctx context.Context, api konnect.API, p controller.Placement, after string) (items []R, next string, err error)
}

// calls are the collection's calls on egBody.
func (s egSDK[C, U, R]) calls() apiCalls[egBody, egBody] {
	return apiCalls[egBody, egBody]{
		entity: s.entity, parented: s.parented || s.nested, nested: s.nested,
		create: func(ctx context.Context, api konnect.API, p controller.Placement, desired egBody) (*egBody, error) {
			var body C
			if err := sameAs(desired, &body); err != nil {
				return nil, s.invalid("create", err)
			}
			return s.answer(s.create(ctx, api, p, &body))
		},
		update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, desired egBody) (*egBody, error) {
			var body U
			if err := sameAs(desired, &body); err != nil {
				return nil, s.invalid("update", err)
			}
			return s.answer(s.update(ctx, api, p, id, &body))
		},
		get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*egBody, error) {
			return s.answer(s.get(ctx, api, p, id))
		},
		remove: s.remove,
		list: func(ctx context.Context, api konnect.API, p controller.Placement) ([]egBody, error) {
			var out []egBody
			for after := ""; ; {
				var items []R
				var next string
				_, err := konnect.Call(ctx, konnect.Operation{Verb: "list", Entity: s.entity}, func(ctx context.Context) (struct{}, error) {
					var err error
					items, next, err = s.list(ctx, api, p, after)
					return struct{}{}, err
				})
				if err != nil {
					return nil, err
				}
				for i := range items {
					body, err := s.answer(&items[i], nil)
					if err != nil {
						return nil, err
					}
					out = append(out, *body)
				}
				if next == "" || len(items) == 0 {
					return out, nil
				}
				after = next
			}
		},
		id: func(_ controller.Placement, a *egBody) string { id, _ := (*a)["id"].(string); return id },
	}
}

// answer is an SDK answer as a body.
func (s egSDK[C, U, R]) answer(r *R, err error) (*egBody, error) {
	if err != nil || r == nil {
		return nil, err
	}
	var body egBody
	if err := sameAs(r, &body); err != nil {
		return nil, fmt.Errorf("reading the %s Konnect answered: %w", s.entity, err)
	}
	return &body, nil
}

// invalid is a body the SDK's types do not take.
func (s egSDK[C, U, R]) invalid(verb string, err error) error {
	return &konnect.InvalidInputError{Operation: konnect.Operation{Verb: verb, Entity: s.entity}.String(), Message: err.Error()}
}
