package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// JWT is a consumer's JSON Web Token credential.
type JWT struct {
	ID           string   `json:"id,omitempty"`
	Key          string   `json:"key,omitempty"`
	Algorithm    string   `json:"algorithm,omitempty"`
	Secret       string   `json:"secret,omitempty"`
	RSAPublicKey string   `json:"rsa_public_key,omitempty"`
	Tags         []string `json:"tags,omitempty"`
	// ConsumerID is the consumer the credential belongs to; operations take
	// it as an argument and fill it in on the way back.
	ConsumerID string `json:"-"`
}

type jwtPlain JWT

type jwtJSON struct {
	jwtPlain
	Consumer *ref `json:"consumer,omitempty"`
}

// MarshalJSON writes the Konnect wire form (consumer as a reference).
func (j JWT) MarshalJSON() ([]byte, error) {
	return json.Marshal(jwtJSON{jwtPlain(j), refTo(j.ConsumerID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (j *JWT) UnmarshalJSON(data []byte) error {
	var w jwtJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*j = JWT(w.jwtPlain)
	j.ConsumerID = w.Consumer.id()
	return nil
}

var jwtAPI = credentialAPI[JWT, konnectapi.JWTWithoutParents, konnectapi.JWT]{
	kind: kind[JWT]{
		entity: "jwt",
		tags:   func(j JWT) []string { return j.Tags },
		name:   func(j JWT) string { return j.Key },
	},
	detach: func(j JWT) JWT { j.ID, j.ConsumerID = "", ""; return j },
	create: (*konnectapi.Client).CreateJwtWithConsumer,
	upsert: (*konnectapi.Client).UpsertJwtWithConsumer,
	get:    (*konnectapi.Client).GetJwtWithConsumer,
	delete: (*konnectapi.Client).DeleteJwtWithConsumer,
	list: func(api *konnectapi.Client, ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
		return api.ListJwt(ctx, cpID, &konnectapi.ListJwtParams{Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam()})
	},
}

// CreateJWT creates a JWT credential of consumer consumerID.
func (c *Client) CreateJWT(ctx context.Context, cp, consumerID string, cred JWT) (JWT, error) {
	return createCredential(ctx, c, jwtAPI, cp, consumerID, cred)
}

// UpsertJWT creates or replaces JWT credential id of consumer
// consumerID.
func (c *Client) UpsertJWT(ctx context.Context, cp, consumerID, id string, cred JWT) (JWT, error) {
	return upsertCredential(ctx, c, jwtAPI, cp, consumerID, id, cred)
}

// GetJWT returns JWT credential id of consumer consumerID.
func (c *Client) GetJWT(ctx context.Context, cp, consumerID, id string) (JWT, error) {
	return getCredential(ctx, c, jwtAPI, cp, consumerID, id)
}

// DeleteJWT deletes JWT credential id of consumer consumerID.
func (c *Client) DeleteJWT(ctx context.Context, cp, consumerID, id string) error {
	return deleteCredential(ctx, c, jwtAPI, cp, consumerID, id)
}

// ListJWTs returns every JWT credential of cp (of any
// consumer) that matches f (f.Name is the key, the token's iss claim).
func (c *Client) ListJWTs(ctx context.Context, cp string, f ListFilter) ([]JWT, error) {
	return listCredentials(ctx, c, jwtAPI, cp, f)
}
