package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// Target is one address ("host:port") an upstream balances over.
type Target struct {
	ID       string   `json:"id,omitempty"`
	Target   string   `json:"target"`
	Weight   *int     `json:"weight,omitempty"`
	Failover *bool    `json:"failover,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// UpstreamID is the upstream the target belongs to; operations take it
	// as an argument and fill it in on the way back.
	UpstreamID string `json:"-"`
}

type targetPlain Target

type targetJSON struct {
	targetPlain
	Upstream *ref `json:"upstream,omitempty"`
}

// MarshalJSON writes the Konnect wire form (upstream as a reference).
func (t Target) MarshalJSON() ([]byte, error) {
	return json.Marshal(targetJSON{targetPlain(t), refTo(t.UpstreamID)})
}

// UnmarshalJSON reads the Konnect wire form.
func (t *Target) UnmarshalJSON(data []byte) error {
	var w targetJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Target(w.targetPlain)
	t.UpstreamID = w.Upstream.id()
	return nil
}

var targetKind = kind[Target]{
	entity: "target",
	tags:   func(t Target) []string { return t.Tags },
	name:   func(t Target) string { return t.Target },
}

// CreateTarget creates a target of upstream upstreamID.
func (c *Client) CreateTarget(ctx context.Context, cp, upstreamID string, t Target) (Target, error) {
	op := targetKind.op("create")
	if err := requireIDs(op, "upstream ID", upstreamID); err != nil {
		return Target{}, err
	}
	t.UpstreamID = ""
	return writeEntity[Target, konnectapi.TargetWithoutParents, konnectapi.Target](ctx, c, op, cp, t,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.TargetWithoutParents) (*http.Response, error) {
			return c.api.CreateTargetWithUpstream(ctx, cpID, upstreamID, body)
		})
}

// UpsertTarget creates or replaces the target with ID id of upstream
// upstreamID.
func (c *Client) UpsertTarget(ctx context.Context, cp, upstreamID, id string, t Target) (Target, error) {
	op := targetKind.op("upsert")
	if err := requireIDs(op, "upstream ID", upstreamID, "target ID", id); err != nil {
		return Target{}, err
	}
	t.ID, t.UpstreamID = "", ""
	return writeEntity[Target, konnectapi.TargetWithoutParents, konnectapi.Target](ctx, c, op, cp, t,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.TargetWithoutParents) (*http.Response, error) {
			return c.api.UpsertTargetWithUpstream(ctx, cpID, upstreamID, id, body)
		})
}

// GetTarget returns the target with ID id of upstream upstreamID.
func (c *Client) GetTarget(ctx context.Context, cp, upstreamID, id string) (Target, error) {
	op := targetKind.op("get")
	if err := requireIDs(op, "upstream ID", upstreamID, "target ID", id); err != nil {
		return Target{}, err
	}
	return getEntity[Target, konnectapi.Target](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetTargetWithUpstream(ctx, cpID, upstreamID, id)
		})
}

// DeleteTarget deletes the target with ID id of upstream upstreamID.
func (c *Client) DeleteTarget(ctx context.Context, cp, upstreamID, id string) error {
	op := targetKind.op("delete")
	if err := requireIDs(op, "upstream ID", upstreamID, "target ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteTargetWithUpstream(ctx, cpID, upstreamID, id)
	})
}

// ListTargets returns every target of cp (of any upstream) that matches f
// (f.Name is the target address).
func (c *Client) ListTargets(ctx context.Context, cp string, f ListFilter) ([]Target, error) {
	return listEntities[Target, konnectapi.Target](ctx, c, targetKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListTargets(ctx, cpID, &konnectapi.ListTargetsParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(),
			})
		})
}
