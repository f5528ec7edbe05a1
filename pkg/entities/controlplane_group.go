package entities

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// A control-plane group (cluster_type CLUSTER_TYPE_CONTROL_PLANE_GROUP)
// lists other KonnectGatewayControlPlanes of its namespace in spec.members.
// After every create and update the complete member set is written with
// PUT group-memberships, which replaces whatever Konnect had, so a change
// made in Konnect is overwritten within one sync period. The members' IDs
// are part of the desired state, so a member getting (or changing) its ID
// reaches Konnect at once; the "members" dependency enqueues the group.
//
// While any member cannot be used (missing, being deleted, or without a
// Konnect ID yet), the membership is left as it is, the group reports
// MembersReferenceResolved=False/SomeMemberNotResolved and
// Programmed=False/FailedToSetControlPlaneGroupMembers, and the group itself
// is still created and kept up to date.

func isGroupRequest(cp controlPlane) bool {
	req := cp.Spec.CreateControlPlaneRequest
	return !cp.IsMirror() && req != nil && req.ClusterType != nil && *req.ClusterType == clusterTypeGroup
}

// memberKeys returns the keys of a group's members, for the dependency.
func memberKeys(cp controlPlane) []string {
	if !isGroupRequest(cp) {
		return nil
	}
	keys := make([]string, 0, len(cp.Spec.Members))
	for _, m := range cp.Spec.Members {
		keys = append(keys, key(cp.Namespace, m.Name))
	}
	return keys
}

// groupMembers returns the sorted Konnect IDs of the group's members, and
// for each member that cannot be used "name: why".
func groupMembers(refs *Refs, group controlPlane) (ids, unresolved []string) {
	for _, m := range group.Spec.Members {
		member, err := refs.ControlPlanes.Get(group.Namespace, m.Name)
		switch {
		case err != nil:
			unresolved = append(unresolved, m.Name+": NotFound")
		case isBeingDeleted(member):
			unresolved = append(unresolved, m.Name+": BeingDeleted")
		case member.Status.ID == "":
			unresolved = append(unresolved, m.Name+": NotCreatedInKonnect")
		default:
			ids = append(ids, member.Status.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), unresolved
}

// syncMembers makes the group's membership in Konnect equal to its members
// and sets MembersReferenceResolved.
func syncMembers(ctx context.Context, api konnect.API, refs *Refs, group controlPlane, id string) error {
	ids, unresolved := groupMembers(refs, group)
	if len(unresolved) > 0 {
		message := "some members cannot be used yet: " + strings.Join(unresolved, ", ")
		controller.SetCondition(group, controller.FalseCondition(commonv1alpha1.ConditionMembersReferenceResolved, commonv1alpha1.ReasonSomeMemberNotResolved, message))
		// The members' own changes enqueue the group again.
		return controller.Permanent(controller.WithReason(commonv1alpha1.ReasonFailedToSetControlPlaneGroupMembers, fmt.Errorf("%s", message)), 0)
	}
	// Konnect wants the complete list, so no members is [] rather than null.
	membership := components.GroupMembership{Members: []components.Members{}}
	for _, member := range ids {
		membership.Members = append(membership.Members, components.Members{ID: member})
	}
	_, err := konnect.Call(ctx, konnect.Operation{Verb: "set", Entity: "control_plane_group_member"}, func(ctx context.Context) (*operations.PutControlPlanesIDGroupMembershipsResponse, error) {
		return api.ControlPlaneGroups.PutControlPlanesIDGroupMemberships(ctx, id, &membership)
	})
	if err != nil {
		if _, limited := konnect.IsRateLimited(err); !limited {
			controller.SetCondition(group, controller.FalseCondition(commonv1alpha1.ConditionMembersReferenceResolved, commonv1alpha1.ReasonSetGroupMemberFailed, err.Error()))
		}
		return controller.WithReason(commonv1alpha1.ReasonFailedToSetControlPlaneGroupMembers, err)
	}
	controller.SetCondition(group, controller.TrueCondition(commonv1alpha1.ConditionMembersReferenceResolved, commonv1alpha1.ReasonResolved,
		fmt.Sprintf("%d members set in Konnect", len(ids))))
	return nil
}
