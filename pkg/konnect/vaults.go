package konnect

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// Vault is a secret store that configuration references by its prefix
// ({vault://<prefix>/…}).
type Vault struct {
	ID          string         `json:"id,omitempty"`
	Name        string         `json:"name"`
	Prefix      string         `json:"prefix"`
	Description string         `json:"description,omitempty"`
	Config      map[string]any `json:"config,omitempty"`
	Tags        []string       `json:"tags,omitempty"`
}

var vaultKind = kind[Vault]{
	entity: "vault",
	tags:   func(v Vault) []string { return v.Tags },
	name:   func(v Vault) string { return v.Name },
}

// CreateVault creates a vault in control plane cp.
func (c *Client) CreateVault(ctx context.Context, cp string, v Vault) (Vault, error) {
	return writeEntity[Vault, konnectapi.Vault, konnectapi.Vault](ctx, c, vaultKind.op("create"), cp, v,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Vault) (*http.Response, error) {
			return c.api.CreateVault(ctx, cpID, body)
		})
}

// UpsertVault creates or replaces the vault with ID id.
func (c *Client) UpsertVault(ctx context.Context, cp, id string, v Vault) (Vault, error) {
	op := vaultKind.op("upsert")
	if err := requireIDs(op, "vault ID", id); err != nil {
		return Vault{}, err
	}
	v.ID = ""
	return writeEntity[Vault, konnectapi.Vault, konnectapi.Vault](ctx, c, op, cp, v,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Vault) (*http.Response, error) {
			return c.api.UpsertVault(ctx, cpID, id, body)
		})
}

// GetVault returns the vault with ID (or prefix) id.
func (c *Client) GetVault(ctx context.Context, cp, id string) (Vault, error) {
	op := vaultKind.op("get")
	if err := requireIDs(op, "vault ID", id); err != nil {
		return Vault{}, err
	}
	return getEntity[Vault, konnectapi.Vault](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetVault(ctx, cpID, id)
		})
}

// DeleteVault deletes the vault with ID id.
func (c *Client) DeleteVault(ctx context.Context, cp, id string) error {
	op := vaultKind.op("delete")
	if err := requireIDs(op, "vault ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteVault(ctx, cpID, id)
	})
}

// ListVaults returns every vault of cp that matches f.
func (c *Client) ListVaults(ctx context.Context, cp string, f ListFilter) ([]Vault, error) {
	return listEntities[Vault, konnectapi.Vault](ctx, c, vaultKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListVault(ctx, cpID, &konnectapi.ListVaultParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(),
			})
		})
}
