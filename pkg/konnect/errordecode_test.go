package konnect

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var (
	opCreateService = operation{verb: "create", entity: "service", core: true}
	opCreateCP      = operation{verb: "create", entity: "control_plane"}
)

// errorClass names the one type an error decodes to.
func errorClass(err error) string {
	var (
		notFound  *NotFoundError
		conflict  *ConflictError
		limited   *RateLimitedError
		invalid   *InvalidInputError
		auth      *AuthError
		transient *TransientError
	)
	var classes []string
	for name, target := range map[string]any{
		"NotFound": &notFound, "Conflict": &conflict, "RateLimited": &limited,
		"InvalidInput": &invalid, "Auth": &auth, "Transient": &transient,
	} {
		if errors.As(err, target) {
			classes = append(classes, name)
		}
	}
	if len(classes) != 1 {
		return "unclassified" + strings.Join(classes, "+")
	}
	return classes[0]
}

func TestClassifyResponse(t *testing.T) {
	tests := []struct {
		name       string
		op         operation
		status     int
		header     http.Header
		body       string
		wantClass  string
		wantText   string
		wantFields []FieldError
		wantDelay  time.Duration
	}{
		{
			name: "404 problem+json is not found, without the trace id", op: opCreateCP, status: 404,
			body:      `{"status":404,"title":"Not Found","type":"https://httpstatuses.com/404","instance":"kong:trace:8133722474930104351","detail":"control plane not found"}`,
			wantClass: "NotFound", wantText: "create control plane: not found (HTTP 404): control plane not found",
		},
		{
			name: "409 problem+json is a conflict", op: opCreateCP, status: 409,
			body:      `{"status":409,"title":"Conflict","instance":"kong:trace:1","detail":"Key (org_id, name)=(x, cp) already exists."}`,
			wantClass: "Conflict", wantText: "create control plane: conflict (HTTP 409): Key (org_id, name)=(x, cp) already exists.",
		},
		{
			name: "400 problem+json keeps Konnect's field messages", op: opCreateCP, status: 400,
			body:      `{"status":400,"title":"Bad Request","instance":"kong:trace:2","detail":"Invalid request","invalid_parameters":[{"field":"name","rule":"required","reason":"is a required field","source":"body"},{"field":"labels","reason":"must not have more than 50 entries","rule":"max_items","maximum":50}]}`,
			wantClass: "InvalidInput",
			wantText:  "create control plane: invalid input (HTTP 400): Invalid request: name: is a required field; labels: must not have more than 50 entries",
			wantFields: []FieldError{
				{Field: "name", Message: "is a required field", Type: "required"},
				{Field: "labels", Message: "must not have more than 50 entries", Type: "max_items"},
			},
		},
		{
			name: "400 unique constraint on a core entity is a conflict", op: opCreateService, status: 400,
			body:      `{"code":3,"message":"data constraint error","details":[{"@type":"type.googleapis.com/kong.admin.model.v1.ErrorDetail","type":"ERROR_TYPE_FIELD","field":"name","messages":["name (type: unique) constraint failed"]}]}`,
			wantClass: "Conflict", wantText: "create service: conflict (HTTP 400): data constraint error: name: name (type: unique) constraint failed",
			wantFields: []FieldError{{Field: "name", Message: "name (type: unique) constraint failed", Type: "ERROR_TYPE_FIELD"}},
		},
		{
			name: "400 unique constraint filed under references (as Konnect does) is a conflict", op: opCreateService, status: 400,
			body:      `{"code":3,"message":"data constraint error","details":[{"@type":"type.googleapis.com/kong.admin.model.v1.ErrorDetail","type":"ERROR_TYPE_REFERENCE","field":"name","messages":["name (type: unique) constraint failed for value 'billing': "]}]}`,
			wantClass: "Conflict", wantText: "create service: conflict (HTTP 400): data constraint error: name: name (type: unique) constraint failed for value 'billing'",
			wantFields: []FieldError{{Field: "name", Message: "name (type: unique) constraint failed for value 'billing'", Type: "ERROR_TYPE_REFERENCE"}},
		},
		{
			name: "400 with code 6 on a core entity is a conflict", op: opCreateService, status: 400,
			body:      `{"code":6,"message":"entity already exists"}`,
			wantClass: "Conflict", wantText: "create service: conflict (HTTP 400): entity already exists",
		},
		{
			name: "400 bare data constraint error on a core entity is a conflict", op: opCreateService, status: 400,
			body:      `{"code":3,"message":"data constraint error"}`,
			wantClass: "Conflict", wantText: "create service: conflict (HTTP 400): data constraint error",
		},
		{
			name: "400 constraint about a missing reference is invalid input", op: opCreateService, status: 400,
			body:      `{"code":3,"message":"data constraint error","details":[{"type":"ERROR_TYPE_REFERENCE","field":"service","messages":["failed to find referenced entity 'svc-1'"]}]}`,
			wantClass: "InvalidInput", wantText: "create service: invalid input (HTTP 400): data constraint error: service: failed to find referenced entity 'svc-1'",
			wantFields: []FieldError{{Field: "service", Message: "failed to find referenced entity 'svc-1'", Type: "ERROR_TYPE_REFERENCE"}},
		},
		{
			name: "400 unique message outside the core-entity API stays invalid input", op: opCreateCP, status: 400,
			body:      `{"status":400,"title":"Bad Request","detail":"name must be unique"}`,
			wantClass: "InvalidInput", wantText: "create control plane: invalid input (HTTP 400): name must be unique",
		},
		{
			name: "400 Kong-admin validation error lists fields", op: opCreateService, status: 400,
			body:      `{"code":3,"message":"validation error","details":[{"@type":"x","type":"ERROR_TYPE_FIELD","field":"host","messages":["required field missing"]},{"type":"ERROR_TYPE_FIELD","field":"port","messages":["value should be between 0 and 65535","must be an integer"]}]}`,
			wantClass: "InvalidInput",
			wantText:  "create service: invalid input (HTTP 400): validation error: host: required field missing; port: value should be between 0 and 65535, must be an integer",
			wantFields: []FieldError{
				{Field: "host", Message: "required field missing", Type: "ERROR_TYPE_FIELD"},
				{Field: "port", Message: "value should be between 0 and 65535, must be an integer", Type: "ERROR_TYPE_FIELD"},
			},
		},
		{
			name: "400 classic Kong schema violation flattens nested fields", op: opCreateService, status: 400,
			body:      `{"name":"schema violation","message":"2 schema violations","fields":{"protocol":"expected one of: http, https","config":{"minute":"expected a number"}}}`,
			wantClass: "InvalidInput",
			wantText:  "create service: invalid input (HTTP 400): 2 schema violations: config.minute: expected a number; protocol: expected one of: http, https",
			wantFields: []FieldError{
				{Field: "config.minute", Message: "expected a number"},
				{Field: "protocol", Message: "expected one of: http, https"},
			},
		},
		{
			name: "401 from the gateway API is an auth error", op: opCreateService, status: 401,
			body:      `{"message":"Unauthorized","status":401}`,
			wantClass: "Auth", wantText: "create service: unauthorized (HTTP 401): Unauthorized",
		},
		{
			name: "403 problem+json is an auth error", op: opCreateCP, status: 403,
			body:      `{"status":403,"title":"Forbidden","instance":"kong:trace:77","detail":"You do not have permission to perform this action"}`,
			wantClass: "Auth", wantText: "create control plane: forbidden (HTTP 403): You do not have permission to perform this action",
		},
		{
			name: "429 with Retry-After waits that long", op: opCreateService, status: 429,
			header:    http.Header{"Retry-After": {"77"}, "Ratelimit-Reset": {"48"}},
			body:      `{"message":"API rate limit exceeded"}`,
			wantClass: "RateLimited", wantText: "create service: rate limited (HTTP 429): API rate limit exceeded", wantDelay: 77 * time.Second,
		},
		{
			name: "429 without Retry-After waits for RateLimit-Reset", op: opCreateService, status: 429,
			header:    http.Header{"Ratelimit-Reset": {"48"}},
			body:      `{"message":"API rate limit exceeded"}`,
			wantClass: "RateLimited", wantText: "create service: rate limited (HTTP 429): API rate limit exceeded", wantDelay: 48 * time.Second,
		},
		{
			name: "429 without headers names no delay", op: opCreateCP, status: 429, body: ``,
			wantClass: "RateLimited", wantText: "create control plane: rate limited (HTTP 429): too many requests",
		},
		{
			name: "429 with a garbage Retry-After falls back to RateLimit-Reset", op: opCreateCP, status: 429,
			header:    http.Header{"Retry-After": {"soon"}, "Ratelimit-Reset": {"12"}},
			wantClass: "RateLimited", wantText: "create control plane: rate limited (HTTP 429): too many requests", wantDelay: 12 * time.Second,
		},
		{
			name: "500 is transient", op: opCreateService, status: 500,
			body:      `{"status":500,"title":"Internal","instance":"kong:trace:123","detail":"internal error (trace_id=abc123def)"}`,
			wantClass: "Transient", wantText: "create service: transient error (HTTP 500): internal error",
		},
		{
			name: "503 with an HTML page is transient with the status text", op: opCreateCP, status: 503,
			body:      "<html><body>upstream unavailable</body></html>",
			wantClass: "Transient", wantText: "create control plane: transient error (HTTP 503): service unavailable",
		},
		{
			name: "408 is transient", op: opCreateCP, status: 408, body: "request timeout\n",
			wantClass: "Transient", wantText: "create control plane: transient error (HTTP 408): request timeout",
		},
		{
			name: "other 4xx are invalid input", op: opCreateService, status: 415, body: `{"message":"unsupported media type"}`,
			wantClass: "InvalidInput", wantText: "create service: invalid input (HTTP 415): unsupported media type",
		},
		{
			name: "trace ids inside messages are removed", op: opCreateService, status: 400,
			body:      `{"message":"invalid plugin config (request-id: 5f2c9a1b) [kong:trace:999]","details":[{"field":"config","messages":["bad value kong:trace:42"]}]}`,
			wantClass: "InvalidInput", wantText: "create service: invalid input (HTTP 400): invalid plugin config: config: bad value",
			wantFields: []FieldError{{Field: "config", Message: "bad value"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := tt.header
			if header == nil {
				header = http.Header{}
			}
			err := classifyResponse(tt.op, tt.status, header, []byte(tt.body))
			if got := errorClass(err); got != tt.wantClass {
				t.Fatalf("class = %s, want %s (error: %v)", got, tt.wantClass, err)
			}
			if err.Error() != tt.wantText {
				t.Errorf("text =\n  %q\nwant\n  %q", err.Error(), tt.wantText)
			}
			if delay, ok := IsRateLimited(err); ok && delay != tt.wantDelay {
				t.Errorf("retry after = %v, want %v", delay, tt.wantDelay)
			}
			var limited *RateLimitedError
			if errors.As(err, &limited) && limited.DelayKnown != (tt.wantDelay > 0) {
				t.Errorf("DelayKnown = %v with a delay of %v", limited.DelayKnown, tt.wantDelay)
			}
			if got := fieldsOf(err); !reflect.DeepEqual(got, tt.wantFields) {
				t.Errorf("fields = %#v, want %#v", got, tt.wantFields)
			}
			if status := statusOf(err); status != tt.status {
				t.Errorf("status code = %d, want %d", status, tt.status)
			}
		})
	}
}

func fieldsOf(err error) []FieldError {
	var invalid *InvalidInputError
	var conflict *ConflictError
	switch {
	case errors.As(err, &invalid):
		return invalid.Fields
	case errors.As(err, &conflict):
		return conflict.Fields
	}
	return nil
}

func statusOf(err error) int {
	var (
		notFound  *NotFoundError
		conflict  *ConflictError
		limited   *RateLimitedError
		invalid   *InvalidInputError
		auth      *AuthError
		transient *TransientError
	)
	switch {
	case errors.As(err, &notFound):
		return notFound.StatusCode
	case errors.As(err, &conflict):
		return conflict.StatusCode
	case errors.As(err, &limited):
		return limited.StatusCode
	case errors.As(err, &invalid):
		return invalid.StatusCode
	case errors.As(err, &auth):
		return auth.StatusCode
	case errors.As(err, &transient):
		return transient.StatusCode
	}
	return -1
}

func TestClassifiedErrorsSurviveWrapping(t *testing.T) {
	err := classifyResponse(opCreateService, 404, http.Header{}, nil)
	wrapped := errors.Join(errors.New("reconcile"), err)
	if !IsNotFound(wrapped) || IsConflict(wrapped) || IsTransient(wrapped) || IsAuth(wrapped) || IsInvalidInput(wrapped) {
		t.Fatalf("wrapped 404 classified wrongly: %v", wrapped)
	}
	if _, limited := IsRateLimited(wrapped); limited {
		t.Fatalf("wrapped 404 reported as rate limited")
	}
}

func TestInvalidInputOnlyReferences(t *testing.T) {
	tests := []struct {
		name   string
		fields []FieldError
		want   bool
	}{
		{name: "no fields", want: false},
		{name: "only reference errors", fields: []FieldError{{Field: "service", Type: "ERROR_TYPE_REFERENCE"}, {Field: "x", Type: "missing_reference"}}, want: true},
		{name: "a field error among references", fields: []FieldError{{Field: "service", Type: "ERROR_TYPE_REFERENCE"}, {Field: "host", Type: "ERROR_TYPE_FIELD"}}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := &InvalidInputError{Fields: tt.fields}
			if got := err.OnlyReferences(); got != tt.want {
				t.Fatalf("OnlyReferences() = %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzClassifyResponse checks, for any status and body, that the decoder
// never panics, always picks exactly one error type (the one the status
// decides), names the operation, and never lets a trace id or invalid UTF-8
// into the text, and that the text is the same when the same answer comes
// again.
func FuzzClassifyResponse(f *testing.F) {
	corpus := []struct {
		status int
		body   string
	}{
		{404, `{"status":404,"title":"Not Found","instance":"kong:trace:8133722474930104351","detail":"Not found"}`},
		{400, `{"status":400,"title":"Bad Request","instance":"kong:trace:1","detail":"Invalid","invalid_parameters":[{"field":"name","reason":"is required","rule":"required"}]}`},
		{400, `{"code":3,"message":"data constraint error","details":[{"@type":"t","type":"ERROR_TYPE_FIELD","field":"name","messages":["name (type: unique) constraint failed"]}]}`},
		{400, `{"name":"schema violation","fields":{"config":{"minute":"expected a number"}}}`},
		{409, `{"status":409,"title":"Conflict","detail":"exists"}`},
		{429, `{"message":"API rate limit exceeded"}`},
		{401, `{"message":"Unauthorized","status":401}`},
		{503, `<html>busy</html>`},
		{500, "kong:tr(kong:trace:)ace:1 request_id=abc"},
		{400, `{"message":["not","a","string"],"details":{"no":"list"},"code":"6"}`},
		{302, ``},
		{400, "\xff\xfe{\"message\":\"\xc3\x28\"}"},
	}
	for _, s := range corpus {
		f.Add(s.status, []byte(s.body), true)
		f.Add(s.status, []byte(s.body), false)
	}
	f.Fuzz(func(t *testing.T, status int, body []byte, core bool) {
		if status < 100 || status > 599 {
			status = 100 + (status%500+500)%500
		}
		op := operation{verb: "create", entity: "service", core: core}
		err := classifyResponse(op, status, http.Header{}, body)
		class := errorClass(err)
		if want := classForStatus(status, class); class != want {
			t.Fatalf("status %d decoded as %s, want %s", status, class, want)
		}
		text := err.Error()
		if !strings.HasPrefix(text, "create service: ") {
			t.Fatalf("text %q does not name the operation", text)
		}
		if strings.Contains(strings.ToLower(text), "kong:trace:") {
			t.Fatalf("text %q carries a trace id", text)
		}
		if !utf8.ValidString(text) {
			t.Fatalf("text %q is not valid UTF-8", text)
		}
		if again := classifyResponse(op, status, http.Header{}, body); again.Error() != text {
			t.Fatalf("same answer decoded differently: %q then %q", text, again.Error())
		}
	})
}

// classForStatus is the class the status decides; only a 400 may be either a
// conflict or invalid input, depending on the body.
func classForStatus(status int, got string) string {
	switch {
	case status == 404:
		return "NotFound"
	case status == 409:
		return "Conflict"
	case status == 429:
		return "RateLimited"
	case status == 401 || status == 403:
		return "Auth"
	case status == 400 && (got == "Conflict" || got == "InvalidInput"):
		return got
	case status == 408 || status >= 500:
		return "Transient"
	case status >= 400:
		return "InvalidInput"
	default:
		return "Transient"
	}
}
