package konnect

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// FieldError is one of Konnect's messages about a single field of a request.
type FieldError struct {
	// Field is the field's path as Konnect names it (e.g. "name",
	// "config.minute"); "" for messages about the whole entity.
	Field string
	// Message is what Konnect says about it.
	Message string
	// Type is Konnect's category of the problem when it gives one: the
	// Kong-admin detail type (e.g. "ERROR_TYPE_REFERENCE") or the
	// problem+json rule (e.g. "missing_reference").
	Type string
}

// IsReference reports whether Konnect files the problem under references:
// in an InvalidInputError that means the field refers to an entity Konnect
// does not have. (Konnect files uniqueness clashes there too; those are
// ConflictErrors.)
func (f FieldError) IsReference() bool {
	t := strings.ToLower(f.Type)
	return strings.Contains(t, "reference")
}

// NotFoundError is Konnect's answer 404: the entity (or its control plane or
// parent) does not exist. Deleting callers usually count it as success.
type NotFoundError struct {
	Operation  string
	StatusCode int
	Message    string
}

func (e *NotFoundError) Error() string {
	return formatError(e.Operation, "not found", e.StatusCode, e.Message, nil)
}

// ConflictError is Konnect's answer 409, or 400 with a uniqueness violation
// on a core entity: an entity with the same unique field already exists.
type ConflictError struct {
	Operation  string
	StatusCode int
	Message    string
	Fields     []FieldError
}

func (e *ConflictError) Error() string {
	return formatError(e.Operation, "conflict", e.StatusCode, e.Message, e.Fields)
}

// RateLimitedError is Konnect's answer 429 (or the client-side limiter
// refusing to wait past the caller's deadline). RetryAfter is how long to
// wait before trying again; it is not part of the error text, so that the
// text stays the same from one attempt to the next.
type RateLimitedError struct {
	Operation  string
	StatusCode int
	RetryAfter time.Duration
	// DelayKnown is false when the answer named no delay (neither
	// Retry-After nor RateLimit-Reset, as from Konnect's connection-level
	// limiter); RetryAfter is then zero and the caller backs off by itself.
	DelayKnown bool
	// Deferred is true when the request was never sent: the client-side
	// limiter gave the call a turn RetryAfter from now instead of a wait
	// (see WithDeferral).
	Deferred bool
	Message  string
}

func (e *RateLimitedError) Error() string {
	return formatError(e.Operation, "rate limited", e.StatusCode, e.Message, nil)
}

// InvalidInputError is a request Konnect refused as invalid (400 and other
// 4xx that are not covered by another type), or one this package refused
// before sending it. Retrying it unchanged will fail again.
type InvalidInputError struct {
	Operation  string
	StatusCode int // 0 when the request was never sent
	Message    string
	Fields     []FieldError
}

func (e *InvalidInputError) Error() string {
	return formatError(e.Operation, "invalid input", e.StatusCode, e.Message, e.Fields)
}

// OnlyReferences reports whether every field error is about a missing
// referenced entity (and there is at least one), which usually resolves
// itself once the referenced entity exists.
func (e *InvalidInputError) OnlyReferences() bool {
	if len(e.Fields) == 0 {
		return false
	}
	for _, f := range e.Fields {
		if !f.IsReference() {
			return false
		}
	}
	return true
}

// AuthError is Konnect's answer 401 (the token is missing, invalid or
// expired) or 403 (the token may not do this).
type AuthError struct {
	Operation  string
	StatusCode int
	Message    string
}

func (e *AuthError) Error() string {
	class := "unauthorized"
	if e.StatusCode == http.StatusForbidden {
		class = "forbidden"
	}
	return formatError(e.Operation, class, e.StatusCode, e.Message, nil)
}

// TransientError is a failure that may go away by itself: a 5xx answer, a
// 408, a timeout, a refused or reset connection. When it happened after the
// request was sent, the request may or may not have taken effect.
type TransientError struct {
	Operation  string
	StatusCode int // 0 when no HTTP answer arrived
	Message    string
	// Err is the underlying transport error, if any.
	Err error
}

func (e *TransientError) Error() string {
	return formatError(e.Operation, "transient error", e.StatusCode, e.Message, nil)
}

func (e *TransientError) Unwrap() error { return e.Err }

// IsNotFound reports whether err is (or wraps) a *NotFoundError.
func IsNotFound(err error) bool {
	var target *NotFoundError
	return errors.As(err, &target)
}

// IsConflict reports whether err is (or wraps) a *ConflictError.
func IsConflict(err error) bool {
	var target *ConflictError
	return errors.As(err, &target)
}

// IsRateLimited reports whether err is (or wraps) a *RateLimitedError and,
// if so, how long to wait before trying again (zero when Konnect named no
// delay: back off instead).
func IsRateLimited(err error) (time.Duration, bool) {
	var target *RateLimitedError
	if errors.As(err, &target) {
		return target.RetryAfter, true
	}
	return 0, false
}

// IsDeferred reports whether err is (or wraps) a *RateLimitedError of a
// request the client-side limiter did not send (see WithDeferral) and, if
// so, how long until the call's turn.
func IsDeferred(err error) (time.Duration, bool) {
	var target *RateLimitedError
	if errors.As(err, &target) && target.Deferred {
		return target.RetryAfter, true
	}
	return 0, false
}

// IsInvalidInput reports whether err is (or wraps) an *InvalidInputError.
func IsInvalidInput(err error) bool {
	var target *InvalidInputError
	return errors.As(err, &target)
}

// IsAuth reports whether err is (or wraps) an *AuthError.
func IsAuth(err error) bool {
	var target *AuthError
	return errors.As(err, &target)
}

// IsTransient reports whether err is (or wraps) a *TransientError.
func IsTransient(err error) bool {
	var target *TransientError
	return errors.As(err, &target)
}

// formatError renders "<operation>: <class> (HTTP <code>): <message>: <field>: <message>; …".
func formatError(operation, class string, statusCode int, message string, fields []FieldError) string {
	var b strings.Builder
	if operation != "" {
		b.WriteString(operation)
		b.WriteString(": ")
	}
	b.WriteString(class)
	if statusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", statusCode)
	}
	if message != "" {
		b.WriteString(": ")
		b.WriteString(message)
	}
	for i, f := range fields {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if f.Field != "" {
			b.WriteString(f.Field)
			b.WriteString(": ")
		}
		b.WriteString(f.Message)
	}
	return b.String()
}
