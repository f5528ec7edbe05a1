package konnect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/sdkerrors"
)

func TestClassifyErrorsOfTheSDK(t *testing.T) {
	createService := Operation{Verb: "create", Entity: "service", Core: true}
	createCP := Operation{Verb: "create", Entity: "control_plane"}
	withHeader := func(h http.Header) *http.Response { return &http.Response{Header: h, Body: http.NoBody} }
	detail := "name already exists"
	cases := []struct {
		name      string
		op        Operation
		err       error
		wantClass string
		wantText  string
		wantDelay time.Duration
	}{
		{
			name: "a core entity's 400 unique constraint is a conflict", op: createService,
			err: sdkerrors.NewSDKError("API error occurred", 400,
				`{"code":3,"message":"data constraint error","details":[{"@type":"type.googleapis.com/kong.admin.model.v1.ErrorDetail","type":"ERROR_TYPE_REFERENCE","field":"name","messages":["name (type: unique) constraint failed"]}]}`, nil),
			wantClass: "Conflict", wantText: "create service: conflict (HTTP 400)",
		},
		{
			name: "a core entity's 400 validation error is invalid input with its fields", op: createService,
			err: sdkerrors.NewSDKError("API error occurred", 400,
				`{"code":3,"message":"validation error","details":[{"@type":"type.googleapis.com/kong.admin.model.v1.ErrorDetail","type":"ERROR_TYPE_FIELD","field":"port","messages":["value must be less than 65536"]}]}`, nil),
			wantClass: "InvalidInput", wantText: "port: value must be less than 65536",
		},
		{
			name: "404 is not found", op: createService,
			err:       sdkerrors.NewSDKError("API error occurred", 404, `{"message":"Not found"}`, nil),
			wantClass: "NotFound",
		},
		{
			name: "429 waits as long as Retry-After says", op: createService,
			err:       sdkerrors.NewSDKError("API error occurred", 429, `{"message":"API rate limit exceeded"}`, withHeader(http.Header{"Retry-After": {"7"}})), //nolint:bodyclose // no body
			wantClass: "RateLimited", wantDelay: 7 * time.Second,
		},
		{
			name: "5xx is transient", op: createService,
			err:       sdkerrors.NewSDKError("API error occurred", 503, "upstream connect error", nil),
			wantClass: "Transient",
		},
		{
			name: "a typed conflict of a Konnect-level API, without its trace id", op: createCP,
			err:       &sdkerrors.ConflictError{Status: 409, Title: "Conflict", Instance: "kong:trace:1234567890", Detail: "Key (org_id, name)=(x, demo) already exists."},
			wantClass: "Conflict", wantText: "already exists",
		},
		{
			name: "a typed bad request keeps its invalid parameters", op: createCP,
			err: &sdkerrors.BadRequestError{Status: 400, Title: "Bad Request", Instance: "kong:trace:1", Detail: detail,
				InvalidParameters: []components.InvalidParameters{components.CreateInvalidParametersInvalidParameterStandard(
					components.InvalidParameterStandard{Field: "proxy_urls.0.port", Rule: components.InvalidRulesRequired.ToPointer(), Reason: "is a required field"})}},
			wantClass: "InvalidInput", wantText: "proxy_urls.0.port: is a required field",
		},
		{
			name: "a typed 401 is unauthorised", op: createCP,
			err:       &sdkerrors.UnauthorizedError{Status: 401, Title: "Unauthorized", Instance: "kong:trace:2", Detail: "Invalid token"},
			wantClass: "Auth", wantText: "Invalid token",
		},
		{
			name: "a problem the SDK has no type for keeps its status", op: createCP,
			err:       &sdkerrors.BaseError{Status: 500, Title: "Internal Server Error", Instance: "kong:trace:3", Detail: "database unavailable"},
			wantClass: "Transient", wantText: "database unavailable",
		},
		{
			name: "a transport failure wrapped by the SDK is transient", op: createService,
			err:       fmt.Errorf("error sending request: %w", &url.Error{Op: "Post", URL: "https://x", Err: errors.New("connection refused")}),
			wantClass: "Transient",
		},
	}
	for _, tc := range cases {
		got := Classify(tc.op, tc.err)
		if class := errorClass(got); class != tc.wantClass {
			t.Errorf("%s: %v classified %s, want %s", tc.name, got, class, tc.wantClass)
			continue
		}
		if !strings.Contains(got.Error(), tc.wantText) || strings.Contains(got.Error(), "kong:trace") {
			t.Errorf("%s: message %q, want it to contain %q and no trace id", tc.name, got.Error(), tc.wantText)
		}
		if tc.wantDelay != 0 {
			var limited *RateLimitedError
			if errors.As(got, &limited); limited.RetryAfter != tc.wantDelay {
				t.Errorf("%s: retry after %v, want %v", tc.name, limited.RetryAfter, tc.wantDelay)
			}
		}
	}
	classified := &NotFoundError{Operation: "get service"}
	if Classify(Operation{}, classified) != classified { //nolint:errorlint // the same value must come back
		t.Error("an error that is already classified was classified again")
	}
}

func TestCallLabelsTheRequestAndClassifiesItsError(t *testing.T) {
	op := Operation{Verb: "delete", Entity: "vault", Core: true}
	var seen operation
	_, err := Call(context.Background(), op, func(ctx context.Context) (struct{}, error) {
		seen = operationFrom(ctx)
		return struct{}{}, sdkerrors.NewSDKError("API error occurred", 404, "", nil)
	})
	if seen != op.internal() {
		t.Errorf("the request was labelled %+v, want %+v", seen, op)
	}
	if !IsNotFound(err) {
		t.Errorf("error %v, want not found", err)
	}
}

func TestOrganizationRequestsStayOnTheConfiguredServer(t *testing.T) {
	cases := []struct {
		server, request, want string
	}{
		{"https://127.0.0.1:8443", "https://global.api.konghq.com/v3/organizations/me", "127.0.0.1:8443"},
		{"https://konnect-proxy.internal", "https://global.api.konghq.com/v3/organizations/me", "konnect-proxy.internal"},
		{"https://eu.api.konghq.com", "https://global.api.konghq.com/v3/organizations/me", "global.api.konghq.com"},
		{"https://127.0.0.1:8443", "https://127.0.0.1:8443/v2/control-planes", "127.0.0.1:8443"},
	}
	for _, tc := range cases {
		server, _ := url.Parse(tc.server)
		req, _ := http.NewRequest(http.MethodGet, tc.request, nil)
		keepOnServer(req, server)
		if req.URL.Host != tc.want || req.Host != tc.want && req.Host != "" {
			t.Errorf("server %s, request to %s: sent to %s (Host %s), want %s", tc.server, tc.request, req.URL.Host, req.Host, tc.want)
		}
	}
}
