package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// BasicAuth is a consumer's username and password.
type BasicAuth struct {
	ID       string   `json:"id,omitempty"`
	Username string   `json:"username"`
	Password string   `json:"password"`
	Tags     []string `json:"tags,omitempty"`
	// ConsumerID is the consumer the credential belongs to; operations take
	// it as an argument and fill it in on the way back.
	ConsumerID string `json:"-"`
}

type basicAuthPlain BasicAuth

type basicAuthJSON struct {
	basicAuthPlain
	Consumer *ref `json:"consumer,omitempty"`
}

// MarshalJSON writes the Konnect wire form (consumer as a reference).
func (b BasicAuth) MarshalJSON() ([]byte, error) {
	return json.Marshal(basicAuthJSON{basicAuthPlain(b), refTo(b.ConsumerID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (b *BasicAuth) UnmarshalJSON(data []byte) error {
	var w basicAuthJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*b = BasicAuth(w.basicAuthPlain)
	b.ConsumerID = w.Consumer.id()
	return nil
}

var basicAuthAPI = credentialAPI[BasicAuth, konnectapi.BasicAuthWithoutParents, konnectapi.BasicAuth]{
	kind: kind[BasicAuth]{
		entity: "basic_auth",
		tags:   func(b BasicAuth) []string { return b.Tags },
		name:   func(b BasicAuth) string { return b.Username },
	},
	detach: func(b BasicAuth) BasicAuth { b.ID, b.ConsumerID = "", ""; return b },
	create: (*konnectapi.Client).CreateBasicAuthWithConsumer,
	upsert: (*konnectapi.Client).UpsertBasicAuthWithConsumer,
	get:    (*konnectapi.Client).GetBasicAuthWithConsumer,
	delete: (*konnectapi.Client).DeleteBasicAuthWithConsumer,
	list: func(api *konnectapi.Client, ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
		return api.ListBasicAuth(ctx, cpID, &konnectapi.ListBasicAuthParams{Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam()})
	},
}

// CreateBasicAuth creates a basic-auth credential of consumer consumerID.
func (c *Client) CreateBasicAuth(ctx context.Context, cp, consumerID string, b BasicAuth) (BasicAuth, error) {
	return createCredential(ctx, c, basicAuthAPI, cp, consumerID, b)
}

// UpsertBasicAuth creates or replaces basic-auth credential id of consumer
// consumerID.
func (c *Client) UpsertBasicAuth(ctx context.Context, cp, consumerID, id string, b BasicAuth) (BasicAuth, error) {
	return upsertCredential(ctx, c, basicAuthAPI, cp, consumerID, id, b)
}

// GetBasicAuth returns basic-auth credential id of consumer consumerID.
func (c *Client) GetBasicAuth(ctx context.Context, cp, consumerID, id string) (BasicAuth, error) {
	return getCredential(ctx, c, basicAuthAPI, cp, consumerID, id)
}

// DeleteBasicAuth deletes basic-auth credential id of consumer consumerID.
func (c *Client) DeleteBasicAuth(ctx context.Context, cp, consumerID, id string) error {
	return deleteCredential(ctx, c, basicAuthAPI, cp, consumerID, id)
}

// ListBasicAuths returns every basic-auth credential of cp (of any
// consumer) that matches f (f.Name is the username).
func (c *Client) ListBasicAuths(ctx context.Context, cp string, f ListFilter) ([]BasicAuth, error) {
	return listCredentials(ctx, c, basicAuthAPI, cp, f)
}
