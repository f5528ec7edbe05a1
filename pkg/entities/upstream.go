package entities

import (
	"context"
	"errors"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"
	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongUpstream = *configurationv1alpha1.KongUpstream

// UpstreamKind describes KongUpstreams: Konnect upstreams of a control
// plane, presenting the client certificate of a KongCertificate when one is
// named.
func UpstreamKind(refs *Refs, certs *controller.Informer[kongCertificate]) controller.Kind[kongUpstream, components.Upstream] {
	gvk := configurationGVK(kindUpstream)
	certificate := func(u kongUpstream) *commonv1alpha1.NamespacedRef { return u.Spec.ClientCertificateRef }
	placed := underControlPlane(refs, gvk, func(u kongUpstream) *cpRef { return u.Spec.ControlPlaneRef }).
		with(reference[kongUpstream]{
			conditions: []string{commonv1alpha1.ConditionKongCertificateRefValid},
			resolve: func(b *resolver, u kongUpstream) {
				// The certificate must be in the upstream's control plane, so
				// it is looked at once that is known; deleting needs neither.
				if cpID := b.res.Placement.ControlPlaneID; !b.forDelete() && cpID != "" {
					u.Status.Konnect.CertificateID = refs.certificateRef(b, certs, referrerOf(gvk, u), certificate(u), cpID)
				}
			},
			dependencies: []controller.Dependency[kongUpstream]{{
				Name:   "clientCertificate",
				Source: certs,
				Keys:   func(u kongUpstream) []string { return namespacedRefKeys(certificate(u), u.Namespace) },
			}},
			namespaces: func(u kongUpstream) []string {
				return []string{namespacedRefNamespace(certificate(u), u.Namespace)}
			},
		})
	return core[kongUpstream, components.Upstream, components.Upstream]{
		gvk:    gvk,
		placed: placed,
		calls:  upstreamCalls,
		desired: func(u kongUpstream, p controller.Placement) (components.Upstream, error) {
			return upstreamBody(u, gvk, p), nil
		},
		remove:    deleteUpstream,
		adopt:     func(u kongUpstream) *adoptOptions { return u.Spec.Adopt },
		matches:   upstreamMatches,
		uniqueKey: func(body components.Upstream) string { return body.Name },
	}.kind()
}

// upstreamBody is the upstream a KongUpstream asks for. Unset fields are
// left out and the SDK sends Konnect's defaults for them, so that an update
// overwrites values changed out of band.
func upstreamBody(u kongUpstream, gvk schema.GroupVersionKind, p controller.Placement) components.Upstream {
	spec := u.Spec.KongUpstreamAPISpec
	body := components.Upstream{
		Name:                     spec.Name,
		Algorithm:                optional(components.UpstreamAlgorithm(spec.Algorithm)),
		HashOn:                   optional(components.HashOn(spec.HashOn)),
		HashOnHeader:             optional(spec.HashOnHeader),
		HashOnCookie:             optional(spec.HashOnCookie),
		HashOnCookiePath:         optional(spec.HashOnCookiePath),
		HashOnQueryArg:           optional(spec.HashOnQueryArg),
		HashOnURICapture:         optional(spec.HashOnURICapture),
		HashFallback:             optional(components.HashFallback(spec.HashFallback)),
		HashFallbackHeader:       optional(spec.HashFallbackHeader),
		HashFallbackQueryArg:     optional(spec.HashFallbackQueryArg),
		HashFallbackURICapture:   optional(spec.HashFallbackURICapture),
		HostHeader:               optional(spec.HostHeader),
		Slots:                    spec.Slots,
		StickySessionsCookie:     optional(spec.StickySessionsCookie),
		StickySessionsCookiePath: optional(spec.StickySessionsCookiePath),
		UseSrvName:               spec.UseSrvName,
		Healthchecks:             healthchecks(spec.Healthchecks),
		Tags:                     controller.Tags(u, gvk, p.Cluster, spec.Tags, u),
	}
	certificateID := ""
	switch {
	case u.Spec.ClientCertificateRef != nil:
		if u.Status.Konnect != nil {
			certificateID = u.Status.Konnect.CertificateID
		}
	case spec.ClientCertificate != nil:
		// The deprecated raw Konnect ID is passed through as given.
		certificateID = deref(spec.ClientCertificate.ID)
	}
	if certificateID != "" {
		body.ClientCertificate = &components.UpstreamClientCertificate{ID: &certificateID}
	}
	return body
}

// upstreamMatches compares the name, the balancing and hashing settings,
// the health checks, the host header and the slots, with Konnect's defaults
// for unset values. use_srv_name, the tags and the client certificate are
// not compared.
func upstreamMatches(desired components.Upstream, actual *components.Upstream) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("algorithm", orDefault(deref(desired.Algorithm), components.UpstreamAlgorithmRoundRobin) == orDefault(deref(actual.Algorithm), components.UpstreamAlgorithmRoundRobin))
	d.check("hash_on", orDefault(deref(desired.HashOn), components.HashOnNone) == orDefault(deref(actual.HashOn), components.HashOnNone))
	d.check("hash_fallback", orDefault(deref(desired.HashFallback), components.HashFallbackNone) == orDefault(deref(actual.HashFallback), components.HashFallbackNone))
	d.check("hash_on_header", deref(desired.HashOnHeader) == deref(actual.HashOnHeader))
	d.check("hash_fallback_header", deref(desired.HashFallbackHeader) == deref(actual.HashFallbackHeader))
	d.check("hash_on_query_arg", deref(desired.HashOnQueryArg) == deref(actual.HashOnQueryArg))
	d.check("hash_fallback_query_arg", deref(desired.HashFallbackQueryArg) == deref(actual.HashFallbackQueryArg))
	d.check("hash_on_uri_capture", deref(desired.HashOnURICapture) == deref(actual.HashOnURICapture))
	d.check("hash_fallback_uri_capture", deref(desired.HashFallbackURICapture) == deref(actual.HashFallbackURICapture))
	d.check("hash_on_cookie", deref(desired.HashOnCookie) == deref(actual.HashOnCookie))
	d.check("hash_on_cookie_path", orDefault(deref(desired.HashOnCookiePath), "/") == orDefault(deref(actual.HashOnCookiePath), "/"))
	d.check("host_header", deref(desired.HostHeader) == deref(actual.HostHeader))
	d.check("slots", orDefault(deref(desired.Slots), 10000) == orDefault(deref(actual.Slots), 10000))
	d.check("sticky_sessions_cookie", deref(desired.StickySessionsCookie) == deref(actual.StickySessionsCookie))
	d.check("sticky_sessions_cookie_path", orDefault(deref(desired.StickySessionsCookiePath), "/") == orDefault(deref(actual.StickySessionsCookiePath), "/"))
	d.check("healthchecks", sameHealthchecks(desired.Healthchecks, actual.Healthchecks))
	return d
}

// deleteUpstream deletes an upstream. Konnect refuses while it has
// targets; those cannot exist without it, so they are deleted first.
func deleteUpstream(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
	err := upstreamCalls.doDelete(ctx, api, p, id)
	if !refusedForChildren(err) {
		return err
	}
	under := p
	under.ParentID = id
	targets, listErr := targetCalls.doList(ctx, api, under)
	if listErr != nil {
		return errors.Join(err, listErr)
	}
	for i := range targets {
		if err := targetCalls.doDelete(ctx, api, under, deref(targets[i].ID)); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	return upstreamCalls.doDelete(ctx, api, p, id)
}

var upstreamCalls = coreCalls[components.Upstream, components.Upstream]{
	entity: "upstream",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.Upstream) (*components.Upstream, error) {
		res, err := api.Upstreams.CreateUpstream(ctx, p.ControlPlaneID, body)
		return res.GetUpstream(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.Upstream) (*components.Upstream, error) {
		res, err := api.Upstreams.UpsertUpstream(ctx, operations.UpsertUpstreamRequest{ControlPlaneID: p.ControlPlaneID, UpstreamID: id, Upstream: body})
		return res.GetUpstream(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Upstream, error) {
		res, err := api.Upstreams.GetUpstream(ctx, id, p.ControlPlaneID)
		return res.GetUpstream(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.Upstreams.DeleteUpstream(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Upstream, *string, error) {
		res, err := api.Upstreams.ListUpstream(ctx, operations.ListUpstreamRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   (*components.Upstream).GetID,
	tags: (*components.Upstream).GetTags,
}
