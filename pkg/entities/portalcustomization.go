package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type portalCustomization = *konnectv1alpha1.PortalCustomization

// PortalCustomizationKind describes PortalCustomizations: the look of a
// portal, which Konnect keeps with every portal and which has no ID of its
// own (the status records the portal's). It is written whole: what the
// spec leaves unset is Konnect's default; deleting the object writes the
// defaults back.
func PortalCustomizationKind(refs *Refs, portals *controller.Informer[portal]) controller.Kind[portalCustomization, components.PortalCustomization] {
	gvk := gvk(konnectv1alpha1.GroupVersion, "PortalCustomization")
	return apiKind[portalCustomization, components.PortalCustomization, components.PortalCustomization]{
		gvk:    gvk,
		placed: underPortal[portalCustomization](refs, gvk, portals),
		calls:  portalCustomizationCalls,
		desired: func(c portalCustomization, _ controller.Placement) (components.PortalCustomization, error) {
			return portalCustomizationDesired(c.Spec.APISpec), nil
		},
		differences: func(desired components.PortalCustomization, actual *components.PortalCustomization) []string {
			var d diff
			for _, field := range []string{"theme", "layout", "css", "menu", "spec_renderer", "robots"} {
				d.check(field, jsonSubset(jsonField(desired, field), jsonField(actual, field)))
			}
			return d
		},
		singleton: true,
	}.kind()
}

// portalCustomizationDesired is the customization spec asks for, in
// Konnect's terms.
func portalCustomizationDesired(spec konnectv1alpha1.PortalCustomizationAPISpec) components.PortalCustomization {
	out := components.PortalCustomization{Layout: optional(spec.Layout), CSS: spec.CSS, Robots: spec.Robots}
	if t := spec.Theme; t != nil {
		out.Theme = &components.Theme{Name: optional(t.Name)}
		if t.Mode != "" {
			out.Theme.Mode = components.PortalCustomizationMode(t.Mode).ToPointer()
		}
		if t.Colors != nil {
			out.Theme.Colors = &components.Colors{Primary: optional(t.Colors.Primary)}
		}
	}
	if m := spec.Menu; m != nil {
		out.Menu = &components.Menu{Main: menuItems(m.Main), FooterBottom: menuItems(m.FooterBottom)}
		for _, section := range m.FooterSections {
			out.Menu.FooterSections = append(out.Menu.FooterSections, components.PortalFooterMenuSection{Title: section.Title, Items: menuItems(section.Items)})
		}
	}
	if r := spec.SpecRenderer; r != nil {
		out.SpecRenderer = &components.SpecRenderer{
			TryItUI: r.TryItUI.Bool(), TryItInsomnia: r.TryItInsomnia.Bool(), InfiniteScroll: r.InfiniteScroll.Bool(),
			ShowSchemas: r.ShowSchemas.Bool(), HideInternal: r.HideInternal.Bool(), HideDeprecated: r.HideDeprecated.Bool(),
			AllowCustomServerUrls: r.AllowCustomServerUrls.Bool(),
		}
	}
	return out
}

func menuItems(items []konnectv1alpha1.PortalMenuItem) []components.PortalMenuItem {
	var out []components.PortalMenuItem
	for _, item := range items {
		out = append(out, components.PortalMenuItem{
			Path: item.Path, Title: item.Title, Visibility: components.PortalMenuItemVisibility(item.Visibility),
			External: deref(item.External.Bool()),
		})
	}
	return out
}

var portalCustomizationCalls = apiCalls[components.PortalCustomization, components.PortalCustomization]{
	entity: "portal_customization", parented: true,
	create: replacePortalCustomization,
	update: func(ctx context.Context, api konnect.API, p controller.Placement, _ string, desired components.PortalCustomization) (*components.PortalCustomization, error) {
		return replacePortalCustomization(ctx, api, p, desired)
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, _ string) (*components.PortalCustomization, error) {
		return getPortalCustomization(ctx, api, p)
	},
	// A portal always has its customization: what is deleted is what the
	// object wrote, by writing Konnect's defaults back.
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, _ string) error {
		_, err := replacePortalCustomization(ctx, api, p, components.PortalCustomization{})
		return err
	},
	list: listSingleton("portal_customization", getPortalCustomization),
	id:   func(p controller.Placement, _ *components.PortalCustomization) string { return p.ParentID },
}

func replacePortalCustomization(ctx context.Context, api konnect.API, p controller.Placement, desired components.PortalCustomization) (*components.PortalCustomization, error) {
	res, err := api.PortalCustomization.ReplacePortalCustomization(ctx, p.ParentID, &desired)
	return res.GetPortalCustomization(), err
}

func getPortalCustomization(ctx context.Context, api konnect.API, p controller.Placement) (*components.PortalCustomization, error) {
	res, err := api.PortalCustomization.GetPortalCustomization(ctx, p.ParentID)
	return res.GetPortalCustomization(), err
}
