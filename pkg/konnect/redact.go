package konnect

import (
	"context"
	"slices"
	"strings"
)

// Redacted replaces a secret value that Konnect's answer echoed.
const Redacted = "[redacted]"

// minRedactedLen is the shortest value redacted: shorter ones would blank
// out ordinary words of a message, and say little of a secret.
const minRedactedLen = 4

type secretsKey struct{}

// WithSecrets returns a context whose calls (see Call) take values out of
// the errors Konnect answers: the secret material of the entity being
// written (a key-auth key, a basic-auth password, an HMAC or JWT secret),
// which Konnect may quote back, for example in a uniqueness violation.
// Errors carry messages into conditions, Events and logs; none of those
// may hold a secret.
func WithSecrets(ctx context.Context, values ...string) context.Context {
	var kept []string
	for _, v := range values {
		if len(v) >= minRedactedLen {
			kept = append(kept, v)
		}
	}
	if len(kept) == 0 {
		return ctx
	}
	// Longest first, so that a value containing another goes whole.
	slices.SortFunc(kept, func(a, b string) int { return len(b) - len(a) })
	return context.WithValue(ctx, secretsKey{}, append(secretsFrom(ctx), kept...))
}

func secretsFrom(ctx context.Context) []string {
	values, _ := ctx.Value(secretsKey{}).([]string)
	return values
}

// redactError takes the context's secret values out of a classified
// error's message and field messages.
func redactError(ctx context.Context, err error) error {
	secrets := secretsFrom(ctx)
	if len(secrets) == 0 || err == nil {
		return err
	}
	scrub := func(s string) string {
		for _, secret := range secrets {
			s = strings.ReplaceAll(s, secret, Redacted)
		}
		return s
	}
	scrubFields := func(fields []FieldError) []FieldError {
		if len(fields) == 0 {
			return fields
		}
		out := make([]FieldError, len(fields))
		for i, f := range fields {
			f.Message = scrub(f.Message)
			out[i] = f
		}
		return out
	}
	switch e := err.(type) { //nolint:errorlint // Call's own classified errors, never wrapped
	case *NotFoundError:
		copied := *e
		copied.Message = scrub(e.Message)
		return &copied
	case *ConflictError:
		copied := *e
		copied.Message, copied.Fields = scrub(e.Message), scrubFields(e.Fields)
		return &copied
	case *RateLimitedError:
		copied := *e
		copied.Message = scrub(e.Message)
		return &copied
	case *AuthError:
		copied := *e
		copied.Message = scrub(e.Message)
		return &copied
	case *InvalidInputError:
		copied := *e
		copied.Message, copied.Fields = scrub(e.Message), scrubFields(e.Fields)
		return &copied
	case *TransientError:
		copied := *e
		copied.Message = scrub(e.Message)
		return &copied
	}
	return err
}
