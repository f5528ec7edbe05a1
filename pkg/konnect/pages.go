package konnect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	sdkkonnectgo "github.com/Kong/sdk-konnect-go"
	"github.com/Kong/sdk-konnect-go/models/sdkerrors"

	"github.com/konnect-operator/konnect-operator/pkg/jsonscan"
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

// shrunkPageSize is the page size ListAll asks for again when a page of
// PageSize is larger than a page may be (DefaultMaxPageBytes): entities
// ten times the size that a full page allows still list.
const shrunkPageSize = PageSize / 10

// ListAll follows every page of a core-entity list, in pages of PageSize.
// fetch asks for one page and returns its entities and the next page's
// offset (nil or "" on the last page). Entities must carry every tag in
// tags; tags that contain Konnect's separators ("," and "/") cannot be
// filtered on and are refused. The listing stops at the client's
// ListingLimits, and at an offset it had before, with a
// *ServerFaultError.
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
	ctx, listing := StartListing(ctx, op)
	defer listing.Done()
	var all []A
	for {
		type answer struct {
			items []A
			next  *string
		}
		got, err := Call(ctx, op, func(ctx context.Context) (answer, error) {
			items, next, err := fetch(ctx, page)
			return answer{items, next}, err
		})
		if fault := (*ServerFaultError)(nil); errors.As(err, &fault) && fault.Fault == FaultBodyTooLarge && page.Size > shrunkPageSize {
			page.Size = shrunkPageSize
			continue
		}
		if err != nil {
			return nil, err
		}
		all = append(all, got.items...)
		next := ""
		if got.next != nil {
			next = *got.next
		}
		if err := listing.Page(len(got.items), next); err != nil {
			return nil, err
		}
		if next == "" {
			return all, nil
		}
		page.Offset = got.next
	}
}

// PageReader reads one page of a core-entity collection through the same
// client as Kong's SDK (token, rate limiter, metrics), and leaves its
// entities undecoded. It exists for speed alone: the SDK decodes every
// entity field by field through reflection, about 25 µs a consumer, and
// the drift lister of an organisation of 100,000 entities lists each once
// a period, almost all unchanged. With the entities as Konnect wrote them,
// the lister decodes only those whose bytes changed since they were last
// found equal to their snapshot, and decodes them with encoding/json. Only
// types that the SDK decodes as encoding/json would (no defaults or
// constants filled in by the SDK itself) may be read this way.
type PageReader interface {
	// ReadPage GETs the collection at path (from /v2/) for page. An answer
	// other than 200 is the SDK's error for it, so that Call classifies it
	// as it would the SDK's.
	ReadPage(ctx context.Context, path string, page Page) (RawPage, error)
}

// RawPage is one page of a core-entity list, its entities as Konnect wrote
// them.
type RawPage struct {
	Data []json.RawMessage `json:"data"`
	// Offset is the next page's cursor; nil or "" on the last page.
	Offset *string `json:"offset"`
}

// pageReader is the PageReader of one server, sending through do.
type pageReader struct {
	server string
	do     sdkkonnectgo.HTTPClient
}

func (r pageReader) ReadPage(ctx context.Context, path string, page Page) (RawPage, error) {
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
		return RawPage{}, err
	}
	res, err := r.do.Do(req)
	if err != nil {
		return RawPage{}, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return RawPage{}, err
	}
	if res.StatusCode != http.StatusOK {
		return RawPage{}, sdkerrors.NewSDKError("API error occurred", res.StatusCode, string(body), res)
	}
	if got, ok := splitPage(bytes.TrimSpace(body)); ok {
		return got, nil
	}
	var got RawPage // not compact: decoded
	if err := json.Unmarshal(body, &got); err != nil {
		return RawPage{}, fmt.Errorf("decoding the page of %s: %w", path, err)
	}
	return got, nil
}

// splitPage splits a compact page into its entities without decoding them
// (jsonscan); ok is false for anything it cannot split plainly.
func splitPage(body []byte) (page RawPage, ok bool) {
	var data []byte
	plain := true
	split := jsonscan.Fields(body, func(name, value []byte) bool {
		switch string(name) {
		case "data":
			data = value
		case "offset":
			if string(value) == "null" {
				break
			}
			offset, isString := jsonscan.String(value)
			if !isString {
				plain = false
				return false
			}
			page.Offset = &offset
		}
		return true
	})
	if !split || !plain || data == nil {
		return RawPage{}, false
	}
	if string(data) == "null" {
		return page, true
	}
	split = jsonscan.Elements(data, func(entity []byte) bool {
		page.Data = append(page.Data, entity)
		return true
	})
	return page, split
}
