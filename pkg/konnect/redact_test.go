package konnect

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/sdkerrors"
)

// Konnect quotes the unique field of a credential that is taken; the
// message that reaches conditions, Events and logs must not.
func TestErrorsAreStrippedOfTheSecretsOfTheEntityWritten(t *testing.T) {
	const key = "s3cr3t-api-key-value"
	echo := &sdkerrors.SDKError{StatusCode: 400, Body: `{"code":6,"message":"UNIQUE violation detected on '{key=\"` + key + `\"}'",` +
		`"details":[{"field":"key","messages":["` + key + ` is taken"]}]}`}
	ctx := WithSecrets(context.Background(), key, "ab", "")
	_, err := Call(ctx, Operation{Verb: "create", Entity: "key_auth", Core: true}, func(context.Context) (struct{}, error) {
		return struct{}{}, echo
	})
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("not classified as a conflict: %v", err)
	}
	if strings.Contains(err.Error(), key) {
		t.Fatalf("the error carries the key: %v", err)
	}
	if !strings.Contains(err.Error(), Redacted) {
		t.Fatalf("the error does not show where the key was: %v", err)
	}
	// Without secrets in the context the message is Konnect's.
	_, plain := Call(context.Background(), Operation{Verb: "create", Entity: "key_auth", Core: true}, func(context.Context) (struct{}, error) {
		return struct{}{}, echo
	})
	if !strings.Contains(plain.Error(), key) {
		t.Fatalf("the message was changed without a secret to take out: %v", plain)
	}
}
