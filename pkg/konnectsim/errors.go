package konnectsim

import (
	"crypto/rand"
	"encoding/binary"
	"net/http"
	"strconv"
)

// family is the error dialect of an operation. Konnect speaks three:
// RFC 7807 problems on its own APIs (control planes, groups, organisations),
// Kong-admin style bodies on core entities, and a bare {"message"} on the
// legacy DP-certificate API. Its newer APIs (portals, config stores) speak
// problems too, but their documents leave out some of the statuses they
// answer (famNewer).
type family int

const (
	famProblem family = iota
	famCore
	famLegacy
	famNewer
)

const (
	contentJSON    = "application/json"
	contentProblem = "application/problem+json"
	// errorDetailType is the @type of every Kong-admin error detail.
	errorDetailType = "type.googleapis.com/kong.admin.model.v1.ErrorDetail"
)

// Kong-admin error codes (gRPC status codes), as Konnect returns them.
const (
	codeInvalidArgument = 3
	codeNotFound        = 5
	codeInternal        = 13
	codeUnavailable     = 14
)

// newTraceID makes the per-request correlation id Konnect puts in problem
// bodies; it changes on every request, which is what clients must cope with.
func newTraceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "kong:trace:" + strconv.FormatUint(binary.BigEndian.Uint64(b[:])>>1, 10)
}

// invalidParam is one entry of a problem body's invalid_parameters.
type invalidParam struct {
	Field  string `json:"field"`
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason"`
	Source string `json:"source,omitempty"`
}

// problemBody is an RFC 7807 problem as Konnect writes it.
type problemBody struct {
	Status            int            `json:"status"`
	Title             string         `json:"title"`
	Type              string         `json:"type,omitempty"`
	Instance          string         `json:"instance"`
	Detail            string         `json:"detail"`
	InvalidParameters []invalidParam `json:"invalid_parameters,omitempty"`
}

// kongDetail is one Kong-admin error detail.
type kongDetail struct {
	Type     string   `json:"@type"`
	Kind     string   `json:"type"`
	Field    string   `json:"field,omitempty"`
	Messages []string `json:"messages"`
}

// kongBody is a Kong-admin style error.
type kongBody struct {
	Code    int          `json:"code"`
	Message string       `json:"message"`
	Details []kongDetail `json:"details"`
}

func kongDetails(errs []fieldError, kindOfDetail string) []kongDetail {
	out := make([]kongDetail, 0, len(errs))
	for _, e := range errs {
		t := kindOfDetail
		if e.field == "" && t == "ERROR_TYPE_FIELD" {
			t = "ERROR_TYPE_ENTITY"
		}
		out = append(out, kongDetail{Type: errorDetailType, Kind: t, Field: e.field, Messages: e.messages})
	}
	return out
}

// problem writes an RFC 7807 body.
func (rc *reqCtx) problem(status int, detail string, params ...invalidParam) {
	title := http.StatusText(status)
	body := problemBody{
		Status: status, Title: title, Instance: rc.trace, Detail: detail,
		Type: "https://httpstatuses.com/" + strconv.Itoa(status), InvalidParameters: params,
	}
	if status == http.StatusBadRequest {
		body.Title = "Invalid Request"
		body.Type = "https://kongapi.info/konnect/invalid-request"
		if len(params) == 0 {
			body.InvalidParameters = []invalidParam{{Field: "body", Rule: "invalid", Reason: detail}}
		}
	}
	rc.writeJSON(status, contentProblem, body)
}

// validationFailed answers a request whose body or parameters are invalid,
// in the operation's dialect.
func (rc *reqCtx) validationFailed(errs []fieldError) {
	switch rc.route.family {
	case famCore:
		rc.writeJSON(http.StatusBadRequest, contentJSON, kongBody{
			Code: codeInvalidArgument, Message: "validation error", Details: kongDetails(errs, "ERROR_TYPE_FIELD"),
		})
	case famLegacy:
		rc.writeJSON(http.StatusBadRequest, contentJSON, map[string]any{"message": joinMessages(errs)})
	default:
		params := make([]invalidParam, 0, len(errs))
		for _, e := range errs {
			field := e.field
			if field == "" {
				field = "body"
			}
			rule := e.rule
			if rule == "" {
				rule = "invalid"
			}
			params = append(params, invalidParam{Field: field, Rule: rule, Reason: joinMessages([]fieldError{{messages: e.messages}})})
		}
		rc.problem(http.StatusBadRequest, "Some of the fields provided were invalid", params...)
	}
}

func joinMessages(errs []fieldError) string {
	out := ""
	for _, e := range errs {
		for _, m := range e.messages {
			if out != "" {
				out += "; "
			}
			if e.field != "" {
				out += e.field + ": "
			}
			out += m
		}
	}
	return out
}

// notFound answers 404 in the operation's dialect.
func (rc *reqCtx) notFound(what string) {
	switch rc.route.family {
	case famCore:
		rc.writeJSON(http.StatusNotFound, contentJSON, kongBody{Code: codeNotFound, Message: "not found", Details: []kongDetail{}})
	case famLegacy:
		rc.writeJSON(http.StatusNotFound, contentJSON, map[string]any{"message": what + " not found"})
	default:
		rc.problem(http.StatusNotFound, what+" not found")
	}
}

// uniqueViolation answers a core-entity uniqueness clash the way Konnect
// does: HTTP 400 "data constraint error", not 409.
func (rc *reqCtx) uniqueViolation(fields []string, value string) {
	field := fields[0]
	if len(fields) > 1 {
		field = ""
		for i, f := range fields {
			if i > 0 {
				field += ","
			}
			field += f
		}
	}
	msg := field + " (type: unique) constraint failed for value '" + value + "': "
	rc.writeJSON(http.StatusBadRequest, contentJSON, kongBody{
		Code: codeInvalidArgument, Message: "data constraint error",
		Details: []kongDetail{{Type: errorDetailType, Kind: "ERROR_TYPE_REFERENCE", Field: field, Messages: []string{msg}}},
	})
}

// referenceMissing answers a body that points at an entity that does not exist.
func (rc *reqCtx) referenceMissing(field, id string) {
	rc.writeJSON(http.StatusBadRequest, contentJSON, kongBody{
		Code: codeInvalidArgument, Message: "data constraint error",
		Details: []kongDetail{{
			Type: errorDetailType, Kind: "ERROR_TYPE_REFERENCE", Field: field,
			Messages: []string{"failed to find referenced entity '" + id + "'"},
		}},
	})
}

// unauthorized answers an unknown or missing token.
func (rc *reqCtx) unauthorized() {
	const detail = "Invalid credentials"
	switch {
	case rc.route.family == famLegacy:
		rc.writeJSON(http.StatusUnauthorized, contentJSON, map[string]any{"message": "Unauthorized"})
	case rc.route.family == famCore && !rc.route.problemAuth:
		// The document declares {message, status} here; the problem fields
		// ride along so the trace id is present as everywhere else.
		rc.writeJSON(http.StatusUnauthorized, contentJSON, map[string]any{
			"message": "Unauthorized", "status": http.StatusUnauthorized,
			"title": "Unauthorized", "detail": detail, "instance": rc.trace,
		})
	default:
		rc.problem(http.StatusUnauthorized, detail)
	}
}

// rateLimited answers 429.
func (rc *reqCtx) rateLimited() {
	if rc.route.family == famProblem || rc.route.family == famNewer {
		rc.problem(http.StatusTooManyRequests, "API rate limit exceeded")
		return
	}
	rc.writeJSON(http.StatusTooManyRequests, contentJSON, map[string]any{"message": "API rate limit exceeded"})
}

// injectedFailure answers a fault-injected error status.
func (rc *reqCtx) injectedFailure(status int) {
	if status == http.StatusTooManyRequests {
		// After the effect, as from the connection-level limiter: a bare
		// 429 without the organisation's rate-limit headers.
		for _, name := range rateLimitHeaders {
			rc.header.Del(name)
		}
		rc.rateLimited()
		return
	}
	switch rc.route.family {
	case famCore:
		code := codeInternal
		if status == http.StatusServiceUnavailable || status == http.StatusBadGateway || status == http.StatusGatewayTimeout {
			code = codeUnavailable
		}
		rc.writeJSON(status, contentJSON, kongBody{Code: code, Message: http.StatusText(status), Details: []kongDetail{}})
	case famLegacy:
		rc.writeJSON(status, contentJSON, map[string]any{"message": http.StatusText(status)})
	default:
		rc.problem(status, "injected fault: "+http.StatusText(status))
	}
}
