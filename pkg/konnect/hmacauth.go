package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// HMACAuth is a consumer's HMAC signature credential.
type HMACAuth struct {
	ID       string   `json:"id,omitempty"`
	Username string   `json:"username"`
	Secret   string   `json:"secret,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// ConsumerID is the consumer the credential belongs to; operations take
	// it as an argument and fill it in on the way back.
	ConsumerID string `json:"-"`
}

type hmacAuthPlain HMACAuth

type hmacAuthJSON struct {
	hmacAuthPlain
	Consumer *ref `json:"consumer,omitempty"`
}

// MarshalJSON writes the Konnect wire form (consumer as a reference).
func (h HMACAuth) MarshalJSON() ([]byte, error) {
	return json.Marshal(hmacAuthJSON{hmacAuthPlain(h), refTo(h.ConsumerID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (h *HMACAuth) UnmarshalJSON(data []byte) error {
	var w hmacAuthJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*h = HMACAuth(w.hmacAuthPlain)
	h.ConsumerID = w.Consumer.id()
	return nil
}

var hmacAuthAPI = credentialAPI[HMACAuth, konnectapi.HMACAuthWithoutParents, konnectapi.HMACAuth]{
	kind: kind[HMACAuth]{
		entity: "hmac_auth",
		tags:   func(h HMACAuth) []string { return h.Tags },
		name:   func(h HMACAuth) string { return h.Username },
	},
	detach: func(h HMACAuth) HMACAuth { h.ID, h.ConsumerID = "", ""; return h },
	create: (*konnectapi.Client).CreateHmacAuthWithConsumer,
	upsert: (*konnectapi.Client).UpsertHmacAuthWithConsumer,
	get:    (*konnectapi.Client).GetHmacAuthWithConsumer,
	delete: (*konnectapi.Client).DeleteHmacAuthWithConsumer,
	list: func(api *konnectapi.Client, ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
		return api.ListHmacAuth(ctx, cpID, &konnectapi.ListHmacAuthParams{Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam()})
	},
}

// CreateHMACAuth creates an HMAC-auth credential of consumer consumerID.
func (c *Client) CreateHMACAuth(ctx context.Context, cp, consumerID string, cred HMACAuth) (HMACAuth, error) {
	return createCredential(ctx, c, hmacAuthAPI, cp, consumerID, cred)
}

// UpsertHMACAuth creates or replaces HMAC-auth credential id of consumer
// consumerID.
func (c *Client) UpsertHMACAuth(ctx context.Context, cp, consumerID, id string, cred HMACAuth) (HMACAuth, error) {
	return upsertCredential(ctx, c, hmacAuthAPI, cp, consumerID, id, cred)
}

// GetHMACAuth returns HMAC-auth credential id of consumer consumerID.
func (c *Client) GetHMACAuth(ctx context.Context, cp, consumerID, id string) (HMACAuth, error) {
	return getCredential(ctx, c, hmacAuthAPI, cp, consumerID, id)
}

// DeleteHMACAuth deletes HMAC-auth credential id of consumer consumerID.
func (c *Client) DeleteHMACAuth(ctx context.Context, cp, consumerID, id string) error {
	return deleteCredential(ctx, c, hmacAuthAPI, cp, consumerID, id)
}

// ListHMACAuths returns every HMAC-auth credential of cp (of any
// consumer) that matches f (f.Name is the username).
func (c *Client) ListHMACAuths(ctx context.Context, cp string, f ListFilter) ([]HMACAuth, error) {
	return listCredentials(ctx, c, hmacAuthAPI, cp, f)
}
