package entities

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// The calls of the Event Gateway's collections. Each kind writes and reads
// its entities as egBody: egSDK turns a body into the SDK's request type
// (C for a create, U for an update) through its JSON, so that the SDK's
// unions pick their member by the body's type. Entities are read as
// Konnect writes them (konnect.JSONReader): the SDK's answer types drop a
// policy's and a schema registry's config.

// egPageSize is the size of the pages in which gateways and the
// collections directly under a gateway are listed: the largest Konnect
// serves.
const egPageSize = 100

// egSDK are the calls of one collection.
type egSDK[C, U, R any] struct {
	entity string
	// nested: the path names the gateway (GrandparentID) and the parent
	// (ParentID); otherwise the gateway alone (ParentID), or nothing.
	nested, parented bool
	// path is the collection's path for p; paged says that Konnect answers
	// it in pages ({data, meta}), not as one list.
	path  func(p controller.Placement) string
	paged bool
	// answerIncomplete: the SDK's type of a write's answer drops fields
	// the entity holds (a policy's or a schema registry's config), so the
	// entity is read again after each write: what the operator remembers
	// of a write is then what the next listing shows, and an unchanged
	// entity is not written again every sync period.
	answerIncomplete bool
	create           func(ctx context.Context, api konnect.API, p controller.Placement, body *C) (*R, error)
	update           func(ctx context.Context, api konnect.API, p controller.Placement, id string, body *U) (*R, error)
	remove           func(ctx context.Context, api konnect.API, p controller.Placement, id string) error
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
			written, err := s.answer(s.create(ctx, api, p, &body))
			return s.complete(ctx, api, p, written, err)
		},
		update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, desired egBody) (*egBody, error) {
			var body U
			if err := sameAs(desired, &body); err != nil {
				return nil, s.invalid("update", err)
			}
			written, err := s.answer(s.update(ctx, api, p, id, &body))
			return s.complete(ctx, api, p, written, err)
		},
		get:    s.get,
		remove: s.remove,
		list:   s.list,
		id:     func(_ controller.Placement, a *egBody) string { id, _ := (*a)["id"].(string); return id },
	}
}

// read GETs path as Konnect writes it.
func (s egSDK[C, U, R]) read(ctx context.Context, api konnect.API, path string, query url.Values) (json.RawMessage, error) {
	if api.JSON == nil {
		return nil, fmt.Errorf("reading %s: the client reads no raw answers", s.entity)
	}
	return api.JSON.ReadJSON(ctx, path, query)
}

// list reads every entity of the collection, page after page, within the
// client's listing limits.
func (s egSDK[C, U, R]) list(ctx context.Context, api konnect.API, p controller.Placement) ([]egBody, error) {
	op := konnect.Operation{Verb: "list", Entity: s.entity}
	ctx, listing := konnect.StartListing(ctx, op)
	defer listing.Done()
	var out []egBody
	for after := ""; ; {
		query := url.Values{}
		if s.paged {
			query.Set("page[size]", strconv.Itoa(egPageSize))
			if after != "" {
				query.Set("page[after]", after)
			}
		}
		raw, err := konnect.Call(ctx, op, func(ctx context.Context) (json.RawMessage, error) { return s.read(ctx, api, s.path(p), query) })
		if err != nil {
			return nil, err
		}
		var page struct {
			Data []egBody `json:"data"`
			Meta struct {
				Page struct {
					Next *string `json:"next"`
				} `json:"page"`
			} `json:"meta"`
		}
		if s.paged {
			err = json.Unmarshal(raw, &page)
		} else {
			err = json.Unmarshal(raw, &page.Data)
		}
		if err != nil {
			return nil, fmt.Errorf("reading the %ss Konnect listed: %w", s.entity, err)
		}
		out = append(out, page.Data...)
		next := nextCursor(page.Meta.Page.Next)
		if len(page.Data) == 0 {
			next = ""
		}
		if err := listing.Page(len(page.Data), next); err != nil {
			return nil, err
		}
		if next == "" {
			return out, nil
		}
		after = next
	}
}

// get reads one entity as Konnect holds it.
func (s egSDK[C, U, R]) get(ctx context.Context, api konnect.API, p controller.Placement, id string) (*egBody, error) {
	raw, err := s.read(ctx, api, s.path(p)+"/"+url.PathEscape(id), nil)
	if err != nil {
		return nil, err
	}
	var body egBody
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("reading the %s Konnect answered: %w", s.entity, err)
	}
	return &body, nil
}

// complete reads a written entity again when the SDK's answer leaves out
// what it holds (answerIncomplete); a write that failed stays failed. A
// read that fails leaves the write done, with the answer it had: a create
// reported as failed would be tried again, and the next listing shows the
// entity whole anyway (at worst one more write of it).
func (s egSDK[C, U, R]) complete(ctx context.Context, api konnect.API, p controller.Placement, written *egBody, err error) (*egBody, error) {
	if err != nil || written == nil || !s.answerIncomplete {
		return written, err
	}
	id, _ := (*written)["id"].(string)
	if id == "" {
		return written, nil
	}
	op := konnect.Operation{Verb: "get", Entity: s.entity}
	read, err := konnect.Call(ctx, op, func(ctx context.Context) (*egBody, error) { return s.get(ctx, api, p, id) })
	if err != nil {
		return written, nil
	}
	return read, nil
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

// egPath is the path of an Event Gateway collection: below the gateway
// (ParentID), or below the gateway (GrandparentID) and a parent of it
// (ParentID), as in /listeners/{id}/policies.
func egPath(parts ...string) func(p controller.Placement) string {
	return func(p controller.Placement) string {
		switch len(parts) {
		case 0:
			return "/v1/event-gateways"
		case 1:
			return "/v1/event-gateways/" + url.PathEscape(p.ParentID) + parts[0]
		}
		return "/v1/event-gateways/" + url.PathEscape(p.GrandparentID) + parts[0] + "/" + url.PathEscape(p.ParentID) + parts[1]
	}
}
