package entities

import (
	"context"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// Control planes are found drifted by listing, as core entities are: once
// per sync period and set of credentials, the control planes labelled
// managed-by=konnect-operator (100 to a page, Konnect's largest), and for
// each group among them its members (one request per 100 members). A
// control plane is written again only when Konnect holds something else
// than the operator last wrote, members included, or is missing. Mirrored
// control planes carry no label of the operator: each is read once per
// period, as before.

// membersField names a group's members in its snapshot and in drift Events.
const membersField = "members"

// controlPlaneSnapshot is the snapshot of Konnect's answer to a write of a
// control plane, with the members the write then sets for a group.
func controlPlaneSnapshot(answered *components.ControlPlane, desired ControlPlaneDesired) controller.Snapshot {
	if answered == nil {
		return controller.Snapshot{}
	}
	snapshot := controller.MustSnapshot(answered)
	if desired.Group {
		snapshot = snapshot.With(membersField, desired.Members)
	}
	return snapshot
}

// listKindControlPlanes lists the control planes that the credentials of
// api see and an operator labelled with the kind (this one or Kong
// Operator), or all of them, for the drift lister.
func listKindControlPlanes(ctx context.Context, api konnect.API, _ controller.Placement, all bool) ([]controller.Listed[ControlPlaneDesired], error) {
	var request operations.ListControlPlanesRequest
	if !all {
		kind := controller.KindTag(kindControlPlane)
		request.FilterLabels = &kind
	}
	found, err := listControlPlanes(ctx, api, request)
	if err != nil {
		return nil, err
	}
	out := make([]controller.Listed[ControlPlaneDesired], 0, len(found))
	for i := range found {
		l, err := listedControlPlane(ctx, api, &found[i])
		if konnect.IsNotFound(err) {
			continue // deleted since it was listed: missing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// listedControlPlane is a control plane as a listing shows it: with its
// members, for a group.
func listedControlPlane(ctx context.Context, api konnect.API, actual *components.ControlPlane) (controller.Listed[ControlPlaneDesired], error) {
	snapshot := controller.MustSnapshot(actual)
	var members []string
	if actual.Config.ClusterType == components.ControlPlaneClusterTypeClusterTypeControlPlaneGroup {
		var err error
		if members, err = groupMemberIDs(ctx, api, actual.ID); err != nil {
			return controller.Listed[ControlPlaneDesired]{}, err
		}
		snapshot = snapshot.With(membersField, members)
	}
	return controller.Listed[ControlPlaneDesired]{
		ID:       actual.ID,
		Owner:    actual.Labels[controller.TagKeyCluster],
		Object:   controller.IdentityFromLabels(actual.Labels),
		Actual:   actual,
		Snapshot: snapshot,
		Differences: func(desired ControlPlaneDesired) []string {
			return controlPlaneDifferences(desired, actual, members)
		},
	}, nil
}

// controlPlaneDifferences compares a listed control plane with what its
// object asks for: what an update writes (name, description, labels, auth
// type, proxy URLs) and a group's members.
func controlPlaneDifferences(desired ControlPlaneDesired, actual *components.ControlPlane, members []string) []string {
	var d diff
	for _, f := range controlPlaneFields(desired, actual, members) {
		d.check(f.name, f.same)
	}
	return d
}

// controlPlaneField is one field a control plane is compared by, with what
// its object asks for and what Konnect holds.
type controlPlaneField struct {
	name            string
	same            bool
	desired, actual any
}

// controlPlaneFields compares a control plane with what its object asks
// for, field by field (see controlPlaneDifferences).
func controlPlaneFields(desired ControlPlaneDesired, actual *components.ControlPlane, members []string) []controlPlaneField {
	want := desired.Update
	return []controlPlaneField{
		{"name", want.Name == nil || *want.Name == actual.Name, want.Name, actual.Name},
		{"description", deref(want.Description) == actual.Description, want.Description, actual.Description},
		{"labels", maps.Equal(controller.UserLabels(want.Labels), controller.UserLabels(actual.Labels)), want.Labels, actual.Labels},
		{"auth_type", want.AuthType == nil || string(*want.AuthType) == string(actual.Config.AuthType), want.AuthType, actual.Config.AuthType},
		{"proxy_urls", len(want.ProxyUrls) == 0 || sameProxyURLs(want.ProxyUrls, actual.Config.ProxyUrls), want.ProxyUrls, actual.Config.ProxyUrls},
		{membersField, !desired.Group || slices.Equal(desired.Members, members), desired.Members, members},
	}
}

// ControlPlaneDifference is a field in which a control plane in Konnect
// differs from what its object asks for.
type ControlPlaneDifference struct {
	// Field is the Konnect field name, or "members" for a group's members.
	Field string
	// Desired is what the object asks for (what an update writes, or the
	// group's members), Actual what Konnect holds.
	Desired, Actual any
}

// CompareControlPlane reads the control plane with Konnect ID id, and a
// group's members, and returns the fields in which it differs from
// desired, as drift detection compares them (controlPlaneDifferences). A
// control plane Konnect does not have is a konnect.NotFoundError. It reads
// only: kubectl konnect diff shows what it returns.
func CompareControlPlane(ctx context.Context, api konnect.API, id string, desired ControlPlaneDesired) ([]ControlPlaneDifference, error) {
	found, err := listControlPlanes(ctx, api, operations.ListControlPlanesRequest{Filter: &components.ControlPlaneFilterParameters{ID: &components.ID{Eq: &id}}})
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, &konnect.NotFoundError{Operation: "read control plane", Message: "the organisation has no control plane with ID " + id}
	}
	var members []string
	if desired.Group {
		// A group deleted since it was listed has no members to compare.
		if members, err = groupMemberIDs(ctx, api, id); err != nil && !konnect.IsNotFound(err) {
			return nil, err
		}
	}
	var out []ControlPlaneDifference
	for _, f := range controlPlaneFields(desired, &found[0], members) {
		if !f.same {
			out = append(out, ControlPlaneDifference{Field: f.name, Desired: f.desired, Actual: f.actual})
		}
	}
	return out, nil
}

func sameProxyURLs(a, b []components.ProxyURL) bool {
	compare := func(x, y components.ProxyURL) int {
		return strings.Compare(x.Protocol+"://"+x.Host, y.Protocol+"://"+y.Host)*2 + cmpInt(x.Port, y.Port)
	}
	return slices.Equal(slices.SortedFunc(slices.Values(a), compare), slices.SortedFunc(slices.Values(b), compare))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// groupMemberIDs returns the sorted Konnect IDs of a group's members.
func groupMemberIDs(ctx context.Context, api konnect.API, groupID string) ([]string, error) {
	var ids []string
	size := int64(controlPlanePageSize)
	req := operations.GetControlPlanesIDGroupMembershipsRequest{ControlPlaneID: groupID, PageSize: &size}
	op := konnect.Operation{Verb: "list", Entity: "control_plane_group_member"}
	ctx, listing := konnect.StartListing(ctx, op)
	defer listing.Done()
	for {
		res, err := konnect.Call(ctx, op, func(ctx context.Context) (*operations.GetControlPlanesIDGroupMembershipsResponse, error) {
			return api.ControlPlaneGroups.GetControlPlanesIDGroupMemberships(ctx, req)
		})
		if err != nil {
			return nil, err
		}
		page := res.GetListGroupMemberships()
		for _, member := range page.GetData() {
			ids = append(ids, member.ID)
		}
		after := nextCursor(page.GetMeta().Page.Next)
		if len(page.GetData()) == 0 {
			after = ""
		}
		if err := listing.Page(len(page.GetData()), after); err != nil {
			return nil, err
		}
		if after == "" {
			slices.Sort(ids)
			return ids, nil
		}
		req.PageAfter = &after
	}
}

// nextCursor reads the page[after] cursor of a next-page link, which
// Konnect gives either as a URI or as the cursor itself.
func nextCursor(next *string) string {
	if next == nil || *next == "" {
		return ""
	}
	if u, err := url.Parse(*next); err == nil && u.Query().Has("page[after]") {
		return u.Query().Get("page[after]")
	}
	return *next
}
