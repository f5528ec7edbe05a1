package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type portalIdentityProvider = *konnectv1alpha1.PortalIdentityProviderRequest

// PortalIdentityProviderKind describes PortalIdentityProviderRequests:
// the OIDC or SAML identity providers developers of a portal sign in with.
// They carry no labels; Konnect keys them on their type (a portal has at
// most one of each). Konnect never answers an OIDC client secret: it is
// written with every write, and compared by the snapshot of the writes.
func PortalIdentityProviderKind(refs *Refs, portals *controller.Informer[portal]) controller.Kind[portalIdentityProvider, components.PortalCreateIdentityProvider] {
	gvk := gvk(konnectv1alpha1.GroupVersion, "PortalIdentityProviderRequest")
	return apiKind[portalIdentityProvider, components.PortalCreateIdentityProvider, components.PortalIdentityProvider]{
		gvk:         gvk,
		placed:      underPortal[portalIdentityProvider](refs, gvk, portals),
		calls:       portalIdentityProviderCalls,
		desired:     identityProviderDesired,
		differences: identityProviderDifferences,
		key:         func(d components.PortalCreateIdentityProvider) string { return string(deref(d.Type)) },
		keyOf:       func(a *components.PortalIdentityProvider) string { return string(deref(a.Type)) },
	}.kind()
}

// identityProviderDesired is the provider spec asks for, in Konnect's
// terms: its type is the configuration's when the spec leaves it out.
func identityProviderDesired(p portalIdentityProvider, _ controller.Placement) (components.PortalCreateIdentityProvider, error) {
	spec := p.Spec.APISpec
	desired := components.PortalCreateIdentityProvider{Enabled: toggleOr(spec.Enabled, false)}
	kind := spec.Type
	if c := spec.Config; c != nil {
		switch {
		case c.Type == konnectv1alpha1.PortalIdentityProviderConfigOIDC && c.OIDC != nil:
			desired.Config = ptrTo(components.CreatePortalCreateIdentityProviderConfigOIDCIdentityProviderConfig(oidcConfig(c.OIDC)))
			kind = orDefault(kind, string(components.IdentityProviderTypeOidc))
		case c.Type == konnectv1alpha1.PortalIdentityProviderConfigSAML && c.PortalSAML != nil:
			desired.Config = ptrTo(components.CreatePortalCreateIdentityProviderConfigPortalSAMLIdentityProviderConfigInput(components.PortalSAMLIdentityProviderConfigInput{
				IdpMetadataURL: optional(c.PortalSAML.IdpMetadataURL), IdpMetadataXML: optional(c.PortalSAML.IdpMetadataXML),
			}))
			kind = orDefault(kind, string(components.IdentityProviderTypeSaml))
		}
	}
	if kind != "" {
		desired.Type = components.IdentityProviderType(kind).ToPointer()
	}
	return desired, nil
}

func oidcConfig(c *konnectv1alpha1.PortalOIDCConfig) components.OIDCIdentityProviderConfig {
	out := components.OIDCIdentityProviderConfig{IssuerURL: c.IssuerURL, ClientID: c.ClientID, ClientSecret: optional(c.ClientSecret), Scopes: c.Scopes}
	if m := c.ClaimMappings; m != nil {
		out.ClaimMappings = &components.OIDCIdentityProviderClaimMappings{Name: optional(m.Name), Email: optional(m.Email), Groups: optional(m.Groups)}
	}
	return out
}

// identityProviderDifferences compares a provider with what its object
// asks for: its type, whether it is enabled, and the configuration
// Konnect answers (all but the client secret).
func identityProviderDifferences(desired components.PortalCreateIdentityProvider, actual *components.PortalIdentityProvider) []string {
	var d diff
	d.check("type", desired.Type == nil || deref(desired.Type) == deref(actual.Type))
	d.check("enabled", deref(desired.Enabled) == deref(actual.Enabled))
	want := map[string]any{}
	if c := desired.Config; c != nil && c.OIDCIdentityProviderConfig != nil {
		oidc := *c.OIDCIdentityProviderConfig
		oidc.ClientSecret = nil
		want, _ = AsJSON(oidc).(map[string]any)
	} else if c != nil && c.PortalSAMLIdentityProviderConfigInput != nil {
		want, _ = AsJSON(c.PortalSAMLIdentityProviderConfigInput).(map[string]any)
	}
	d.check("config", desired.Config == nil || jsonSubset(want, actual.Config))
	return d
}

var portalIdentityProviderCalls = apiCalls[components.PortalCreateIdentityProvider, components.PortalIdentityProvider]{
	entity: "portal_identity_provider", parented: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, desired components.PortalCreateIdentityProvider) (*components.PortalIdentityProvider, error) {
		res, err := api.PortalAuthSettings.CreatePortalIdentityProvider(ctx, p.ParentID, desired)
		return res.GetPortalIdentityProvider(), err
	},
	update: func(ctx context.Context, api konnect.API, p controller.Placement, id string, desired components.PortalCreateIdentityProvider) (*components.PortalIdentityProvider, error) {
		patch := components.PortalUpdateIdentityProvider{Enabled: desired.Enabled}
		if c := desired.Config; c != nil && c.OIDCIdentityProviderConfig != nil {
			patch.Config = ptrTo(components.CreatePortalUpdateIdentityProviderConfigOIDCIdentityProviderConfig(*c.OIDCIdentityProviderConfig))
		} else if c != nil && c.PortalSAMLIdentityProviderConfigInput != nil {
			patch.Config = ptrTo(components.CreatePortalUpdateIdentityProviderConfigPortalSAMLIdentityProviderConfigInput(*c.PortalSAMLIdentityProviderConfigInput))
		}
		res, err := api.PortalAuthSettings.UpdatePortalIdentityProvider(ctx, operations.UpdatePortalIdentityProviderRequest{PortalID: p.ParentID, ID: id, PortalUpdateIdentityProvider: patch})
		return res.GetPortalIdentityProvider(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.PortalIdentityProvider, error) {
		res, err := api.PortalAuthSettings.GetPortalIdentityProvider(ctx, p.ParentID, id)
		return res.GetPortalIdentityProvider(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.PortalAuthSettings.DeletePortalIdentityProvider(ctx, p.ParentID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement) ([]components.PortalIdentityProvider, error) {
		res, err := konnect.Call(ctx, konnect.Operation{Verb: "list", Entity: "portal_identity_provider"}, func(ctx context.Context) (*operations.GetPortalIdentityProvidersResponse, error) {
			return api.PortalAuthSettings.GetPortalIdentityProviders(ctx, p.ParentID, nil)
		})
		if err != nil {
			return nil, err
		}
		return res.PortalIdentityProviders, nil
	},
	id: func(_ controller.Placement, a *components.PortalIdentityProvider) string { return deref(a.ID) },
}
