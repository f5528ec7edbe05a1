package export

import (
	"cmp"
	"slices"

	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
)

// Kinds of the objects an export writes.
const (
	kindControlPlane  = "KonnectGatewayControlPlane"
	kindService       = "KongService"
	kindRoute         = "KongRoute"
	kindUpstream      = "KongUpstream"
	kindTarget        = "KongTarget"
	kindCertificate   = "KongCertificate"
	kindCACertificate = "KongCACertificate"
	kindSNI           = "KongSNI"
	kindConsumer      = "KongConsumer"
	kindConsumerGroup = "KongConsumerGroup"
	kindKeySet        = "KongKeySet"
	kindKey           = "KongKey"
	kindVault         = "KongVault"
	kindSecret        = "Secret"
)

func typeMeta(gv metav1.GroupVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: gv.String(), Kind: kind}
}

// sortedByID orders entities by their IDs, so that names handed out in
// that order are the same on every run.
func sortedByID[E any](items []E, id func(*E) *string) []E {
	out := slices.Clone(items)
	slices.SortFunc(out, func(a, b E) int { return cmp.Compare(deref(id(&a)), deref(id(&b))) })
	return out
}

// controlPlane mirrors the control plane: the operator reads it and never
// writes it, and Kong Operator's KonnectGatewayControlPlane has no
// spec.adopt (a mirror is how both take over an existing control plane).
// Entities placed in it are adopted one by one.
func (b *builder) controlPlane(cp components.ControlPlane) {
	b.cpName = b.names.name(kindControlPlane, cp.Name, "control-plane", cp.ID)
	mirror := konnectv1alpha2.ControlPlaneSourceMirror
	b.add(&konnectv1alpha2.KonnectGatewayControlPlane{
		TypeMeta:   typeMeta(konnectv1alpha2.GroupVersion, kindControlPlane),
		ObjectMeta: b.meta(b.cpName),
		Spec: konnectv1alpha2.KonnectGatewayControlPlaneSpec{
			Source:  &mirror,
			Mirror:  &konnectv1alpha2.MirrorSpec{Konnect: konnectv1alpha2.MirrorKonnect{ID: cp.ID}},
			Konnect: &konnectv1alpha2.KonnectConfiguration{AuthRef: konnectv1alpha2.KonnectAPIAuthConfigurationRef{Name: b.opts.AuthConfiguration}},
		},
	}, kindControlPlane, cp.ID, b.cpName)
	if cp.Config.ClusterType == components.ControlPlaneClusterTypeClusterTypeControlPlaneGroup {
		b.note("control plane %s is a control-plane group: its entities live in its members, export each member", cp.Name)
	}
}

func (b *builder) services(c entities.Contents) error {
	for _, s := range sortedByID(c.Services, func(s *components.ServiceOutput) *string { return s.ID }) {
		id := deref(s.ID)
		name := b.names.name(kindService, deref(s.Name), "service", id)
		spec := configurationv1alpha1.KongServiceAPISpec{
			Name: deref(s.Name), Host: s.Host, Path: deref(s.Path),
			Retries: s.Retries, ConnectTimeout: s.ConnectTimeout, ReadTimeout: s.ReadTimeout, WriteTimeout: s.WriteTimeout,
			Enabled: s.Enabled, TLSVerify: s.TLSVerify, TLSVerifyDepth: s.TLSVerifyDepth,
			Port: deref(s.Port), Protocol: string(deref(s.Protocol)),
			Tags: b.userTags("service", id, s.Tags),
		}
		obj := &configurationv1alpha1.KongService{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, kindService),
			ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.KongServiceSpec{
				ControlPlaneRef: b.controlPlaneRef(), Adopt: adopt(id), KongServiceAPISpec: spec,
			},
		}
		if cert := deref(s.ClientCertificate).ID; cert != nil {
			if ref := b.nameOf(kindCertificate, *cert); ref != "" {
				obj.Spec.ClientCertificateRef = &commonv1alpha1.NamespacedRef{Name: ref}
			} else {
				b.skip("service", id, "its client certificate "+*cert+" is not exported")
				continue
			}
		}
		missing := false
		for _, ca := range s.CaCertificates {
			ref := b.nameOf(kindCACertificate, ca)
			missing = missing || ref == ""
			obj.Spec.CACertificateRefs = append(obj.Spec.CACertificateRefs, commonv1alpha1.NamespacedRef{Name: ref})
		}
		if missing {
			b.skip("service", id, "one of its CA certificates is not exported")
			continue
		}
		if s.TLSSans != nil {
			b.note("KongService %s: tls_sans of service %s has no field in KongService; the operator's next write of it clears them", name, id)
		}
		b.add(obj, kindService, id, name)
	}
	return nil
}

func (b *builder) routes(c entities.Contents) error {
	routes := make([]components.RouteJSON, 0, len(c.Routes))
	for _, r := range c.Routes {
		if r.RouteJSON == nil || !hasMatcher(r.RouteJSON) {
			b.skip("route", deref(routeID(r)), "an expression route (or one without matchers); KongRoute has no expression")
			continue
		}
		routes = append(routes, *r.RouteJSON)
	}
	for _, r := range sortedByID(routes, func(r *components.RouteJSON) *string { return r.ID }) {
		id := deref(r.ID)
		name := b.names.name(kindRoute, deref(r.Name), "route", id)
		spec := configurationv1alpha1.KongRouteAPISpec{
			Name: deref(r.Name), Hosts: r.Hosts, Methods: r.Methods, Paths: r.Paths, Headers: r.Headers, SNIs: r.Snis,
			PreserveHost: r.PreserveHost, RegexPriority: r.RegexPriority, RequestBuffering: r.RequestBuffering,
			ResponseBuffering: r.ResponseBuffering, StripPath: r.StripPath, PathHandling: string(deref(r.PathHandling)),
			Tags: b.userTags("route", id, r.Tags),
		}
		for _, p := range r.Protocols {
			spec.Protocols = append(spec.Protocols, string(p))
		}
		for _, s := range r.Sources {
			spec.Sources = append(spec.Sources, configurationv1alpha1.RouteEndpoint{IP: s.IP, Port: s.Port})
		}
		for _, d := range r.Destinations {
			spec.Destinations = append(spec.Destinations, configurationv1alpha1.RouteEndpoint{IP: d.IP, Port: d.Port})
		}
		if code := r.HTTPSRedirectStatusCode; code != nil {
			value := int64(*code)
			spec.HTTPSRedirectStatusCode = &value
		}
		obj := &configurationv1alpha1.KongRoute{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, kindRoute),
			ObjectMeta: b.meta(name),
			Spec:       configurationv1alpha1.KongRouteSpec{Adopt: adopt(id), KongRouteAPISpec: spec},
		}
		if service := deref(deref(r.Service).ID); service != "" {
			ref := b.nameOf(kindService, service)
			if ref == "" {
				b.skip("route", id, "its service "+service+" is not exported")
				continue
			}
			obj.Spec.ServiceRef = &configurationv1alpha1.ServiceRef{
				Type: configurationv1alpha1.ServiceRefTypeNamespacedRef, NamespacedRef: &commonv1alpha1.NamespacedRef{Name: ref},
			}
		} else {
			obj.Spec.ControlPlaneRef = b.controlPlaneRef()
		}
		b.add(obj, kindRoute, id, name)
	}
	return nil
}

func (b *builder) upstreams(c entities.Contents) error {
	for _, u := range sortedByID(c.Upstreams, func(u *components.Upstream) *string { return u.ID }) {
		id := deref(u.ID)
		name := b.names.name(kindUpstream, u.Name, "upstream", id)
		checks, err := entities.HealthchecksSpec(u.Healthchecks)
		if err != nil {
			return err
		}
		spec := configurationv1alpha1.KongUpstreamAPISpec{
			Name: u.Name, Algorithm: string(deref(u.Algorithm)), HashOn: string(deref(u.HashOn)), HashFallback: string(deref(u.HashFallback)),
			HashOnHeader: deref(u.HashOnHeader), HashFallbackHeader: deref(u.HashFallbackHeader),
			HashOnQueryArg: deref(u.HashOnQueryArg), HashFallbackQueryArg: deref(u.HashFallbackQueryArg),
			HashOnURICapture: deref(u.HashOnURICapture), HashFallbackURICapture: deref(u.HashFallbackURICapture),
			HashOnCookie: deref(u.HashOnCookie), HashOnCookiePath: deref(u.HashOnCookiePath), HostHeader: deref(u.HostHeader),
			Slots: u.Slots, StickySessionsCookie: deref(u.StickySessionsCookie), StickySessionsCookiePath: deref(u.StickySessionsCookiePath),
			UseSrvName: u.UseSrvName, Healthchecks: checks, Tags: b.userTags("upstream", id, u.Tags),
		}
		obj := &configurationv1alpha1.KongUpstream{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, kindUpstream),
			ObjectMeta: b.meta(name),
			Spec:       configurationv1alpha1.KongUpstreamSpec{ControlPlaneRef: b.controlPlaneRef(), Adopt: adopt(id), KongUpstreamAPISpec: spec},
		}
		if cert := deref(deref(u.ClientCertificate).ID); cert != "" {
			ref := b.nameOf(kindCertificate, cert)
			if ref == "" {
				b.skip("upstream", id, "its client certificate "+cert+" is not exported")
				continue
			}
			obj.Spec.ClientCertificateRef = &commonv1alpha1.NamespacedRef{Name: ref}
		}
		b.add(obj, kindUpstream, id, name)
	}
	return nil
}

func (b *builder) targets(c entities.Contents) error {
	for _, t := range sortedByID(c.Targets, func(t *components.Target) *string { return t.ID }) {
		id := deref(t.ID)
		upstream := b.nameOf(kindUpstream, deref(deref(t.Upstream).ID))
		if upstream == "" {
			b.skip("target", id, "its upstream is not exported")
			continue
		}
		name := b.names.name(kindTarget, "", upstream+"-target", id)
		if deref(t.Failover) {
			b.note("KongTarget %s: target %s is a failover target, which KongTarget cannot say; the operator's next write of it makes it a regular one", name, id)
		}
		b.add(&configurationv1alpha1.KongTarget{
			TypeMeta:   typeMeta(configurationv1alpha1.GroupVersion, kindTarget),
			ObjectMeta: b.meta(name),
			Spec: configurationv1alpha1.KongTargetSpec{
				UpstreamRef: commonv1alpha1.NamespacedRef{Name: upstream}, Adopt: adopt(id),
				KongTargetAPISpec: configurationv1alpha1.KongTargetAPISpec{
					Target: deref(t.Target), Weight: int(orDefault(t.Weight, 100)), Tags: b.userTags("target", id, t.Tags),
				},
			},
		}, kindTarget, id, name)
	}
	return nil
}

// orDefault is *p, or def when p is nil.
func orDefault[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func routeID(r components.Route) *string {
	if r.RouteJSON != nil {
		return r.RouteJSON.ID
	}
	return r.RouteExpression.GetID()
}

// hasMatcher reports whether a route has one of the matchers of a JSON
// route. Kong's SDK decodes an expression route as a JSON one when it can
// (its expression is then dropped), so a route without any matcher is taken
// for what Konnect would not accept as a JSON route: an expression route.
func hasMatcher(r *components.RouteJSON) bool {
	return len(r.Paths) > 0 || len(r.Hosts) > 0 || len(r.Methods) > 0 || len(r.Headers) > 0 ||
		len(r.Snis) > 0 || len(r.Sources) > 0 || len(r.Destinations) > 0
}
