package konnect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	sdkkonnectgo "github.com/Kong/sdk-konnect-go"
	"github.com/Kong/sdk-konnect-go/models/sdkerrors"
)

// JSONReader reads an answer of Konnect as Konnect wrote it, through the
// same client as Kong's SDK (token, rate limiter, metrics, listing
// limits). It exists because the SDK's types of some answers drop what
// they do not model: an Event Gateway policy's or schema registry's
// config decodes as an empty struct, and an entity that cannot be read
// whole cannot be compared with what its object asks for.
type JSONReader interface {
	// ReadJSON GETs path (from the server's root) with query. An answer
	// other than 200 is the SDK's error for it, so that Call classifies it
	// as it would the SDK's.
	ReadJSON(ctx context.Context, path string, query url.Values) (json.RawMessage, error)
}

// jsonReader is the JSONReader of one server, sending through do.
type jsonReader struct {
	server string
	do     sdkkonnectgo.HTTPClient
}

func (r jsonReader) ReadJSON(ctx context.Context, path string, query url.Values) (json.RawMessage, error) {
	target := strings.TrimSuffix(r.server, "/") + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := r.do.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, sdkerrors.NewSDKError("API error occurred", res.StatusCode, string(body), res)
	}
	if !json.Valid(body) {
		return nil, fmt.Errorf("the answer to GET %s is not JSON", path)
	}
	return body, nil
}
