package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type portalPage = *konnectv1alpha1.PortalPage

// PortalPageKind describes PortalPages: pages of a portal, which carry no
// labels; Konnect keys them on their slug within the portal. A listing of
// a portal's pages leaves their content out: each listed page is read.
func PortalPageKind(refs *Refs, portals *controller.Informer[portal]) controller.Kind[portalPage, components.CreatePortalPageRequest] {
	gvk := gvk(konnectv1alpha1.GroupVersion, "PortalPage")
	return apiKind[portalPage, components.CreatePortalPageRequest, components.PortalPageResponse]{
		gvk:    gvk,
		placed: underPortal[portalPage](refs, gvk, portals),
		calls:  portalPageCalls,
		desired: func(pg portalPage, _ controller.Placement) (components.CreatePortalPageRequest, error) {
			spec := pg.Spec.APISpec
			desired := components.CreatePortalPageRequest{
				Slug: spec.Slug, Content: spec.Content, Title: optional(spec.Title), Description: optional(spec.Description),
				// Konnect's default, written so that removing the field
				// from the spec sets it back.
				Status: components.PublishedStatus(orDefault(spec.Status, "unpublished")).ToPointer(),
			}
			if spec.Visibility != "" {
				desired.Visibility = components.PageVisibilityStatus(spec.Visibility).ToPointer()
			}
			return desired, nil
		},
		differences: portalPageDifferences,
		key:         func(d components.CreatePortalPageRequest) string { return d.Slug },
		keyOf:       func(a *components.PortalPageResponse) string { return a.Slug },
	}.kind()
}

// portalPageDifferences compares a page with what its object asks for;
// an unset title or visibility is whatever Konnect chose.
func portalPageDifferences(desired components.CreatePortalPageRequest, actual *components.PortalPageResponse) []string {
	var d diff
	d.check("slug", desired.Slug == actual.Slug)
	d.check("content", desired.Content == actual.Content)
	d.check("title", desired.Title == nil || *desired.Title == actual.Title)
	d.check("description", deref(desired.Description) == deref(actual.Description))
	d.check("status", string(deref(desired.Status)) == string(actual.Status))
	d.check("visibility", desired.Visibility == nil || string(*desired.Visibility) == string(actual.Visibility))
	return d
}

var portalPageCalls = apiCalls[components.CreatePortalPageRequest, components.PortalPageResponse]{
	entity: "portal_page", parented: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, desired components.CreatePortalPageRequest) (*components.PortalPageResponse, error) {
		res, err := api.PortalPages.CreatePortalPage(ctx, p.ParentID, desired)
		return res.GetPortalPageResponse(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, desired components.CreatePortalPageRequest) (*components.PortalPageResponse, error) {
		var patch components.UpdatePortalPageRequest
		if err := sameAs(desired, &patch); err != nil {
			return nil, err
		}
		// Sent even when empty, so that removing it from the spec clears it.
		patch.Description = ptrTo(deref(desired.Description))
		res, err := api.PortalPages.UpdatePortalPage(ctx, operations.UpdatePortalPageRequest{PortalID: p.ParentID, PageID: id, UpdatePortalPageRequest: patch})
		return res.GetPortalPageResponse(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.PortalPageResponse, error) {
		res, err := api.PortalPages.GetPortalPage(ctx, p.ParentID, id)
		return res.GetPortalPageResponse(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.PortalPages.DeletePortalPage(ctx, p.ParentID, id)
		return err
	},
	list: listPortalPages,
	id:   func(_ controller.Placement, a *components.PortalPageResponse) string { return a.ID },
}

// listPortalPages reads every page of the portal: the list, a tree without
// the pages' content, then each page.
func listPortalPages(ctx context.Context, api konnect.API, p controller.Placement) ([]components.PortalPageResponse, error) {
	op := konnect.Operation{Verb: "list", Entity: "portal_page"}
	res, err := konnect.Call(ctx, op, func(ctx context.Context) (*operations.ListPortalPagesResponse, error) {
		return api.PortalPages.ListPortalPages(ctx, operations.ListPortalPagesRequest{PortalID: p.ParentID})
	})
	if err != nil {
		return nil, err
	}
	var out []components.PortalPageResponse
	var read func(pages []components.PortalPageInfo) error
	read = func(pages []components.PortalPageInfo) error {
		for _, info := range pages {
			page, err := konnect.Call(ctx, konnect.Operation{Verb: "get", Entity: "portal_page"}, func(ctx context.Context) (*operations.GetPortalPageResponse, error) {
				return api.PortalPages.GetPortalPage(ctx, p.ParentID, info.ID)
			})
			if konnect.IsNotFound(err) {
				continue // deleted since it was listed
			}
			if err != nil {
				return err
			}
			if page.GetPortalPageResponse() == nil {
				return errNoAnswer
			}
			out = append(out, *page.GetPortalPageResponse())
			if err := read(info.Children); err != nil {
				return err
			}
		}
		return nil
	}
	return out, read(res.GetListPortalPagesResponse().GetData())
}
