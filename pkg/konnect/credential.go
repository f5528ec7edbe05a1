package konnect

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// credentialAPI binds the generic operations to one consumer-credential kind
// (basic-auth, key-auth, ACL, JWT, HMAC-auth): they are written under the
// consumer (…/consumers/{id}/basic-auth/…) and listed flat (…/basic-auths).
// The fields are the generated client's methods, as method expressions.
type credentialAPI[E, B, R any] struct {
	kind kind[E]
	// detach clears the ID and consumer of e: the path carries them.
	detach func(e E) E
	create func(*konnectapi.Client, context.Context, uuid.UUID, string, B, ...konnectapi.RequestEditorFn) (*http.Response, error)
	upsert func(*konnectapi.Client, context.Context, uuid.UUID, string, string, B, ...konnectapi.RequestEditorFn) (*http.Response, error)
	get    func(*konnectapi.Client, context.Context, uuid.UUID, string, string, ...konnectapi.RequestEditorFn) (*http.Response, error)
	delete func(*konnectapi.Client, context.Context, uuid.UUID, string, string, ...konnectapi.RequestEditorFn) (*http.Response, error)
	list   func(*konnectapi.Client, context.Context, uuid.UUID, corePage) (*http.Response, error)
}

func createCredential[E, B, R any](ctx context.Context, c *Client, a credentialAPI[E, B, R], cp, consumerID string, e E) (E, error) {
	op := a.kind.op("create")
	if err := requireIDs(op, "consumer ID", consumerID); err != nil {
		var zero E
		return zero, err
	}
	return writeEntity[E, B, R](ctx, c, op, cp, a.detach(e),
		func(ctx context.Context, cpID uuid.UUID, body B) (*http.Response, error) {
			return a.create(c.api, ctx, cpID, consumerID, body)
		})
}

func upsertCredential[E, B, R any](ctx context.Context, c *Client, a credentialAPI[E, B, R], cp, consumerID, id string, e E) (E, error) {
	op := a.kind.op("upsert")
	if err := requireIDs(op, "consumer ID", consumerID, a.kind.entity+" ID", id); err != nil {
		var zero E
		return zero, err
	}
	return writeEntity[E, B, R](ctx, c, op, cp, a.detach(e),
		func(ctx context.Context, cpID uuid.UUID, body B) (*http.Response, error) {
			return a.upsert(c.api, ctx, cpID, consumerID, id, body)
		})
}

func getCredential[E, B, R any](ctx context.Context, c *Client, a credentialAPI[E, B, R], cp, consumerID, id string) (E, error) {
	op := a.kind.op("get")
	if err := requireIDs(op, "consumer ID", consumerID, a.kind.entity+" ID", id); err != nil {
		var zero E
		return zero, err
	}
	return getEntity[E, R](ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return a.get(c.api, ctx, cpID, consumerID, id)
	})
}

func deleteCredential[E, B, R any](ctx context.Context, c *Client, a credentialAPI[E, B, R], cp, consumerID, id string) error {
	op := a.kind.op("delete")
	if err := requireIDs(op, "consumer ID", consumerID, a.kind.entity+" ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return a.delete(c.api, ctx, cpID, consumerID, id)
	})
}

func listCredentials[E, B, R any](ctx context.Context, c *Client, a credentialAPI[E, B, R], cp string, f ListFilter) ([]E, error) {
	return listEntities[E, R](ctx, c, a.kind, cp, f, func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
		return a.list(c.api, ctx, cpID, p)
	})
}
