package entities

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongUpstream = *configurationv1alpha1.KongUpstream

// UpstreamAdapter reconciles KongUpstreams into Konnect upstreams.
type UpstreamAdapter struct {
	Refs         *Refs
	Certificates *controller.Informer[kongCertificate]
}

var (
	_ controller.DependentAdapter[kongUpstream, konnect.Upstream] = (*UpstreamAdapter)(nil)
	_ controller.Adopter[kongUpstream, konnect.Upstream]          = (*UpstreamAdapter)(nil)
)

// GroupVersionKind implements controller.Adapter.
func (a *UpstreamAdapter) GroupVersionKind() schema.GroupVersionKind {
	return configurationGVK(kindUpstream)
}

// Managed implements controller.Adapter.
func (a *UpstreamAdapter) Managed(u kongUpstream) bool { return u.Spec.ControlPlaneRef.IsKonnect() }

// ConditionTypes implements controller.Adapter.
func (a *UpstreamAdapter) ConditionTypes() []string {
	return append([]string{commonv1alpha1.ConditionKongCertificateRefValid}, controlPlaneConditionTypes...)
}

// Resolve implements controller.Adapter. The client certificate, when
// referenced, must be Programmed in the upstream's control plane.
func (a *UpstreamAdapter) Resolve(_ context.Context, u kongUpstream, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	from := referrerOf(a.GroupVersionKind(), u)
	status := u.ControlPlaneStatus(true)
	a.Refs.placeUnderControlPlane(b, from, u.Spec.ControlPlaneRef, status)
	if cpID := b.res.Placement.ControlPlaneID; purpose == controller.ForSync && cpID != "" {
		u.Status.Konnect.CertificateID = a.Refs.certificateRef(b, a.Certificates, from, u.Spec.ClientCertificateRef, cpID)
	}
	return b.done(), nil
}

// Desired implements controller.Adapter. Konnect's defaults are sent for
// unset fields, so that an update overwrites values changed out of band.
func (a *UpstreamAdapter) Desired(_ context.Context, u kongUpstream, _ controller.Placement) (konnect.Upstream, error) {
	spec := u.Spec.KongUpstreamAPISpec
	desired := konnect.Upstream{
		Name:                     spec.Name,
		Algorithm:                orDefault(spec.Algorithm, "round-robin"),
		HashOn:                   orDefault(spec.HashOn, "none"),
		HashOnHeader:             spec.HashOnHeader,
		HashOnCookie:             spec.HashOnCookie,
		HashOnCookiePath:         orDefault(spec.HashOnCookiePath, "/"),
		HashOnQueryArg:           spec.HashOnQueryArg,
		HashOnURICapture:         spec.HashOnURICapture,
		HashFallback:             orDefault(spec.HashFallback, "none"),
		HashFallbackHeader:       spec.HashFallbackHeader,
		HashFallbackQueryArg:     spec.HashFallbackQueryArg,
		HashFallbackURICapture:   spec.HashFallbackURICapture,
		HostHeader:               spec.HostHeader,
		Slots:                    intOrDefault(spec.Slots, 10000),
		StickySessionsCookie:     spec.StickySessionsCookie,
		StickySessionsCookiePath: orDefault(spec.StickySessionsCookiePath, "/"),
		UseSRVName:               boolOrDefault(spec.UseSrvName, false),
		Healthchecks:             healthchecks(spec.Healthchecks),
		Tags:                     controller.Tags(u, a.GroupVersionKind(), spec.Tags, u),
	}
	switch {
	case u.Spec.ClientCertificateRef != nil:
		desired.ClientCertificateID = u.Status.Konnect.CertificateID
	case spec.ClientCertificate != nil:
		// The deprecated raw Konnect ID is passed through as given.
		desired.ClientCertificateID = deref(spec.ClientCertificate.ID)
	}
	return desired, nil
}

// Create implements controller.Adapter.
func (a *UpstreamAdapter) Create(ctx context.Context, c *konnect.Client, _ kongUpstream, p controller.Placement, desired konnect.Upstream) (string, error) {
	created, err := c.CreateUpstream(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *UpstreamAdapter) Update(ctx context.Context, c *konnect.Client, _ kongUpstream, p controller.Placement, id string, desired konnect.Upstream) error {
	_, err := c.UpsertUpstream(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter. Konnect refuses to delete an
// upstream that still has targets; those cannot exist without it, so they
// are deleted first.
func (a *UpstreamAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongUpstream, p controller.Placement, id string) error {
	err := c.DeleteUpstream(ctx, p.ControlPlaneID, id)
	if !refusedForChildren(err) {
		return err
	}
	targets, listErr := c.ListTargets(ctx, p.ControlPlaneID, konnect.ListFilter{})
	if listErr != nil {
		return errors.Join(err, listErr)
	}
	for _, t := range targets {
		if t.UpstreamID != id {
			continue
		}
		if err := c.DeleteTarget(ctx, p.ControlPlaneID, id, t.ID); err != nil && !konnect.IsNotFound(err) {
			return err
		}
	}
	return c.DeleteUpstream(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *UpstreamAdapter) FindByUID(ctx context.Context, c *konnect.Client, u kongUpstream, p controller.Placement) (string, error) {
	found, err := c.ListUpstreams(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(u)}})
	return firstID(found, func(u konnect.Upstream) string { return u.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *UpstreamAdapter) Dependencies() []controller.Dependency[kongUpstream] {
	return []controller.Dependency[kongUpstream]{
		controlPlaneDependency(a.Refs, func(u kongUpstream) []string {
			return controlPlaneKeys(u.Spec.ControlPlaneRef, u.Namespace)
		}),
		{
			Name:   "clientCertificate",
			Source: a.Certificates,
			Keys:   func(u kongUpstream) []string { return namespacedRefKeys(u.Spec.ClientCertificateRef, u.Namespace) },
		},
		grantDependency(a.Refs, func(u kongUpstream) []string {
			return otherNamespaces(u.Namespace,
				controlPlaneNamespace(u.Spec.ControlPlaneRef, u.Namespace),
				namespacedRefNamespace(u.Spec.ClientCertificateRef, u.Namespace))
		}),
	}
}

// AdoptOptions implements controller.Adopter.
func (a *UpstreamAdapter) AdoptOptions(u kongUpstream) *commonv1alpha1.AdoptOptions {
	return u.Spec.Adopt
}

// Fetch implements controller.Adopter.
func (a *UpstreamAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongUpstream, p controller.Placement, id string) (konnect.Upstream, string, error) {
	u, err := c.GetUpstream(ctx, p.ControlPlaneID, id)
	return u, controller.UIDFromTags(u.Tags), err
}

// Differences implements controller.Adopter: the name, the balancing and
// hashing settings, the health checks, the host header and the slots, with
// Konnect's defaults for unset values. use_srv_name, the tags and the client
// certificate are not compared.
func (a *UpstreamAdapter) Differences(desired, actual konnect.Upstream) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("algorithm", desired.Algorithm == orDefault(actual.Algorithm, "round-robin"))
	d.check("hash_on", desired.HashOn == orDefault(actual.HashOn, "none"))
	d.check("hash_fallback", desired.HashFallback == orDefault(actual.HashFallback, "none"))
	d.check("hash_on_header", desired.HashOnHeader == actual.HashOnHeader)
	d.check("hash_fallback_header", desired.HashFallbackHeader == actual.HashFallbackHeader)
	d.check("hash_on_query_arg", desired.HashOnQueryArg == actual.HashOnQueryArg)
	d.check("hash_fallback_query_arg", desired.HashFallbackQueryArg == actual.HashFallbackQueryArg)
	d.check("hash_on_uri_capture", desired.HashOnURICapture == actual.HashOnURICapture)
	d.check("hash_fallback_uri_capture", desired.HashFallbackURICapture == actual.HashFallbackURICapture)
	d.check("hash_on_cookie", desired.HashOnCookie == actual.HashOnCookie)
	d.check("hash_on_cookie_path", desired.HashOnCookiePath == orDefault(actual.HashOnCookiePath, "/"))
	d.check("host_header", desired.HostHeader == actual.HostHeader)
	d.check("slots", intOr(desired.Slots, 10000) == intOr(actual.Slots, 10000))
	d.check("sticky_sessions_cookie", desired.StickySessionsCookie == actual.StickySessionsCookie)
	d.check("sticky_sessions_cookie_path", desired.StickySessionsCookiePath == orDefault(actual.StickySessionsCookiePath, "/"))
	d.check("healthchecks", sameHealthchecks(desired.Healthchecks, actual.Healthchecks))
	return d
}

func intOrDefault(p *int64, def int) *int {
	if p == nil {
		return &def
	}
	v := int(*p)
	return &v
}

func boolOrDefault(p *bool, def bool) *bool {
	if p == nil {
		return &def
	}
	return p
}
