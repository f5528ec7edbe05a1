package entities

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// body is the plugin a binding asks for, with its plugin's configuration
// as read a moment ago (Secrets included). The tags are the binding's own
// identity tags (cluster's k8s-cluster tag among them), then the user's:
// the binding's spec.tags, the plugin's tags, and the konghq.com/tags
// annotations of the plugin and of the binding.
func (src PluginBindingSources) body(refs *Refs, pb kongPluginBinding, cluster string) (components.Plugin, error) {
	// The references were resolved a moment ago; this reads them again from
	// the caches only, so there is nothing to bound.
	b := newResolver(context.Background(), controller.ForSync)
	tmpl := src.plugin(b, refs, pb)
	ids, ok := src.targets(b, pb)
	if tmpl == nil || !ok {
		return components.Plugin{}, fmt.Errorf("references changed while reconciling: %s", falseMessages(b.res.Conditions))
	}
	enabled := !tmpl.disabled
	body := components.Plugin{
		Name:         tmpl.name,
		InstanceName: optional(tmpl.instanceName),
		Config:       tmpl.config,
		Enabled:      &enabled,
		Tags:         controller.Tags(pb, pluginBindingGVK, cluster, slices.Concat(pb.Spec.Tags, tmpl.tags), tmpl.object, pb),
	}
	for _, p := range tmpl.protocols {
		body.Protocols = append(body.Protocols, components.Protocols(p))
	}
	if ids.service != "" {
		body.Service = &components.PluginService{ID: &ids.service}
	}
	if ids.route != "" {
		body.Route = &components.PluginRoute{ID: &ids.route}
	}
	if ids.consumer != "" {
		body.Consumer = &components.PluginConsumer{ID: &ids.consumer}
	}
	if ids.consumerGroup != "" {
		body.ConsumerGroup = &components.PluginConsumerGroup{ID: &ids.consumerGroup}
	}
	return body, nil
}

// defaultPluginProtocols is what Konnect gives a plugin without protocols.
var defaultPluginProtocols = []string{"grpc", "grpcs", "http", "https"}

// pluginMatches compares what a binding decides, with Konnect's defaults
// for unset values. The config matches when every field the KongPlugin
// sets has the same value in Konnect: Konnect fills in the defaults of the
// fields left out, so a strict comparison could never match.
func pluginMatches(desired components.Plugin, actual *components.Plugin) []string {
	protocols := func(p []components.Protocols) []string {
		if len(p) == 0 {
			return defaultPluginProtocols
		}
		out := make([]string, 0, len(p))
		for _, protocol := range p {
			out = append(out, string(protocol))
		}
		return out
	}
	enabled := func(p *bool) bool { return p == nil || *p }
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("enabled", enabled(desired.Enabled) == enabled(actual.Enabled))
	d.check("instance_name", deref(desired.InstanceName) == deref(actual.InstanceName))
	d.check("protocols", sameSet(protocols(desired.Protocols), protocols(actual.Protocols)))
	d.check("config", configSubset(desired.Config, actual.Config))
	d.check("service", deref(desired.GetService().GetID()) == deref(actual.GetService().GetID()))
	d.check("route", deref(desired.GetRoute().GetID()) == deref(actual.GetRoute().GetID()))
	d.check("consumer", deref(desired.GetConsumer().GetID()) == deref(actual.GetConsumer().GetID()))
	d.check("consumer_group", deref(desired.GetConsumerGroup().GetID()) == deref(actual.GetConsumerGroup().GetID()))
	return d
}

// configSubset reports whether every field of want has the same value in
// got, comparing nested objects the same way and everything else as JSON.
func configSubset(want, got map[string]any) bool {
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		if !ok {
			if want[k] == nil {
				continue
			}
			return false
		}
		wm, wIsMap := want[k].(map[string]any)
		gm, gIsMap := g.(map[string]any)
		if wIsMap && gIsMap {
			if !configSubset(wm, gm) {
				return false
			}
			continue
		}
		if !jsonEqual(want[k], g) {
			return false
		}
	}
	return true
}

// jsonEqual compares two values as JSON, so that numbers decoded from the
// spec and from Konnect compare equal whatever their Go type.
func jsonEqual(a, b any) bool {
	var na, nb any
	ra, errA := json.Marshal(a)
	rb, errB := json.Marshal(b)
	if errA != nil || errB != nil || json.Unmarshal(ra, &na) != nil || json.Unmarshal(rb, &nb) != nil {
		return false
	}
	return reflect.DeepEqual(na, nb)
}

var pluginCalls = coreCalls[components.Plugin, components.Plugin]{
	entity: "plugin",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.Plugin) (*components.Plugin, error) {
		res, err := api.Plugins.CreatePlugin(ctx, p.ControlPlaneID, body)
		return res.GetPlugin(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.Plugin) (*components.Plugin, error) {
		res, err := api.Plugins.UpsertPlugin(ctx, operations.UpsertPluginRequest{ControlPlaneID: p.ControlPlaneID, PluginID: id, Plugin: body})
		return res.GetPlugin(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Plugin, error) {
		res, err := api.Plugins.GetPlugin(ctx, operations.GetPluginRequest{ControlPlaneID: p.ControlPlaneID, PluginID: id})
		return res.GetPlugin(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.Plugins.DeletePlugin(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Plugin, *string, error) {
		res, err := api.Plugins.ListPlugin(ctx, operations.ListPluginRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.Plugin).GetID,
	tags: (*components.Plugin).GetTags,
}
