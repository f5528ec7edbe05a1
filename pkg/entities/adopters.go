package entities

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// spec.adopt for routes, consumers, consumer groups and plugin bindings
// (services: service.go). Fetch reads the entity named by
// spec.adopt.konnect.id in the resolved control plane; Differences lists
// the fields that match mode compares (api-reference §3.4, §3.17, §3.20,
// §3.13), with Konnect's defaults standing in for unset values.

var (
	_ controller.Adopter[kongConsumer, ConsumerDesired]            = (*ConsumerAdapter)(nil)
	_ controller.Adopter[kongConsumerGroup, konnect.ConsumerGroup] = (*ConsumerGroupAdapter)(nil)
	_ controller.Adopter[kongPluginBinding, konnect.Plugin]        = (*PluginBindingAdapter)(nil)
)

// AdoptOptions implements controller.Adopter.
func (a *ConsumerAdapter) AdoptOptions(consumer kongConsumer) *commonv1alpha1.AdoptOptions {
	return consumer.Spec.Adopt
}

// Fetch implements controller.Adopter: the consumer and the groups it
// belongs to.
func (a *ConsumerAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongConsumer, p controller.Placement, id string) (ConsumerDesired, string, error) {
	consumer, err := c.GetConsumer(ctx, p.ControlPlaneID, id)
	if err != nil {
		return ConsumerDesired{}, "", err
	}
	groups, err := c.ListConsumerGroupsOfConsumer(ctx, p.ControlPlaneID, id)
	if err != nil {
		return ConsumerDesired{}, "", err
	}
	actual := ConsumerDesired{Consumer: consumer}
	for _, g := range groups {
		actual.GroupIDs = append(actual.GroupIDs, g.ID)
	}
	return actual, controller.UIDFromTags(consumer.Tags), nil
}

// Differences implements controller.Adopter.
func (a *ConsumerAdapter) Differences(desired, actual ConsumerDesired) []string {
	var d diff
	d.check("username", desired.Consumer.Username == actual.Consumer.Username)
	d.check("custom_id", desired.Consumer.CustomID == actual.Consumer.CustomID)
	d.check("consumer_groups", sameSet(desired.GroupIDs, actual.GroupIDs))
	return d
}

// AdoptOptions implements controller.Adopter.
func (a *ConsumerGroupAdapter) AdoptOptions(g kongConsumerGroup) *commonv1alpha1.AdoptOptions {
	return g.Spec.Adopt
}

// Fetch implements controller.Adopter.
func (a *ConsumerGroupAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongConsumerGroup, p controller.Placement, id string) (konnect.ConsumerGroup, string, error) {
	g, err := c.GetConsumerGroup(ctx, p.ControlPlaneID, id)
	return g, controller.UIDFromTags(g.Tags), err
}

// Differences implements controller.Adopter.
func (a *ConsumerGroupAdapter) Differences(desired, actual konnect.ConsumerGroup) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	return d
}

// AdoptOptions implements controller.Adopter.
func (a *PluginBindingAdapter) AdoptOptions(pb kongPluginBinding) *commonv1alpha1.AdoptOptions {
	return pb.Spec.Adopt
}

// Fetch implements controller.Adopter.
func (a *PluginBindingAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongPluginBinding, p controller.Placement, id string) (konnect.Plugin, string, error) {
	plugin, err := c.GetPlugin(ctx, p.ControlPlaneID, id)
	return plugin, controller.UIDFromTags(plugin.Tags), err
}

// defaultPluginProtocols is what Konnect gives a plugin without protocols.
var defaultPluginProtocols = []string{"grpc", "grpcs", "http", "https"}

// Differences implements controller.Adopter. The config matches when every
// field the KongPlugin sets has the same value in Konnect: Konnect fills in
// the defaults of the fields left out, so a strict comparison could never
// match.
func (a *PluginBindingAdapter) Differences(desired, actual konnect.Plugin) []string {
	protocols := func(p []string) []string {
		if len(p) == 0 {
			return defaultPluginProtocols
		}
		return p
	}
	enabled := func(p *bool) bool { return p == nil || *p }
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("enabled", enabled(desired.Enabled) == enabled(actual.Enabled))
	d.check("instance_name", desired.InstanceName == actual.InstanceName)
	d.check("protocols", sameSet(protocols(desired.Protocols), protocols(actual.Protocols)))
	d.check("config", configSubset(desired.Config, actual.Config))
	d.check("service", desired.ServiceID == actual.ServiceID)
	d.check("route", desired.RouteID == actual.RouteID)
	d.check("consumer", desired.ConsumerID == actual.ConsumerID)
	d.check("consumer_group", desired.ConsumerGroupID == actual.ConsumerGroupID)
	return d
}

// sameSet reports whether two lists hold the same values, in any order
// (nil and empty are equal).
func sameHeaders(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for name, values := range a {
		other, ok := b[name]
		if !ok || !sameSet(values, other) {
			return false
		}
	}
	return true
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
