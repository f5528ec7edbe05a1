package entities

import (
	"context"
	"slices"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// The operations on a consumer's memberships, as errors and metrics name
// them.
var (
	opListConsumerGroupsOf = konnect.Operation{Verb: "list", Entity: "consumer_group_of_consumer", Core: true}
	opAddMember            = konnect.Operation{Verb: "add", Entity: "consumer_group_member", Core: true}
	opRemoveMember         = konnect.Operation{Verb: "remove", Entity: "consumer_group_member", Core: true}
)

// syncMemberships makes the memberships of the consumer with the given ID
// equal to want (Konnect IDs of groups), adding and removing as needed. A
// consumer just created has no memberships to read.
func syncMemberships(ctx context.Context, api konnect.API, p controller.Placement, id string, want []string, created bool) error {
	if created && len(want) == 0 {
		return nil
	}
	var have []string
	if !created {
		var err error
		if have, err = consumerGroupsOf(ctx, api, p, id); err != nil {
			return controller.WithReason(commonv1alpha1.ReasonFailedToAttachConsumerToGroup, err)
		}
	}
	for _, group := range want {
		if slices.Contains(have, group) {
			continue
		}
		_, err := konnect.Call(ctx, opAddMember, func(ctx context.Context) (*operations.AddConsumerToGroupResponse, error) {
			return api.ConsumerGroups.AddConsumerToGroup(ctx, operations.AddConsumerToGroupRequest{
				ControlPlaneID: p.ControlPlaneID, ConsumerGroupID: group,
				RequestBody: &operations.AddConsumerToGroupRequestBody{ConsumerID: &id},
			})
		})
		if err != nil && !konnect.IsConflict(err) {
			return controller.WithReason(commonv1alpha1.ReasonFailedToAttachConsumerToGroup, err)
		}
	}
	for _, group := range have {
		if slices.Contains(want, group) {
			continue
		}
		_, err := konnect.Call(ctx, opRemoveMember, func(ctx context.Context) (*operations.RemoveConsumerFromGroupResponse, error) {
			return api.ConsumerGroups.RemoveConsumerFromGroup(ctx, operations.RemoveConsumerFromGroupRequest{
				ControlPlaneID: p.ControlPlaneID, ConsumerGroupID: group, ConsumerID: id,
			})
		})
		if err != nil && !konnect.IsNotFound(err) {
			return controller.WithReason(commonv1alpha1.ReasonFailedToAttachConsumerToGroup, err)
		}
	}
	return nil
}

// consumerGroupsOf returns the Konnect IDs of the groups the consumer with
// the given ID belongs to.
func consumerGroupsOf(ctx context.Context, api konnect.API, p controller.Placement, id string) ([]string, error) {
	groups, err := konnect.ListAll(ctx, opListConsumerGroupsOf, nil, func(ctx context.Context, page konnect.Page) ([]components.ConsumerGroup, *string, error) {
		res, err := api.Consumers.ListConsumerGroupsForConsumer(ctx, operations.ListConsumerGroupsForConsumerRequest{
			ControlPlaneID: p.ControlPlaneID, ConsumerID: id, Size: &page.Size, Offset: page.Offset,
		})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	})
	ids := make([]string, 0, len(groups))
	for i := range groups {
		ids = append(ids, deref(groups[i].GetID()))
	}
	return ids, err
}
