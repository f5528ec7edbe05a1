package konnect

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/konnect-operator/konnect-operator/generated/konnectapi"
)

// Plugin is a plugin instance. It applies globally when no scope ID is set,
// and otherwise to the combination of the service, route, consumer and
// consumer group it names.
type Plugin struct {
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name"`
	InstanceName string          `json:"instance_name,omitempty"`
	Config       map[string]any  `json:"config,omitempty"`
	Enabled      *bool           `json:"enabled,omitempty"`
	Protocols    []string        `json:"protocols,omitempty"`
	Ordering     *PluginOrdering `json:"ordering,omitempty"`
	Tags         []string        `json:"tags,omitempty"`
	// Scope: the IDs of the entities the plugin is bound to ("" = any).
	ServiceID       string `json:"-"`
	RouteID         string `json:"-"`
	ConsumerID      string `json:"-"`
	ConsumerGroupID string `json:"-"`
}

// PluginOrdering runs a plugin before or after others (Enterprise dynamic
// ordering).
type PluginOrdering struct {
	Before *PluginPhases `json:"before,omitempty"`
	After  *PluginPhases `json:"after,omitempty"`
}

// PluginPhases names plugins per phase.
type PluginPhases struct {
	Access []string `json:"access,omitempty"`
}

type pluginPlain Plugin

type pluginJSON struct {
	pluginPlain
	Service       *ref `json:"service,omitempty"`
	Route         *ref `json:"route,omitempty"`
	Consumer      *ref `json:"consumer,omitempty"`
	ConsumerGroup *ref `json:"consumer_group,omitempty"`
}

// MarshalJSON writes the Konnect wire form (scopes as references).
func (p Plugin) MarshalJSON() ([]byte, error) {
	return json.Marshal(pluginJSON{
		pluginPlain:   pluginPlain(p),
		Service:       refTo(p.ServiceID),
		Route:         refTo(p.RouteID),
		Consumer:      refTo(p.ConsumerID),
		ConsumerGroup: refTo(p.ConsumerGroupID),
	})
}

// UnmarshalJSON reads the Konnect wire form.
func (p *Plugin) UnmarshalJSON(data []byte) error {
	var w pluginJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*p = Plugin(w.pluginPlain)
	p.ServiceID = w.Service.id()
	p.RouteID = w.Route.id()
	p.ConsumerID = w.Consumer.id()
	p.ConsumerGroupID = w.ConsumerGroup.id()
	return nil
}

var pluginKind = kind[Plugin]{
	entity: "plugin",
	tags:   func(p Plugin) []string { return p.Tags },
	name:   func(p Plugin) string { return p.Name },
}

// CreatePlugin creates a plugin in control plane cp, scoped by the IDs in p.
func (c *Client) CreatePlugin(ctx context.Context, cp string, p Plugin) (Plugin, error) {
	return writeEntity[Plugin, konnectapi.Plugin, konnectapi.Plugin](ctx, c, pluginKind.op("create"), cp, p,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Plugin) (*http.Response, error) {
			return c.api.CreatePlugin(ctx, cpID, body)
		})
}

// UpsertPlugin creates or replaces the plugin with ID id; its scope is the
// one in p, so an upsert can also move a plugin.
func (c *Client) UpsertPlugin(ctx context.Context, cp, id string, p Plugin) (Plugin, error) {
	op := pluginKind.op("upsert")
	if err := requireIDs(op, "plugin ID", id); err != nil {
		return Plugin{}, err
	}
	p.ID = ""
	return writeEntity[Plugin, konnectapi.Plugin, konnectapi.Plugin](ctx, c, op, cp, p,
		func(ctx context.Context, cpID uuid.UUID, body konnectapi.Plugin) (*http.Response, error) {
			return c.api.UpsertPlugin(ctx, cpID, id, body)
		})
}

// GetPlugin returns the plugin with ID id.
func (c *Client) GetPlugin(ctx context.Context, cp, id string) (Plugin, error) {
	op := pluginKind.op("get")
	if err := requireIDs(op, "plugin ID", id); err != nil {
		return Plugin{}, err
	}
	return getEntity[Plugin, konnectapi.Plugin](ctx, c, op, cp,
		func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
			return c.api.GetPlugin(ctx, cpID, id, nil)
		})
}

// DeletePlugin deletes the plugin with ID id.
func (c *Client) DeletePlugin(ctx context.Context, cp, id string) error {
	op := pluginKind.op("delete")
	if err := requireIDs(op, "plugin ID", id); err != nil {
		return err
	}
	return callWithoutAnswer(ctx, c, op, cp, func(ctx context.Context, cpID uuid.UUID) (*http.Response, error) {
		return c.api.DeletePlugin(ctx, cpID, id)
	})
}

// ListPlugins returns every plugin of cp that matches f (f.Name is the
// plugin's name, such as "rate-limiting").
func (c *Client) ListPlugins(ctx context.Context, cp string, f ListFilter) ([]Plugin, error) {
	return listEntities[Plugin, konnectapi.Plugin](ctx, c, pluginKind, cp, f,
		func(ctx context.Context, cpID uuid.UUID, p corePage) (*http.Response, error) {
			return c.api.ListPlugin(ctx, cpID, &konnectapi.ListPluginParams{
				Size: &p.size, Offset: p.offsetParam(), Tags: p.tagsParam(), FilterNameEq: p.nameParam(),
			})
		})
}
