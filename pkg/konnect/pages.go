package konnect

import (
	"context"
	"fmt"
	"strings"
)

// PageSize is the size of the pages in which core-entity collections are
// listed: the largest Konnect serves, so that a list costs as few
// rate-limited requests as possible.
const PageSize = 1000

// Page asks for one page of a core-entity list.
type Page struct {
	// Size is the number of entities per page.
	Size int64
	// Offset is the opaque cursor of the previous page's answer; nil for
	// the first page.
	Offset *string
	// Tags filters the entities: all of them must be present. Nil: no
	// filter.
	Tags *string
}

// ListAll follows every page of a core-entity list, in pages of PageSize.
// fetch asks for one page and returns its entities and the next page's
// offset (nil or "" on the last page). Entities must carry every tag in
// tags; tags that contain Konnect's separators ("," and "/") cannot be
// filtered on and are refused.
func ListAll[A any](ctx context.Context, op Operation, tags []string, fetch func(context.Context, Page) ([]A, *string, error)) ([]A, error) {
	page := Page{Size: PageSize}
	if len(tags) > 0 {
		for _, t := range tags {
			if strings.ContainsAny(t, ",/") {
				return nil, &InvalidInputError{Operation: op.String(), Message: fmt.Sprintf("cannot filter on the tag %q: it contains , or /", t)}
			}
		}
		joined := strings.Join(tags, ",")
		page.Tags = &joined
	}
	var all []A
	seen := map[string]bool{}
	for {
		type answer struct {
			items []A
			next  *string
		}
		got, err := Call(ctx, op, func(ctx context.Context) (answer, error) {
			items, next, err := fetch(ctx, page)
			return answer{items, next}, err
		})
		if err != nil {
			return nil, err
		}
		all = append(all, got.items...)
		if got.next == nil || *got.next == "" {
			return all, nil
		}
		if seen[*got.next] {
			return nil, &TransientError{Operation: op.String(), Message: fmt.Sprintf("Konnect returned the page offset %q twice", *got.next)}
		}
		seen[*got.next] = true
		page.Offset = got.next
	}
}
