package konnect

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// defaultCorePageSize is the largest page the core-entity API serves; big
// pages keep lists cheap in rate-limited requests.
const defaultCorePageSize = 1000

// ListFilter selects the entities a List operation returns. Konnect joins
// tags with "," for AND and "/" for OR, so a tag that itself contains either
// character cannot be filtered on reliably.
type ListFilter struct {
	// Tags must all be present on an entity (AND).
	Tags []string
	// AnyTags must have at least one present on an entity (OR).
	AnyTags []string
	// Name must equal the entity's name (a consumer's username, a
	// target's target). Kinds without a name refuse it.
	Name string
}

// kind describes one core-entity collection for the generic operations.
type kind[E any] struct {
	entity string
	tags   func(E) []string
	// name returns the entity's name for ListFilter.Name; nil when the
	// kind has none.
	name func(E) string
}

func (k kind[E]) op(verb string) operation {
	return operation{verb: verb, entity: k.entity, core: true}
}

// corePage is one page request of a core-entity list, in the terms every
// generated List…Params shares.
type corePage struct {
	size   int
	offset string
	tags   string
	name   string
}

func (p corePage) offsetParam() *string { return optional(p.offset) }
func (p corePage) tagsParam() *string   { return optional(p.tags) }
func (p corePage) nameParam() *string   { return optional(p.name) }

// optional is nil for "" and a pointer to s otherwise, for the generated
// client's optional parameters.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// corePageAnswer is the shape of every core-entity list answer.
type corePageAnswer[R any] struct {
	Data   []R     `json:"data"`
	Next   *string `json:"next"`
	Offset *string `json:"offset"`
}

func parseControlPlaneID(op operation, cp string) (uuid.UUID, error) {
	id, err := uuid.Parse(cp)
	if err != nil {
		return uuid.UUID{}, invalidInput(op, "control plane ID %q is not a UUID", cp)
	}
	return id, nil
}

// requireIDs refuses empty IDs before they turn a request for one entity
// into a request for its whole collection.
func requireIDs(op operation, named ...string) error {
	for i := 0; i+1 < len(named); i += 2 {
		if named[i+1] == "" {
			return invalidInput(op, "%s is empty", named[i])
		}
	}
	return nil
}

// writeEntity sends e as the generated body type B (create or upsert) and
// returns Konnect's answer, decoded as R, as an E.
func writeEntity[E, B, R any](ctx context.Context, c *Client, op operation, cp string, e E,
	send func(context.Context, uuid.UUID, B) (*http.Response, error),
) (E, error) {
	var zero E
	cpID, err := parseControlPlaneID(op, cp)
	if err != nil {
		return zero, err
	}
	body, err := toWire[B](e)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", op, err)
	}
	var answer R
	if err := c.exchange(ctx, op, &answer, func(ctx context.Context) (*http.Response, error) {
		return send(ctx, cpID, body)
	}); err != nil {
		return zero, err
	}
	return decodeEntity[E](op, answer)
}

// getEntity fetches one entity, decoded as R, as an E.
func getEntity[E, R any](ctx context.Context, c *Client, op operation, cp string,
	send func(context.Context, uuid.UUID) (*http.Response, error),
) (E, error) {
	var zero E
	cpID, err := parseControlPlaneID(op, cp)
	if err != nil {
		return zero, err
	}
	var answer R
	if err := c.exchange(ctx, op, &answer, func(ctx context.Context) (*http.Response, error) {
		return send(ctx, cpID)
	}); err != nil {
		return zero, err
	}
	return decodeEntity[E](op, answer)
}

// callWithoutAnswer sends a request whose successful answer carries nothing
// needed (deletes, memberships); Konnect's 404 stays a *NotFoundError.
func callWithoutAnswer(ctx context.Context, c *Client, op operation, cp string,
	send func(context.Context, uuid.UUID) (*http.Response, error),
) error {
	cpID, err := parseControlPlaneID(op, cp)
	if err != nil {
		return err
	}
	return c.exchange(ctx, op, nil, func(ctx context.Context) (*http.Response, error) {
		return send(ctx, cpID)
	})
}

func decodeEntity[E any](op operation, answer any) (E, error) {
	e, err := fromWire[E](answer)
	if err != nil {
		return e, fmt.Errorf("%s: %w", op, err)
	}
	return e, nil
}

// listEntities follows every page of a core-entity list. The tag filter
// goes to Konnect (AND tags when there are any, else OR tags); whatever
// Konnect cannot filter on in the same request (OR tags next to AND tags,
// names on kinds without a server-side name filter) is filtered here, and so,
// defensively, is everything else.
func listEntities[E, R any](ctx context.Context, c *Client, k kind[E], cp string, f ListFilter,
	send func(context.Context, uuid.UUID, corePage) (*http.Response, error),
) ([]E, error) {
	op := k.op("list")
	cpID, err := parseControlPlaneID(op, cp)
	if err != nil {
		return nil, err
	}
	if f.Name != "" && k.name == nil {
		return nil, invalidInput(op, "%s has no name to filter on", strings.ReplaceAll(k.entity, "_", " "))
	}
	page := corePage{size: c.pageSize, name: f.Name}
	switch {
	case len(f.Tags) > 0:
		page.tags = strings.Join(f.Tags, ",")
	case len(f.AnyTags) > 0:
		page.tags = strings.Join(f.AnyTags, "/")
	}
	var all []E
	seenOffsets := map[string]bool{}
	for {
		var answer corePageAnswer[R]
		if err := c.exchange(ctx, op, &answer, func(ctx context.Context) (*http.Response, error) {
			return send(ctx, cpID, page)
		}); err != nil {
			return nil, err
		}
		for _, item := range answer.Data {
			e, err := decodeEntity[E](op, item)
			if err != nil {
				return nil, err
			}
			if matchesFilter(f, k, e) {
				all = append(all, e)
			}
		}
		if answer.Offset == nil || *answer.Offset == "" {
			return all, nil
		}
		if seenOffsets[*answer.Offset] {
			return nil, fmt.Errorf("%s: Konnect returned the page offset %q twice", op, *answer.Offset)
		}
		seenOffsets[*answer.Offset] = true
		page.offset = *answer.Offset
	}
}

// matchesFilter applies f to one listed entity.
func matchesFilter[E any](f ListFilter, k kind[E], e E) bool {
	if f.Name != "" && k.name(e) != f.Name {
		return false
	}
	tags := k.tags(e)
	for _, t := range f.Tags {
		if !slices.Contains(tags, t) {
			return false
		}
	}
	if len(f.AnyTags) > 0 && !slices.ContainsFunc(f.AnyTags, func(t string) bool { return slices.Contains(tags, t) }) {
		return false
	}
	return true
}
