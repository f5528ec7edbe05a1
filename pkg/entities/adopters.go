package entities

import (
	"context"
	"encoding/json"
	"slices"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// spec.adopt for routes (services: service.go; consumers, consumer groups
// and plugin bindings: their kinds). Fetch reads the entity named by
// spec.adopt.konnect.id in the resolved control plane; Differences lists
// the fields that match mode compares (api-reference §3.4), with Konnect's
// defaults standing in for unset values.

var (
	_ controller.Adopter[kongRoute, konnect.Route] = (*RouteAdapter)(nil)
	_ controller.AdoptPrecondition[konnect.Route]  = (*RouteAdapter)(nil)
)

// AdoptOptions implements controller.Adopter.
func (a *RouteAdapter) AdoptOptions(route kongRoute) *commonv1alpha1.AdoptOptions {
	return route.Spec.Adopt
}

// Fetch implements controller.Adopter.
func (a *RouteAdapter) Fetch(ctx context.Context, c *konnect.Client, _ kongRoute, p controller.Placement, id string) (konnect.Route, string, error) {
	r, err := c.GetRoute(ctx, p.ControlPlaneID, id)
	return r, controller.UIDFromTags(r.Tags), err
}

// Incompatibilities implements controller.AdoptPrecondition: a route is
// only adopted when it already leads to the route's service (or, for a
// service-less route, to none).
func (a *RouteAdapter) Incompatibilities(desired, actual konnect.Route) []string {
	var d diff
	d.check("service", desired.ServiceID == actual.ServiceID)
	return d
}

// Differences implements controller.Adopter.
func (a *RouteAdapter) Differences(desired, actual konnect.Route) []string {
	var d diff
	d.check("name", desired.Name == actual.Name)
	d.check("hosts", sameSet(desired.Hosts, actual.Hosts))
	d.check("paths", sameSet(desired.Paths, actual.Paths))
	d.check("methods", sameSet(desired.Methods, actual.Methods))
	d.check("headers", sameHeaders(desired.Headers, actual.Headers))
	d.check("regex_priority", intOr(desired.RegexPriority, 0) == intOr(actual.RegexPriority, 0))
	d.check("https_redirect_status_code", intOr(desired.HTTPSRedirectStatusCode, 426) == intOr(actual.HTTPSRedirectStatusCode, 426))
	d.check("snis", sameSet(desired.SNIs, actual.SNIs))
	d.check("path_handling", orDefault(desired.PathHandling, "v0") == orDefault(actual.PathHandling, "v0"))
	d.check("sources", sameEndpoints(desired.Sources, actual.Sources))
	d.check("destinations", sameEndpoints(desired.Destinations, actual.Destinations))
	return d
}

// sameSet reports whether two lists hold the same values, in any order
// (nil and empty are equal).
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

func sameHeaders(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for name, values := range a {
		other, ok := b[name]
		if !ok || !sameSet(values, other) {
			return false
		}
	}
	return true
}

func sameEndpoints(a, b []konnect.RouteEndpoint) bool {
	text := func(eps []konnect.RouteEndpoint) []string {
		out := make([]string, 0, len(eps))
		for _, e := range eps {
			raw, _ := json.Marshal(e)
			out = append(out, string(raw))
		}
		return out
	}
	return sameSet(text(a), text(b))
}
