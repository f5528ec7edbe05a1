package entities

import (
	"context"
	"slices"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type portalIPAllowList = *konnectv1alpha1.PortalIPAllowList

// PortalIPAllowListKind describes PortalIPAllowLists: lists of the
// addresses a portal may be reached from. Konnect keys them on nothing but
// their addresses: an object that lost its ID finds the list of the same
// addresses.
func PortalIPAllowListKind(refs *Refs, portals *controller.Informer[portal]) controller.Kind[portalIPAllowList, components.CreatePortalSourceIPRestriction] {
	gvk := gvk(konnectv1alpha1.GroupVersion, "PortalIPAllowList")
	addresses := func(ips []string) string { return strings.Join(sortedCopy(ips), ",") }
	return apiKind[portalIPAllowList, components.CreatePortalSourceIPRestriction, components.IPEntry]{
		gvk:    gvk,
		placed: underPortal[portalIPAllowList](refs, gvk, portals),
		calls:  portalIPAllowListCalls,
		desired: func(l portalIPAllowList, _ controller.Placement) (components.CreatePortalSourceIPRestriction, error) {
			return components.CreatePortalSourceIPRestriction{AllowedIps: l.Spec.APISpec.AllowedIps}, nil
		},
		differences: func(desired components.CreatePortalSourceIPRestriction, actual *components.IPEntry) []string {
			var d diff
			d.check("allowed_ips", sameSet(desired.AllowedIps, actual.AllowedIps))
			return d
		},
		key:   func(d components.CreatePortalSourceIPRestriction) string { return addresses(d.AllowedIps) },
		keyOf: func(a *components.IPEntry) string { return addresses(a.AllowedIps) },
	}.kind()
}

var portalIPAllowListCalls = apiCalls[components.CreatePortalSourceIPRestriction, components.IPEntry]{
	entity: "portal_ip_allow_list", parented: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, desired components.CreatePortalSourceIPRestriction) (*components.IPEntry, error) {
		res, err := api.PortalIPAllowLists.CreatePortalIPAllowList(ctx, p.ParentID, &desired)
		return res.GetIPEntry(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, desired components.CreatePortalSourceIPRestriction) (*components.IPEntry, error) {
		res, err := api.PortalIPAllowLists.PutPortalIPAllowList(ctx, operations.PutPortalIPAllowListRequest{PortalID: p.ParentID, ID: id, CreatePortalSourceIPRestriction: &desired})
		return res.GetIPEntry(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.IPEntry, error) {
		res, err := api.PortalIPAllowLists.GetPortalIPAllowList(ctx, p.ParentID, id)
		return res.GetIPEntry(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.PortalIPAllowLists.DeletePortalIPAllowList(ctx, p.ParentID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement) ([]components.IPEntry, error) {
		var out []components.IPEntry
		req := operations.ListPortalIPAllowListRequest{PortalID: p.ParentID, PageSize: ptrTo(int64(100))}
		for {
			res, err := konnect.Call(ctx, konnect.Operation{Verb: "list", Entity: "portal_ip_allow_list"}, func(ctx context.Context) (*operations.ListPortalIPAllowListResponse, error) {
				return api.PortalIPAllowLists.ListPortalIPAllowList(ctx, req)
			})
			if err != nil {
				return nil, err
			}
			page := res.GetPortalSourceIPRestrictionPaginatedResponse()
			out = append(out, page.GetData()...)
			after := nextCursor(page.GetMeta().Next)
			if after == "" || len(page.GetData()) == 0 {
				return out, nil
			}
			req.PageAfter = &after
		}
	},
	id: func(_ controller.Placement, a *components.IPEntry) string { return a.ID },
}

// sortedCopy returns ss sorted, for comparing sets.
func sortedCopy(ss []string) []string {
	return slices.Sorted(slices.Values(ss))
}
