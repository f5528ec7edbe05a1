package konnect

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// ConsumerGroup is a named group of consumers that plugins can target.
type ConsumerGroup struct {
	ID   string   `json:"id,omitempty"`
	Name string   `json:"name"`
	Tags []string `json:"tags,omitempty"`
}

type consumerGroupWrapper struct {
	ConsumerGroup *ConsumerGroup `json:"consumer_group"`
}

var consumerGroupKind = kind[ConsumerGroup]{
	entity: "consumer_group",
	tags:   func(g ConsumerGroup) []string { return g.Tags },
	name:   func(g ConsumerGroup) string { return g.Name },
}

// CreateConsumerGroup creates a consumer group in control plane cp.
func (c *Client) CreateConsumerGroup(ctx context.Context, cp string, g ConsumerGroup) (ConsumerGroup, error) {
	return writeEntity[ConsumerGroup, konnectapi.ConsumerGroup, konnectapi.ConsumerGroup](ctx, c, consumerGroupKind.op("create"), cp, g,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.ConsumerGroup) (*http.Response, error) {
			return c.api.CreateConsumerGroup(ctx, cpID, body)
		})
}

// UpsertConsumerGroup creates or replaces the consumer group with ID id.
func (c *Client) UpsertConsumerGroup(ctx context.Context, cp, id string, g ConsumerGroup) (ConsumerGroup, error) {
	op := consumerGroupKind.op("upsert")
	if err := requireIDs(op, "consumer group ID", id); err != nil {
		return ConsumerGroup{}, err
	}
	g.ID = ""
	return writeEntity[ConsumerGroup, konnectapi.ConsumerGroup, konnectapi.ConsumerGroup](ctx, c, op, cp, g,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.ConsumerGroup) (*http.Response, error) {
			return c.api.UpsertConsumerGroup(ctx, cpID, id, body)
		})
}

// GetConsumerGroup returns the consumer group with ID (or name) id.
func (c *Client) GetConsumerGroup(ctx context.Context, cp, id string) (ConsumerGroup, error) {
	op := consumerGroupKind.op("get")
	if err := requireIDs(op, "consumer group ID", id); err != nil {
		return ConsumerGroup{}, err
	}
	// This one answer wraps the group: {"consumer_group": {…}}.
	wrapped, err := getEntity[consumerGroupWrapper, konnectapi.ConsumerGroupInsideWrapper](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetConsumerGroup(ctx, cpID, id, nil)
		})
	if err != nil {
		return ConsumerGroup{}, err
	}
	if wrapped.ConsumerGroup == nil {
		return ConsumerGroup{}, fmt.Errorf("%s: answer has no consumer_group", op)
	}
	return *wrapped.ConsumerGroup, nil
}

// DeleteConsumerGroup deletes the consumer group with ID id.
func (c *Client) DeleteConsumerGroup(ctx context.Context, cp, id string) error {
	op := consumerGroupKind.op("delete")
	if err := requireIDs(op, "consumer group ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteConsumerGroup(ctx, cpID, id)
	})
}

// ListConsumerGroups returns every consumer group of cp that matches f.
func (c *Client) ListConsumerGroups(ctx context.Context, cp string, f ListFilter) ([]ConsumerGroup, error) {
	return listEntities[ConsumerGroup, konnectapi.ConsumerGroup](ctx, c, consumerGroupKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListConsumerGroup(ctx, cpID, &konnectapi.ListConsumerGroupParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(),
			})
		})
}
