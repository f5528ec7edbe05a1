package entities

import (
	"context"
	"fmt"
	"maps"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type portal = *konnectv1alpha1.Portal

// KindPortal is the kind of Dev Portal objects.
const KindPortal = "Portal"

// PortalKind describes Portals: Dev Portals of an organisation. A portal
// carries the identity of its object as labels, as a control plane does,
// and its name is unique in the organisation. It is deleted after the
// objects of what it holds (UsedBy), so that each of them deletes its
// entity first; Konnect would delete them with it.
func PortalKind(refs *Refs) controller.Kind[portal, components.CreatePortal] {
	gvk := gvk(konnectv1alpha1.GroupVersion, KindPortal)
	return apiKind[portal, components.CreatePortal, components.PortalResponse]{
		gvk:    gvk,
		placed: inOrganization(refs, gvk, func(p portal) *konnectv1alpha2.KonnectConfiguration { return &p.Spec.KonnectConfiguration }),
		calls:  portalCalls,
		desired: func(p portal, placement controller.Placement) (components.CreatePortal, error) {
			return portalDesired(p, gvk, placement.Cluster)
		},
		differences: portalDifferences,
		labels:      func(a *components.PortalResponse) map[string]string { return a.Labels },
		key:         func(d components.CreatePortal) string { return d.Name },
		keyOf:       func(a *components.PortalResponse) string { return a.Name },
		usedBy:      []string{dependencyOf(KindPortal)},
	}.kind()
}

// PortalAuthKeys returns the key of the KonnectAPIAuthConfiguration a
// portal uses.
func PortalAuthKeys(p portal) []string { return authKeys(p, &p.Spec.KonnectConfiguration) }

// portalDesired is the portal p asks for, its identity labels included.
// What the spec leaves unset is Konnect's default, written as such, so
// that removing a field from the spec sets it back.
func portalDesired(p portal, gvk schemaGVK, cluster string) (components.CreatePortal, error) {
	spec := p.Spec.APISpec
	user := make(map[string]string, len(spec.Labels))
	for k, v := range spec.Labels {
		user[k] = string(v)
	}
	labels := map[string]*string{}
	for k, v := range controller.Labels(p, gvk, cluster, user) {
		labels[k] = ptrTo(v)
	}
	desired := components.CreatePortal{
		Name: spec.Name, DisplayName: ptrTo(orDefault(spec.DisplayName, spec.Name)), Description: spec.Description,
		AuthenticationEnabled:   toggleOr(spec.AuthenticationEnabled, true),
		RbacEnabled:             toggleOr(spec.RBACEnabled, false),
		SiprEnabled:             toggleOr(spec.SiprEnabled, false),
		AutoApproveDevelopers:   toggleOr(spec.AutoApproveDevelopers, false),
		AutoApproveApplications: toggleOr(spec.AutoApproveApplications, false),
		NotificationsDeveloperPiiVisibilityEnabled: toggleOr(spec.NotificationsDeveloperPiiVisibilityEnabled, false),
		DefaultAPIVisibility:                       components.DefaultAPIVisibility(orDefault(spec.DefaultAPIVisibility, "private")).ToPointer(),
		DefaultPageVisibility:                      components.DefaultPageVisibility(orDefault(spec.DefaultPageVisibility, "private")).ToPointer(),
		Labels:                                     labels,
	}
	if ref := spec.DefaultApplicationAuthStrategyIDRef; ref != nil {
		if ref.Type != commonv1alpha1.ObjectRefKonnectID || ref.KonnectID == nil {
			return desired, fmt.Errorf("spec.apiSpec.defaultApplicationAuthStrategyIDRef names an object; this operator manages no application auth strategies: name the strategy by its Konnect ID (type konnectID)")
		}
		desired.DefaultApplicationAuthStrategyID = ref.KonnectID
	}
	return desired, nil
}

// toggleOr is a Kong Operator toggle as Konnect's boolean, or Konnect's
// default when it is unset.
func toggleOr(t konnectv1alpha1.Toggle, konnectDefault bool) *bool {
	if b := t.Bool(); b != nil {
		return b
	}
	return &konnectDefault
}

// portalDifferences compares a portal with what its object asks for.
func portalDifferences(desired components.CreatePortal, actual *components.PortalResponse) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("display_name", deref(desired.DisplayName) == actual.DisplayName)
	d.check("description", deref(desired.Description) == deref(actual.Description))
	d.check("authentication_enabled", deref(desired.AuthenticationEnabled) == deref(actual.AuthenticationEnabled))
	d.check("rbac_enabled", deref(desired.RbacEnabled) == deref(actual.RbacEnabled))
	d.check("sipr_enabled", deref(desired.SiprEnabled) == deref(actual.SiprEnabled))
	d.check("auto_approve_developers", deref(desired.AutoApproveDevelopers) == deref(actual.AutoApproveDevelopers))
	d.check("auto_approve_applications", deref(desired.AutoApproveApplications) == deref(actual.AutoApproveApplications))
	d.check("notifications_developer_pii_visibility_enabled",
		deref(desired.NotificationsDeveloperPiiVisibilityEnabled) == deref(actual.NotificationsDeveloperPiiVisibilityEnabled))
	d.check("default_api_visibility", string(deref(desired.DefaultAPIVisibility)) == string(actual.DefaultAPIVisibility))
	d.check("default_page_visibility", string(deref(desired.DefaultPageVisibility)) == string(actual.DefaultPageVisibility))
	d.check("default_application_auth_strategy_id", deref(desired.DefaultApplicationAuthStrategyID) == deref(actual.DefaultApplicationAuthStrategyID))
	d.check("labels", maps.Equal(controller.UserLabels(derefLabels(desired.Labels)), controller.UserLabels(actual.Labels)))
	return d
}

func derefLabels(labels map[string]*string) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		if v != nil {
			out[k] = *v
		}
	}
	return out
}

func portalOp(verb string) konnect.Operation { return konnect.Operation{Verb: verb, Entity: "portal"} }

var portalCalls = apiCalls[components.CreatePortal, components.PortalResponse]{
	entity: "portal",
	create: func(ctx context.Context, api konnect.API, _ controller.Placement, desired components.CreatePortal) (*components.PortalResponse, error) {
		res, err := api.Portals.CreatePortal(ctx, desired)
		return res.GetPortalResponse(), err
	},
	update: updatePortal,
	get: func(ctx context.Context, api konnect.API, _ controller.Placement, id string) (*components.PortalResponse, error) {
		res, err := api.Portals.GetPortal(ctx, id)
		return res.GetPortalResponse(), err
	},
	remove: func(ctx context.Context, api konnect.API, _ controller.Placement, id string) error {
		_, err := api.Portals.DeletePortal(ctx, id, nil)
		return err
	},
	list: listPortals,
	id:   func(_ controller.Placement, a *components.PortalResponse) string { return a.ID },
}

// updatePortal patches a portal with what its object asks for. A patch
// merges labels, so the labels the portal carries and the object no
// longer asks for are sent as null, after a read of the portal.
func updatePortal(ctx context.Context, api konnect.API, _ controller.Placement, id string, desired components.CreatePortal) (*components.PortalResponse, error) {
	current, err := konnect.Call(ctx, portalOp("get"), func(ctx context.Context) (*operations.GetPortalResponse, error) {
		return api.Portals.GetPortal(ctx, id)
	})
	if err != nil {
		return nil, err
	}
	var patch components.UpdatePortal
	if err := sameAs(desired, &patch); err != nil {
		return nil, err
	}
	patch.Name = nil // it never changes, and a name taken since would refuse the patch
	patch.Description = ptrTo(deref(desired.Description))
	patch.Labels = maps.Clone(desired.Labels)
	for k := range current.GetPortalResponse().GetLabels() {
		if _, kept := patch.Labels[k]; !kept {
			patch.Labels[k] = nil
		}
	}
	res, err := api.Portals.UpdatePortal(ctx, id, patch)
	return res.GetPortalResponse(), err
}

// listPortals returns every portal the credentials see.
func listPortals(ctx context.Context, api konnect.API, _ controller.Placement) ([]components.PortalResponse, error) {
	var out []components.PortalResponse
	size := int64(100)
	for number := int64(1); ; number++ {
		res, err := konnect.Call(ctx, portalOp("list"), func(ctx context.Context) (*operations.ListPortalsResponse, error) {
			return api.Portals.ListPortals(ctx, operations.ListPortalsRequest{PageSize: &size, PageNumber: &number})
		})
		if err != nil {
			return nil, err
		}
		page := res.GetListPortalsResponse()
		for _, listed := range page.GetData() {
			var p components.PortalResponse
			if err := sameAs(listed, &p); err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		if len(page.GetData()) == 0 || float64(number*size) >= page.GetMeta().Page.Total {
			return out, nil
		}
	}
}
