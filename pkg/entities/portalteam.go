package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type portalTeam = *konnectv1alpha1.PortalTeam

// PortalTeamKind describes PortalTeams: teams of developers of a portal,
// which carry no labels; Konnect keys them on their name within the
// portal.
func PortalTeamKind(refs *Refs, portals *controller.Informer[portal]) controller.Kind[portalTeam, components.PortalCreateTeamRequest] {
	gvk := gvk(konnectv1alpha1.GroupVersion, "PortalTeam")
	return apiKind[portalTeam, components.PortalCreateTeamRequest, components.PortalTeamResponse]{
		gvk:    gvk,
		placed: underPortal[portalTeam](refs, gvk, portals),
		calls:  portalTeamCalls,
		desired: func(t portalTeam, _ controller.Placement) (components.PortalCreateTeamRequest, error) {
			spec := t.Spec.APISpec
			return components.PortalCreateTeamRequest{
				Name: spec.Name, Description: optional(spec.Description), CanOwnApplications: toggleOr(spec.CanOwnApplications, false),
			}, nil
		},
		differences: func(desired components.PortalCreateTeamRequest, actual *components.PortalTeamResponse) []string {
			var d diff
			d.check("name", desired.Name == actual.Name)
			// Konnect refuses an empty description: an unset one is whatever
			// Konnect holds.
			d.check("description", desired.Description == nil || *desired.Description == actual.Description)
			d.check("can_own_applications", deref(desired.CanOwnApplications) == deref(actual.CanOwnApplications))
			return d
		},
		key:   func(d components.PortalCreateTeamRequest) string { return d.Name },
		keyOf: func(a *components.PortalTeamResponse) string { return a.Name },
	}.kind()
}

var portalTeamCalls = apiCalls[components.PortalCreateTeamRequest, components.PortalTeamResponse]{
	entity: "portal_team", parented: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, desired components.PortalCreateTeamRequest) (*components.PortalTeamResponse, error) {
		res, err := api.PortalTeams.CreatePortalTeam(ctx, p.ParentID, &desired)
		return res.GetPortalTeamResponse(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, desired components.PortalCreateTeamRequest) (*components.PortalTeamResponse, error) {
		patch := components.PortalUpdateTeamRequest{Name: &desired.Name, Description: desired.Description, CanOwnApplications: desired.CanOwnApplications}
		res, err := api.PortalTeams.UpdatePortalTeam(ctx, operations.UpdatePortalTeamRequest{PortalID: p.ParentID, TeamID: id, PortalUpdateTeamRequest: &patch})
		return res.GetPortalTeamResponse(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.PortalTeamResponse, error) {
		res, err := api.PortalTeams.GetPortalTeam(ctx, id, p.ParentID)
		return res.GetPortalTeamResponse(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.PortalTeams.DeletePortalTeam(ctx, id, p.ParentID)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement) ([]components.PortalTeamResponse, error) {
		var out []components.PortalTeamResponse
		size := int64(100)
		for number := int64(1); ; number++ {
			res, err := konnect.Call(ctx, konnect.Operation{Verb: "list", Entity: "portal_team"}, func(ctx context.Context) (*operations.ListPortalTeamsResponse, error) {
				return api.PortalTeams.ListPortalTeams(ctx, operations.ListPortalTeamsRequest{PortalID: p.ParentID, PageSize: &size, PageNumber: &number})
			})
			if err != nil {
				return nil, err
			}
			page := res.GetListPortalTeamsResponse()
			out = append(out, page.GetData()...)
			if len(page.GetData()) == 0 || float64(number*size) >= page.GetMeta().Page.Total {
				return out, nil
			}
		}
	},
	id: func(_ controller.Placement, a *components.PortalTeamResponse) string { return a.ID },
}
