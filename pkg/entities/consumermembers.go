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
	opListGroups           = konnect.Operation{Verb: "list", Entity: "consumer_group", Core: true}
	opListMembers          = konnect.Operation{Verb: "list", Entity: "consumer_group_member", Core: true}
)

// ConsumerGroupsField names a consumer's groups (ConsumerDesired.GroupIDs)
// in its snapshot, in the differences adoption finds and in drift Events,
// as Konnect's path names them.
const ConsumerGroupsField = "consumer_groups"

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

// membershipsOf returns, by consumer ID, the sorted Konnect IDs of the
// groups each consumer of the control plane belongs to: the drift lister's
// view of memberships. It lists every group of the control plane, not only
// the operator's, so that a consumer added to any group is seen, and then
// each group's consumers: one request per 1,000 groups and per 1,000
// members of each group, where asking each consumer would cost one per
// consumer. The groups and every group's members are one listing, whose
// limits hold for all of them together.
func membershipsOf(ctx context.Context, api konnect.API, p controller.Placement) (map[string][]string, error) {
	ctx, listing := konnect.StartListing(ctx, opListMembers)
	defer listing.Done()
	groups, err := konnect.ListAll(ctx, opListGroups, nil, func(ctx context.Context, page konnect.Page) ([]components.ConsumerGroup, *string, error) {
		res, err := api.ConsumerGroups.ListConsumerGroup(ctx, operations.ListConsumerGroupRequest{
			ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset,
		})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	})
	if err != nil {
		return nil, err
	}
	of := map[string][]string{}
	for i := range groups {
		group := deref(groups[i].GetID())
		members, err := konnect.ListAll(ctx, opListMembers, nil, func(ctx context.Context, page konnect.Page) ([]components.Consumer, *string, error) {
			res, err := api.ConsumerGroups.ListConsumersForConsumerGroup(ctx, operations.ListConsumersForConsumerGroupRequest{
				ControlPlaneID: p.ControlPlaneID, ConsumerGroupID: group, Size: &page.Size, Offset: page.Offset,
			})
			return res.GetObject().GetData(), res.GetObject().GetOffset(), err
		})
		if konnect.IsNotFound(err) {
			continue // deleted since the groups were listed: no members
		}
		if err != nil {
			return nil, err
		}
		for j := range members {
			consumer := deref(members[j].GetID())
			of[consumer] = append(of[consumer], group)
		}
	}
	for consumer := range of {
		slices.Sort(of[consumer])
	}
	return of, nil
}

// listConsumers is the drift lister's listing of consumers: each consumer
// with its groups, in its snapshot and in the comparison with the spec, so
// that a membership changed in Konnect is drift of the consumer.
func listConsumers(c core[kongConsumer, ConsumerDesired, components.Consumer]) func(context.Context, konnect.API, controller.Placement, bool) ([]controller.Listed[ConsumerDesired], error) {
	return func(ctx context.Context, api konnect.API, p controller.Placement, all bool) ([]controller.Listed[ConsumerDesired], error) {
		listed, err := c.listed(ctx, api, p, all)
		if err != nil {
			return nil, err
		}
		memberships, err := membershipsOf(ctx, api, p)
		if err != nil {
			return nil, err
		}
		for i := range listed {
			have := memberships[listed[i].ID]
			if listed[i].Sum != 0 {
				listed[i].Sum = controller.MixSum(listed[i].Sum, have...)
			}
			decode := listed[i].Decode
			if decode == nil {
				listed[i] = withGroups(listed[i], have)
				continue
			}
			listed[i].Decode = func() (controller.Listed[ConsumerDesired], error) {
				l, err := decode()
				return withGroups(l, have), err
			}
		}
		return listed, nil
	}
}

// withGroups adds a consumer's groups to its listing.
func withGroups(l controller.Listed[ConsumerDesired], have []string) controller.Listed[ConsumerDesired] {
	l.Snapshot = l.Snapshot.With(ConsumerGroupsField, have)
	if compare := l.Differences; compare != nil {
		l.Differences = func(desired ConsumerDesired) []string {
			d := compare(desired)
			if !sameSet(desired.GroupIDs, have) {
				d = append(d, ConsumerGroupsField)
				slices.Sort(d)
			}
			return d
		}
	}
	return l
}
