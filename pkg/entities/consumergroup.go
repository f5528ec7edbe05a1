package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	configurationv1beta1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1beta1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongConsumerGroup = *configurationv1beta1.KongConsumerGroup

var consumerGroupGVK = gvk(configurationv1beta1.GroupVersion, "KongConsumerGroup")

// ConsumerGroupKind describes KongConsumerGroups: Konnect consumer groups of
// a control plane. Memberships are driven from the KongConsumer side;
// Konnect drops a group's memberships with it.
func ConsumerGroupKind(refs *Refs) controller.Kind[kongConsumerGroup, components.ConsumerGroup] {
	return core[kongConsumerGroup, components.ConsumerGroup, components.ConsumerGroup]{
		gvk:    consumerGroupGVK,
		placed: underControlPlane(refs, consumerGroupGVK, func(g kongConsumerGroup) *cpRef { return g.Spec.ControlPlaneRef }),
		calls:  consumerGroupCalls,
		desired: func(g kongConsumerGroup, p controller.Placement) (components.ConsumerGroup, error) {
			return components.ConsumerGroup{Name: g.Spec.Name, Tags: controller.Tags(g, consumerGroupGVK, p.Cluster, g.Spec.Tags, g)}, nil
		},
		adopt:     func(g kongConsumerGroup) *adoptOptions { return g.Spec.Adopt },
		matches:   consumerGroupMatches,
		uniqueKey: func(body components.ConsumerGroup) string { return body.Name },
	}.kind()
}

// consumerGroupMatches compares the name, the group's only field.
func consumerGroupMatches(desired components.ConsumerGroup, actual *components.ConsumerGroup) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	return d
}

var consumerGroupCalls = coreCalls[components.ConsumerGroup, components.ConsumerGroup]{
	entity: "consumer_group",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.ConsumerGroup) (*components.ConsumerGroup, error) {
		res, err := api.ConsumerGroups.CreateConsumerGroup(ctx, p.ControlPlaneID, body)
		return res.GetConsumerGroup(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.ConsumerGroup) (*components.ConsumerGroup, error) {
		res, err := api.ConsumerGroups.UpsertConsumerGroup(ctx, operations.UpsertConsumerGroupRequest{ControlPlaneID: p.ControlPlaneID, ConsumerGroupID: id, ConsumerGroup: body})
		return res.GetConsumerGroup(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.ConsumerGroup, error) {
		// This one answer wraps the group: {"consumer_group": {…}}.
		res, err := api.ConsumerGroups.GetConsumerGroup(ctx, operations.GetConsumerGroupRequest{ControlPlaneID: p.ControlPlaneID, ConsumerGroupID: id})
		return res.GetConsumerGroupInsideWrapper().GetConsumerGroup(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.ConsumerGroups.DeleteConsumerGroup(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.ConsumerGroup, *string, error) {
		res, err := api.ConsumerGroups.ListConsumerGroup(ctx, operations.ListConsumerGroupRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.ConsumerGroup).GetID,
	tags: (*components.ConsumerGroup).GetTags,
}
