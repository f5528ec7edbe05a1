package konnect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	sdkkonnectgo "github.com/Kong/sdk-konnect-go"
	"github.com/Kong/sdk-konnect-go/models/sdkerrors"
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

// PageReader reads one page of a core-entity collection with
// encoding/json, through the same client as Kong's SDK (token, rate
// limiter, metrics). It exists for speed alone: the SDK decodes every
// entity field by field through reflection, about 25 µs a consumer, which
// for an organisation of 100,000 entities listed once a minute was most of
// an idle operator's CPU; encoding/json decodes the same page in a fraction
// of that. Only types that the SDK decodes as encoding/json would (no
// defaults or constants filled in by the SDK itself) may be read this way.
type PageReader interface {
	// ReadPage GETs the collection at path (from /v2/) for page and
	// decodes the answer into into, a pointer to a struct with the fields
	// data and offset. An answer other than 200 is the SDK's error for it,
	// so that Call classifies it as it would the SDK's.
	ReadPage(ctx context.Context, path string, page Page, into any) error
}

// pageReader is the PageReader of one server, sending through do.
type pageReader struct {
	server string
	do     sdkkonnectgo.HTTPClient
}

func (r pageReader) ReadPage(ctx context.Context, path string, page Page, into any) error {
	query := url.Values{}
	query.Set("size", strconv.FormatInt(page.Size, 10))
	if page.Offset != nil {
		query.Set("offset", *page.Offset)
	}
	if page.Tags != nil {
		query.Set("tags", *page.Tags)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(r.server, "/")+path+"?"+query.Encode(), nil)
	if err != nil {
		return err
	}
	res, err := r.do.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return sdkerrors.NewSDKError("API error occurred", res.StatusCode, string(body), res)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("decoding the page of %s: %w", path, err)
	}
	return nil
}
