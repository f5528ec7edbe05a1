package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// Key is a JWK or PEM key, optionally a member of a key set.
type Key struct {
	ID   string   `json:"id,omitempty"`
	KID  string   `json:"kid"`
	Name string   `json:"name,omitempty"`
	JWK  string   `json:"jwk,omitempty"`
	PEM  *KeyPEM  `json:"pem,omitempty"`
	Tags []string `json:"tags,omitempty"`
	// KeySetID is the key set the key belongs to; "" for none.
	KeySetID string `json:"-"`
}

// KeyPEM is a key pair in PEM form.
type KeyPEM struct {
	PrivateKey string `json:"private_key,omitempty"`
	PublicKey  string `json:"public_key,omitempty"`
}

type keyPlain Key

type keyJSON struct {
	keyPlain
	Set *ref `json:"set,omitempty"`
}

// MarshalJSON writes the Konnect wire form (set as a reference).
func (k Key) MarshalJSON() ([]byte, error) {
	return json.Marshal(keyJSON{keyPlain(k), refTo(k.KeySetID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (k *Key) UnmarshalJSON(data []byte) error {
	var w keyJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*k = Key(w.keyPlain)
	k.KeySetID = w.Set.id()
	return nil
}

var keyKind = kind[Key]{
	entity: "key",
	tags:   func(k Key) []string { return k.Tags },
	name:   func(k Key) string { return k.Name },
}

// CreateKey creates a key in control plane cp (in the key set named by
// k.KeySetID, if any).
func (c *Client) CreateKey(ctx context.Context, cp string, k Key) (Key, error) {
	return writeEntity[Key, konnectapi.Key, konnectapi.Key](ctx, c, keyKind.op("create"), cp, k,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Key) (*http.Response, error) {
			return c.api.CreateKey(ctx, cpID, body)
		})
}

// UpsertKey creates or replaces the key with ID id.
func (c *Client) UpsertKey(ctx context.Context, cp, id string, k Key) (Key, error) {
	op := keyKind.op("upsert")
	if err := requireIDs(op, "key ID", id); err != nil {
		return Key{}, err
	}
	k.ID = ""
	return writeEntity[Key, konnectapi.Key, konnectapi.Key](ctx, c, op, cp, k,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Key) (*http.Response, error) {
			return c.api.UpsertKey(ctx, cpID, id, body)
		})
}

// GetKey returns the key with ID id.
func (c *Client) GetKey(ctx context.Context, cp, id string) (Key, error) {
	op := keyKind.op("get")
	if err := requireIDs(op, "key ID", id); err != nil {
		return Key{}, err
	}
	return getEntity[Key, konnectapi.Key](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetKey(ctx, cpID, id)
		})
}

// DeleteKey deletes the key with ID id.
func (c *Client) DeleteKey(ctx context.Context, cp, id string) error {
	op := keyKind.op("delete")
	if err := requireIDs(op, "key ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteKey(ctx, cpID, id)
	})
}

// ListKeys returns every key of cp that matches f.
func (c *Client) ListKeys(ctx context.Context, cp string, f ListFilter) ([]Key, error) {
	return listEntities[Key, konnectapi.Key](ctx, c, keyKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListKey(ctx, cpID, &konnectapi.ListKeyParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(),
			})
		})
}

// KeySet is a named set of keys.
type KeySet struct {
	ID   string   `json:"id,omitempty"`
	Name string   `json:"name,omitempty"`
	Tags []string `json:"tags,omitempty"`
}

var keySetKind = kind[KeySet]{
	entity: "key_set",
	tags:   func(s KeySet) []string { return s.Tags },
	name:   func(s KeySet) string { return s.Name },
}

// CreateKeySet creates a key set in control plane cp.
func (c *Client) CreateKeySet(ctx context.Context, cp string, s KeySet) (KeySet, error) {
	return writeEntity[KeySet, konnectapi.KeySet, konnectapi.KeySet](ctx, c, keySetKind.op("create"), cp, s,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.KeySet) (*http.Response, error) {
			return c.api.CreateKeySet(ctx, cpID, body)
		})
}

// UpsertKeySet creates or replaces the key set with ID id.
func (c *Client) UpsertKeySet(ctx context.Context, cp, id string, s KeySet) (KeySet, error) {
	op := keySetKind.op("upsert")
	if err := requireIDs(op, "key set ID", id); err != nil {
		return KeySet{}, err
	}
	s.ID = ""
	return writeEntity[KeySet, konnectapi.KeySet, konnectapi.KeySet](ctx, c, op, cp, s,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.KeySet) (*http.Response, error) {
			return c.api.UpsertKeySet(ctx, cpID, id, body)
		})
}

// GetKeySet returns the key set with ID (or name) id.
func (c *Client) GetKeySet(ctx context.Context, cp, id string) (KeySet, error) {
	op := keySetKind.op("get")
	if err := requireIDs(op, "key set ID", id); err != nil {
		return KeySet{}, err
	}
	return getEntity[KeySet, konnectapi.KeySet](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetKeySet(ctx, cpID, id)
		})
}

// DeleteKeySet deletes the key set with ID id.
func (c *Client) DeleteKeySet(ctx context.Context, cp, id string) error {
	op := keySetKind.op("delete")
	if err := requireIDs(op, "key set ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteKeySet(ctx, cpID, id)
	})
}

// ListKeySets returns every key set of cp that matches f.
func (c *Client) ListKeySets(ctx context.Context, cp string, f ListFilter) ([]KeySet, error) {
	return listEntities[KeySet, konnectapi.KeySet](ctx, c, keySetKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListKeySet(ctx, cpID, &konnectapi.ListKeySetParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(),
			})
		})
}
