package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type portalCustomDomain = *konnectv1alpha1.PortalCustomDomain

// Ways Konnect verifies a custom domain.
const (
	verificationHTTP              = "http"
	verificationCustomCertificate = "custom_certificate"
)

// PortalCustomDomainKind describes PortalCustomDomains: the one custom
// domain a portal may have. Konnect keys it on its host name, which is
// also its ID in the status; a new host name, or another way of
// verifying it, replaces the domain (deleted, then created). Another
// host name already on the portal is never taken over: the create is
// refused and says so.
func PortalCustomDomainKind(refs *Refs, portals *controller.Informer[portal]) controller.Kind[portalCustomDomain, components.CreatePortalCustomDomainRequest] {
	gvk := gvk(konnectv1alpha1.GroupVersion, "PortalCustomDomain")
	return apiKind[portalCustomDomain, components.CreatePortalCustomDomainRequest, components.PortalCustomDomain]{
		gvk:    gvk,
		placed: underPortal[portalCustomDomain](refs, gvk, portals),
		calls:  portalCustomDomainCalls,
		desired: func(d portalCustomDomain, _ controller.Placement) (components.CreatePortalCustomDomainRequest, error) {
			spec := d.Spec.APISpec
			desired := components.CreatePortalCustomDomainRequest{Hostname: spec.Hostname, Enabled: deref(spec.Enabled.Bool())}
			if c := spec.SSL.WithCustomCertificate; spec.SSL.Type == konnectv1alpha1.SSLWithCustomCertificate && c != nil {
				desired.Ssl = components.CreateCreatePortalCustomDomainSSLCustomCertificate(components.CustomCertificate{
					CustomCertificate: c.CustomCertificate, CustomPrivateKey: c.CustomPrivateKey, SkipCaCheck: toggleOr(c.SkipCaCheck, false),
				})
			} else {
				desired.Ssl = components.CreateCreatePortalCustomDomainSSLHTTP(components.HTTP{})
			}
			return desired, nil
		},
		differences: func(desired components.CreatePortalCustomDomainRequest, actual *components.PortalCustomDomain) []string {
			var d diff
			d.check("hostname", desired.Hostname == actual.Hostname)
			d.check("enabled", desired.Enabled == actual.Enabled)
			d.check("ssl", verificationOf(desired) == string(actual.Ssl.DomainVerificationMethod) &&
				(desired.Ssl.CustomCertificate == nil || deref(desired.Ssl.CustomCertificate.SkipCaCheck) == deref(actual.Ssl.SkipCaCheck)))
			return d
		},
		key:   func(d components.CreatePortalCustomDomainRequest) string { return d.Hostname },
		keyOf: func(a *components.PortalCustomDomain) string { return a.Hostname },
	}.kind()
}

// verificationOf is how Konnect is asked to verify a domain.
func verificationOf(desired components.CreatePortalCustomDomainRequest) string {
	if desired.Ssl.CustomCertificate != nil {
		return verificationCustomCertificate
	}
	return verificationHTTP
}

func customDomainOp(verb string) konnect.Operation {
	return konnect.Operation{Verb: verb, Entity: "portal_custom_domain"}
}

var portalCustomDomainCalls = apiCalls[components.CreatePortalCustomDomainRequest, components.PortalCustomDomain]{
	entity: "portal_custom_domain", parented: true,
	create: func(ctx context.Context, api konnect.API, p controller.Placement, desired components.CreatePortalCustomDomainRequest) (*components.PortalCustomDomain, error) {
		res, err := api.PortalCustomDomains.CreatePortalCustomDomain(ctx, p.ParentID, desired)
		return res.GetPortalCustomDomain(), err
	},
	update: updateCustomDomain,
	get:    getCustomDomain,
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		if _, err := getCustomDomain(ctx, api, p, id); err != nil {
			return err // gone, or another host name that is not this object's
		}
		_, err := api.PortalCustomDomains.DeletePortalCustomDomain(ctx, p.ParentID)
		return err
	},
	list: listSingleton("portal_custom_domain", func(ctx context.Context, api konnect.API, p controller.Placement) (*components.PortalCustomDomain, error) {
		res, err := api.PortalCustomDomains.GetPortalCustomDomain(ctx, p.ParentID)
		return res.GetPortalCustomDomain(), err
	}),
	id: func(_ controller.Placement, a *components.PortalCustomDomain) string { return a.Hostname },
}

// getCustomDomain reads the portal's custom domain of host name id: one
// of another host name is not found.
func getCustomDomain(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.PortalCustomDomain, error) {
	found, err := konnect.Call(ctx, customDomainOp("get"), func(ctx context.Context) (*components.PortalCustomDomain, error) {
		res, err := api.PortalCustomDomains.GetPortalCustomDomain(ctx, p.ParentID)
		return res.GetPortalCustomDomain(), err
	})
	if err != nil {
		return nil, err
	}
	if found == nil || found.Hostname != id {
		return nil, &konnect.NotFoundError{Operation: customDomainOp("get").String(), Message: "the portal's custom domain is not " + id}
	}
	return found, nil
}

// updateCustomDomain enables or disables the domain and writes its
// certificate. What Konnect cannot change (the host name, the way it is
// verified) replaces the domain: it is deleted and answered not found, so
// that the loop creates the new one.
func updateCustomDomain(ctx context.Context, api konnect.API, p controller.Placement, id string, desired components.CreatePortalCustomDomainRequest) (*components.PortalCustomDomain, error) {
	current, err := getCustomDomain(ctx, api, p, id)
	if err != nil {
		return nil, err
	}
	if current.Hostname != desired.Hostname || string(current.Ssl.DomainVerificationMethod) != verificationOf(desired) {
		if _, err := api.PortalCustomDomains.DeletePortalCustomDomain(ctx, p.ParentID); err != nil {
			return nil, err
		}
		return nil, &konnect.NotFoundError{Operation: customDomainOp("update").String(), Message: "the custom domain was replaced: a new one is created"}
	}
	patch := components.UpdatePortalCustomDomainRequest{Enabled: &desired.Enabled}
	if c := desired.Ssl.CustomCertificate; c != nil {
		patch.Ssl = &components.UpdatePortalCustomDomainSSL{CustomCertificate: &c.CustomCertificate, CustomPrivateKey: &c.CustomPrivateKey, SkipCaCheck: c.SkipCaCheck}
	}
	res, err := api.PortalCustomDomains.UpdatePortalCustomDomain(ctx, p.ParentID, patch)
	return res.GetPortalCustomDomain(), err
}
