package konnect

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	// maxMessageLen bounds the message kept from an error body; condition
	// messages need the gist, not a whole page.
	maxMessageLen = 1024
	// kongCodeAlreadyExists is the gRPC-style code Konnect's core-entity
	// API uses for "already exists".
	kongCodeAlreadyExists = 6
)

// errorBody is what this package understands of an error answer, whatever
// its style: problem+json (control planes, organisations), Kong-admin
// (core entities) or a bare {"message": …}.
type errorBody struct {
	message string
	fields  []FieldError
	code    int
}

// classifyResponse turns an answer that is not a success into one of the
// package's error types.
func classifyResponse(op operation, statusCode int, header http.Header, body []byte) error {
	decoded := decodeErrorBody(body)
	message := decoded.message
	if message == "" {
		message = strings.ToLower(http.StatusText(statusCode))
	}
	name := op.String()
	switch {
	case statusCode == http.StatusNotFound:
		return &NotFoundError{Operation: name, StatusCode: statusCode, Message: message}
	case statusCode == http.StatusConflict:
		return &ConflictError{Operation: name, StatusCode: statusCode, Message: message, Fields: decoded.fields}
	case statusCode == http.StatusTooManyRequests:
		delay, known := retryAfter(header, time.Now())
		return &RateLimitedError{Operation: name, StatusCode: statusCode, RetryAfter: delay, DelayKnown: known, Message: message}
	case statusCode == http.StatusUnauthorized || statusCode == http.StatusForbidden:
		return &AuthError{Operation: name, StatusCode: statusCode, Message: message}
	case statusCode == http.StatusBadRequest && op.core && decoded.isUniquenessViolation():
		return &ConflictError{Operation: name, StatusCode: statusCode, Message: message, Fields: decoded.fields}
	case statusCode == http.StatusRequestTimeout || statusCode >= 500:
		return &TransientError{Operation: name, StatusCode: statusCode, Message: message}
	case statusCode >= 400:
		return &InvalidInputError{Operation: name, StatusCode: statusCode, Message: message, Fields: decoded.fields}
	default:
		// 1xx/3xx: redirects are not followed and Konnect sends none; a
		// retry is the best anyone can do.
		return &TransientError{Operation: name, StatusCode: statusCode, Message: "unexpected answer: " + message}
	}
}

// isUniquenessViolation recognises Konnect's 400 for a core entity whose
// unique field (name, username, prefix, …) is taken: code 6, a message
// about a unique constraint, or a bare "data constraint error" without
// details. Konnect labels both uniqueness clashes and missing references
// ERROR_TYPE_REFERENCE, so the type cannot tell them apart; a missing
// reference comes with a detail that does not mention uniqueness.
func (b errorBody) isUniquenessViolation() bool {
	if b.code == kongCodeAlreadyExists {
		return true
	}
	texts := []string{b.message}
	for _, f := range b.fields {
		texts = append(texts, f.Message)
	}
	if strings.Contains(strings.ToLower(strings.Join(texts, " ")), "unique") {
		return true
	}
	return len(b.fields) == 0 && strings.Contains(strings.ToLower(b.message), "constraint")
}

// decodeErrorBody extracts a message and field errors from any of the error
// styles Konnect uses. It never fails: what it cannot read it leaves out.
func decodeErrorBody(body []byte) errorBody {
	trimmed := bytes.TrimSpace(body)
	var object map[string]json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &object) != nil {
		return errorBody{message: cleanMessage(plainTextMessage(trimmed))}
	}
	var out errorBody
	// problem+json: detail says what went wrong, title is its summary;
	// instance is the per-request trace id and is deliberately ignored.
	detail, title := jsonString(object["detail"]), jsonString(object["title"])
	message := jsonString(object["message"])
	switch {
	case message != "":
		out.message = message
	case detail != "":
		out.message = detail
	default:
		out.message = title
	}
	out.code = jsonInt(object["code"])
	out.fields = append(out.fields, problemFields(object["invalid_parameters"])...)
	out.fields = append(out.fields, kongDetailFields(object["details"])...)
	out.fields = append(out.fields, kongSchemaFields(object["fields"])...)
	out.message = cleanMessage(out.message)
	kept := out.fields[:0]
	for _, f := range out.fields {
		f.Field = cleanMessage(f.Field)
		f.Message = cleanMessage(f.Message)
		f.Type = cleanMessage(f.Type)
		if f.Field != "" || f.Message != "" {
			kept = append(kept, f)
		}
	}
	out.fields = kept
	if len(out.fields) == 0 {
		out.fields = nil
	}
	return out
}

// problemFields reads problem+json's invalid_parameters[].
func problemFields(raw json.RawMessage) []FieldError {
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var fields []FieldError
	for _, item := range items {
		fields = append(fields, FieldError{
			Field:   jsonString(item["field"]),
			Message: jsonString(item["reason"]),
			Type:    jsonString(item["rule"]),
		})
	}
	return fields
}

// kongDetailFields reads the Kong-admin details[] ({type, field, messages}).
func kongDetailFields(raw json.RawMessage) []FieldError {
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var fields []FieldError
	for _, item := range items {
		var messages []string
		if json.Unmarshal(item["messages"], &messages) != nil {
			messages = nil
		}
		if len(messages) == 0 {
			if m := jsonString(item["message"]); m != "" {
				messages = []string{m}
			}
		}
		fields = append(fields, FieldError{
			Field:   jsonString(item["field"]),
			Message: strings.Join(messages, ", "),
			Type:    jsonString(item["type"]),
		})
	}
	return fields
}

// kongSchemaFields reads the classic Kong admin "fields" object, nested
// objects flattened into dotted paths and sorted for a stable order.
func kongSchemaFields(raw json.RawMessage) []FieldError {
	var tree map[string]any
	if json.Unmarshal(raw, &tree) != nil {
		return nil
	}
	var fields []FieldError
	var walk func(prefix string, v any, depth int)
	walk = func(prefix string, v any, depth int) {
		switch value := v.(type) {
		case map[string]any:
			if depth > 8 {
				return
			}
			for k, child := range value {
				path := k
				if prefix != "" {
					path = prefix + "." + k
				}
				walk(path, child, depth+1)
			}
		case []any:
			var parts []string
			for _, item := range value {
				if s, ok := item.(string); ok {
					parts = append(parts, s)
				}
			}
			if len(parts) > 0 {
				fields = append(fields, FieldError{Field: prefix, Message: strings.Join(parts, ", ")})
			}
		case string:
			fields = append(fields, FieldError{Field: prefix, Message: value})
		}
	}
	walk("", tree, 0)
	sort.Slice(fields, func(i, j int) bool { return fields[i].Field < fields[j].Field })
	return fields
}

func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func jsonInt(raw json.RawMessage) int {
	var n float64
	if json.Unmarshal(raw, &n) != nil || n != float64(int(n)) {
		return 0
	}
	return int(n)
}

// plainTextMessage keeps the first line of a non-JSON body when it reads
// like a message; an HTML error page from a proxy says nothing useful.
func plainTextMessage(body []byte) string {
	text := string(body)
	if strings.ContainsAny(text, "<>") {
		return ""
	}
	if i := strings.IndexAny(text, "\r\n"); i >= 0 {
		text = text[:i]
	}
	if len(text) > 200 {
		text = text[:200]
	}
	return text
}

var (
	// traceIDPatterns match the per-request identifiers Konnect puts into
	// error texts; kept, they would change every status update.
	traceIDPatterns = []*regexp.Regexp{
		regexp.MustCompile(`(?i)kong:trace:[^\s"',;()\[\]{}]*`),
		regexp.MustCompile(`(?i)\b(trace|request|correlation|span)[ _-]?id\b["']?\s*[:=]\s*["']?[0-9a-z][0-9a-z._:-]*["']?`),
	}
	emptyBrackets = regexp.MustCompile(`\(\s*\)|\[\s*\]|\{\s*\}`)
	whiteSpace    = regexp.MustCompile(`\s+`)
)

// cleanMessage makes a message from Konnect fit for a condition: trace ids
// removed, valid UTF-8, white space collapsed, length bounded.
func cleanMessage(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s, _ = truncateUTF8(s, 4*maxMessageLen)
	// Removing one id (or the brackets around it) can join the pieces of
	// another; repeat until nothing changes. Every pass that changes s
	// shortens it, so this ends.
	for {
		before := s
		for _, p := range traceIDPatterns {
			s = p.ReplaceAllString(s, "")
		}
		s = emptyBrackets.ReplaceAllString(s, "")
		if s == before {
			break
		}
	}
	s = strings.TrimSpace(whiteSpace.ReplaceAllString(s, " "))
	s = strings.TrimRight(s, " :;,")
	if cut, truncated := truncateUTF8(s, maxMessageLen); truncated {
		s = cut + "…"
	}
	return s
}

// truncateUTF8 shortens s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
