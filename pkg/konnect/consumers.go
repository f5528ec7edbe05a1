package konnect

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// Consumer is an API consumer; it needs a username, a custom ID or both.
type Consumer struct {
	ID       string   `json:"id,omitempty"`
	Username string   `json:"username,omitempty"`
	CustomID string   `json:"custom_id,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

var consumerKind = kind[Consumer]{
	entity: "consumer",
	tags:   func(c Consumer) []string { return c.Tags },
	name:   func(c Consumer) string { return c.Username },
}

// CreateConsumer creates a consumer in control plane cp.
func (c *Client) CreateConsumer(ctx context.Context, cp string, consumer Consumer) (Consumer, error) {
	return writeEntity[Consumer, konnectapi.Consumer, konnectapi.Consumer](ctx, c, consumerKind.op("create"), cp, consumer,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Consumer) (*http.Response, error) {
			return c.api.CreateConsumer(ctx, cpID, body)
		})
}

// UpsertConsumer creates or replaces the consumer with ID id.
func (c *Client) UpsertConsumer(ctx context.Context, cp, id string, consumer Consumer) (Consumer, error) {
	op := consumerKind.op("upsert")
	if err := requireIDs(op, "consumer ID", id); err != nil {
		return Consumer{}, err
	}
	consumer.ID = ""
	return writeEntity[Consumer, konnectapi.Consumer, konnectapi.Consumer](ctx, c, op, cp, consumer,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Consumer) (*http.Response, error) {
			return c.api.UpsertConsumer(ctx, cpID, id, body)
		})
}

// GetConsumer returns the consumer with ID (or username) id.
func (c *Client) GetConsumer(ctx context.Context, cp, id string) (Consumer, error) {
	op := consumerKind.op("get")
	if err := requireIDs(op, "consumer ID", id); err != nil {
		return Consumer{}, err
	}
	return getEntity[Consumer, konnectapi.Consumer](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetConsumer(ctx, cpID, id)
		})
}

// DeleteConsumer deletes the consumer with ID id.
func (c *Client) DeleteConsumer(ctx context.Context, cp, id string) error {
	op := consumerKind.op("delete")
	if err := requireIDs(op, "consumer ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeleteConsumer(ctx, cpID, id)
	})
}

// ListConsumers returns every consumer of cp that matches f (f.Name is the
// username).
func (c *Client) ListConsumers(ctx context.Context, cp string, f ListFilter) ([]Consumer, error) {
	return listEntities[Consumer, konnectapi.Consumer](ctx, c, consumerKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListConsumer(ctx, cpID, &konnectapi.ListConsumerParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(), FilterNameEq: p.nameParam(),
			})
		})
}

// AddConsumerToGroup makes consumer consumerID a member of consumer group
// groupID.
func (c *Client) AddConsumerToGroup(ctx context.Context, cp, groupID, consumerID string) error {
	op := operation{verb: "add", entity: "consumer_group_member", core: true}
	if err := requireIDs(op, "consumer group ID", groupID, "consumer ID", consumerID); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.AddConsumerToGroup(ctx, cpID, groupID, konnectapi.AddConsumerToGroupJSONRequestBody{Consumer: &consumerID})
	})
}

// RemoveConsumerFromGroup ends consumer consumerID's membership of consumer
// group groupID.
func (c *Client) RemoveConsumerFromGroup(ctx context.Context, cp, groupID, consumerID string) error {
	op := operation{verb: "remove", entity: "consumer_group_member", core: true}
	if err := requireIDs(op, "consumer group ID", groupID, "consumer ID", consumerID); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.RemoveConsumerFromGroup(ctx, cpID, groupID, consumerID)
	})
}

// ListConsumerGroupsOfConsumer returns every consumer group consumer
// consumerID belongs to.
func (c *Client) ListConsumerGroupsOfConsumer(ctx context.Context, cp, consumerID string) ([]ConsumerGroup, error) {
	k := consumerGroupKind
	k.entity = "consumer_group_of_consumer"
	if err := requireIDs(k.op("list"), "consumer ID", consumerID); err != nil {
		return nil, err
	}
	return listEntities[ConsumerGroup, konnectapi.ConsumerGroup](ctx, c, k, cp, ListFilter{},
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListConsumerGroupsForConsumer(ctx, cpID, consumerID, &konnectapi.ListConsumerGroupsForConsumerParams{
				Size: &p.size, Offset: p.offsetParam(),
			})
		})
}
