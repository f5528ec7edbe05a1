package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type portalEmailConfig = *konnectv1alpha1.PortalEmailConfig

// PortalEmailConfigKind describes PortalEmailConfigs: the one email
// configuration a portal may have. It carries no labels: an object that
// lost its ID finds the portal's configuration, whatever it holds, and
// writes its spec over it. A field the spec leaves unset keeps what
// Konnect holds.
func PortalEmailConfigKind(refs *Refs, portals *controller.Informer[portal]) controller.Kind[portalEmailConfig, components.PostPortalEmailConfig] {
	gvk := gvk(konnectv1alpha1.GroupVersion, "PortalEmailConfig")
	return apiKind[portalEmailConfig, components.PostPortalEmailConfig, components.PortalEmailConfig]{
		gvk:    gvk,
		placed: underPortal[portalEmailConfig](refs, gvk, portals),
		calls:  portalEmailConfigCalls,
		desired: func(c portalEmailConfig, _ controller.Placement) (components.PostPortalEmailConfig, error) {
			spec := c.Spec.APISpec
			return components.PostPortalEmailConfig{
				DomainName: spec.DomainName, FromName: spec.FromName, FromEmail: spec.FromEmail, ReplyToEmail: spec.ReplyToEmail,
			}, nil
		},
		differences: func(desired components.PostPortalEmailConfig, actual *components.PortalEmailConfig) []string {
			var d diff
			same := func(want, got *string) bool { return want == nil || deref(got) == *want }
			d.check("domain_name", same(desired.DomainName, actual.DomainName))
			d.check("from_name", same(desired.FromName, actual.FromName))
			d.check("from_email", same(desired.FromEmail, actual.FromEmail))
			d.check("reply_to_email", same(desired.ReplyToEmail, actual.ReplyToEmail))
			return d
		},
		singleton: true,
	}.kind()
}

var portalEmailConfigCalls = apiCalls[components.PostPortalEmailConfig, components.PortalEmailConfig]{
	entity: "portal_email_config", parented: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, desired components.PostPortalEmailConfig) (*components.PortalEmailConfig, error) {
		res, err := api.PortalEmails.CreatePortalEmailConfig(ctx, p.ParentID, desired)
		return res.GetPortalEmailConfig(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, _ string, desired components.PostPortalEmailConfig) (*components.PortalEmailConfig, error) {
		patch := components.PatchPortalEmailConfig(desired)
		res, err := api.PortalEmails.UpdatePortalEmailConfig(ctx, p.ParentID, &patch)
		return res.GetPortalEmailConfig(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, _ string) (*components.PortalEmailConfig, error) {
		res, err := api.PortalEmails.GetEmailConfig(ctx, p.ParentID)
		return res.GetPortalEmailConfig(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, _ string) error {
		_, err := api.PortalEmails.DeletePortalEmailConfig(ctx, p.ParentID)
		return err
	},
	list: listSingleton("portal_email_config", func(ctx context.Context, api konnect.API, p controller.Placement) (*components.PortalEmailConfig, error) {
		res, err := api.PortalEmails.GetEmailConfig(ctx, p.ParentID)
		return res.GetPortalEmailConfig(), err
	}),
	id: func(_ controller.Placement, a *components.PortalEmailConfig) string { return a.ID },
}

// listSingleton lists the one entity of a scope that get reads (one call,
// to get entity): none when Konnect has none.
func listSingleton[A any](entity string, get func(ctx context.Context, api konnect.API, p controller.Placement) (*A, error)) func(context.Context, konnect.API, controller.Placement) ([]A, error) {
	return func(ctx context.Context, api konnect.API, p controller.Placement) ([]A, error) {
		found, err := konnect.Call(ctx, konnect.Operation{Verb: "get", Entity: entity}, func(ctx context.Context) (*A, error) {
			return get(ctx, api, p)
		})
		switch {
		case konnect.IsNotFound(err):
			return nil, nil
		case err != nil:
			return nil, err
		case found == nil:
			return nil, errNoAnswer
		}
		return []A{*found}, nil
	}
}
