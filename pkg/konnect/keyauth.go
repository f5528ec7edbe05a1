package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// KeyAuth is a consumer's API key.
type KeyAuth struct {
	ID   string   `json:"id,omitempty"`
	Key  string   `json:"key,omitempty"`
	TTL  *int     `json:"ttl,omitempty"`
	Tags []string `json:"tags,omitempty"`
	// ConsumerID is the consumer the credential belongs to; operations take
	// it as an argument and fill it in on the way back.
	ConsumerID string `json:"-"`
}

type keyAuthPlain KeyAuth

type keyAuthJSON struct {
	keyAuthPlain
	Consumer *ref `json:"consumer,omitempty"`
}

// MarshalJSON writes the Konnect wire form (consumer as a reference).
func (k KeyAuth) MarshalJSON() ([]byte, error) {
	return json.Marshal(keyAuthJSON{keyAuthPlain(k), refTo(k.ConsumerID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (k *KeyAuth) UnmarshalJSON(data []byte) error {
	var w keyAuthJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*k = KeyAuth(w.keyAuthPlain)
	k.ConsumerID = w.Consumer.id()
	return nil
}

var keyAuthAPI = credentialAPI[KeyAuth, konnectapi.KeyAuthWithoutParents, konnectapi.KeyAuth]{
	kind: kind[KeyAuth]{
		entity: "key_auth",
		tags:   func(k KeyAuth) []string { return k.Tags },
	},
	detach: func(k KeyAuth) KeyAuth { k.ID, k.ConsumerID = "", ""; return k },
	create: (*konnectapi.Client).CreateKeyAuthWithConsumer,
	upsert: (*konnectapi.Client).UpsertKeyAuthWithConsumer,
	get:    (*konnectapi.Client).GetKeyAuthWithConsumer,
	delete: (*konnectapi.Client).DeleteKeyAuthWithConsumer,
	list: func(api *konnectapi.Client, ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
		return api.ListKeyAuth(ctx, cpID, &konnectapi.ListKeyAuthParams{Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam()})
	},
}

// CreateKeyAuth creates a key-auth credential of consumer consumerID.
func (c *Client) CreateKeyAuth(ctx context.Context, cp, consumerID string, cred KeyAuth) (KeyAuth, error) {
	return createCredential(ctx, c, keyAuthAPI, cp, consumerID, cred)
}

// UpsertKeyAuth creates or replaces key-auth credential id of consumer
// consumerID.
func (c *Client) UpsertKeyAuth(ctx context.Context, cp, consumerID, id string, cred KeyAuth) (KeyAuth, error) {
	return upsertCredential(ctx, c, keyAuthAPI, cp, consumerID, id, cred)
}

// GetKeyAuth returns key-auth credential id of consumer consumerID.
func (c *Client) GetKeyAuth(ctx context.Context, cp, consumerID, id string) (KeyAuth, error) {
	return getCredential(ctx, c, keyAuthAPI, cp, consumerID, id)
}

// DeleteKeyAuth deletes key-auth credential id of consumer consumerID.
func (c *Client) DeleteKeyAuth(ctx context.Context, cp, consumerID, id string) error {
	return deleteCredential(ctx, c, keyAuthAPI, cp, consumerID, id)
}

// ListKeyAuths returns every key-auth credential of cp (of any
// consumer) that matches f (key-auth credentials have no name).
func (c *Client) ListKeyAuths(ctx context.Context, cp string, f ListFilter) ([]KeyAuth, error) {
	return listCredentials(ctx, c, keyAuthAPI, cp, f)
}
