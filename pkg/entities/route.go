package entities

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongRoute = *configurationv1alpha1.KongRoute

// RouteKind describes KongRoutes: Konnect routes leading to the KongService
// they name or, without one, placed directly in a control plane. A route
// without a name is created under the object's UID, as its ID.
func RouteKind(refs *Refs, services *controller.Informer[kongService]) controller.Kind[kongRoute, components.Route] {
	gvk := configurationGVK("KongRoute")
	return core[kongRoute, components.Route, components.Route]{
		gvk:    gvk,
		placed: routePlacement(refs, gvk, services),
		calls:  routeCalls,
		desired: func(route kongRoute, p controller.Placement) (components.Route, error) {
			return routeBody(route, gvk, p), nil
		},
		createUnder: func(route kongRoute, body components.Route) string {
			if r := body.RouteJSON; r.Name == nil && r.ID == nil {
				return string(route.UID)
			}
			return ""
		},
		adopt:     func(route kongRoute) *adoptOptions { return route.Spec.Adopt },
		matches:   routeMatches,
		mustMatch: routeMustMatch,
		uniqueKey: func(body components.Route) string {
			if body.RouteJSON == nil {
				return ""
			}
			return deref(body.RouteJSON.Name)
		},
	}.kind()
}

// routeServiceRef is a route's reference to its KongService.
var routeServiceRef = parentRef[kongRoute]{
	kind:      "KongService",
	condition: commonv1alpha1.ConditionKongServiceRefValid,
	name:      serviceRefOf,
	record:    func(route kongRoute, id string) { route.Status.Konnect.ServiceID = id },
}

// serviceRefOf returns the KongService a route names, if any.
func serviceRefOf(route kongRoute) (namespace, name string, ok bool) {
	ref := route.Spec.ServiceRef
	if ref == nil || ref.NamespacedRef == nil {
		return "", "", false
	}
	return namespaceOr(ref.NamespacedRef.Namespace, route.Namespace), ref.NamespacedRef.Name, true
}

// routePlacement places a route under its service, in the service's control
// plane, or, without a service, in the control plane it names. A route
// naming both has its control-plane reference checked for its conditions,
// but lives where its service does.
func routePlacement(refs *Refs, gvk schemaGVK, services *controller.Informer[kongService]) placed[kongRoute] {
	controlPlaneRef := func(route kongRoute) *cpRef { return route.Spec.ControlPlaneRef }
	placed := underControlPlane(refs, gvk, controlPlaneRef)
	placed.conditions = append([]string{routeServiceRef.condition}, placed.conditions...)
	placed.steps = []func(*resolver, kongRoute){func(b *resolver, route kongRoute) {
		if _, _, ok := routeServiceRef.name(route); !ok {
			route.ControlPlaneStatus(true)
			route.Status.Konnect.ServiceID = ""
			refs.placeUnderControlPlane(b, referrerOf(gvk, route), route.Spec.ControlPlaneRef, route.ControlPlaneStatus(true))
			return
		}
		if route.Spec.ControlPlaneRef.IsKonnect() {
			refs.controlPlane(b, referrerOf(gvk, route), route.Spec.ControlPlaneRef, false, false)
		}
		placeUnderParent(b, refs, gvk, services, func(svc kongService) *cpRef { return svc.Spec.ControlPlaneRef }, routeServiceRef, route)
	}}
	placed.dependencies = append(placed.dependencies, parentDependency(services, routeServiceRef))
	placed.namespaces = append(placed.namespaces, func(route kongRoute) []string {
		namespace, _, _ := routeServiceRef.name(route)
		return []string{namespace}
	})
	placed.managed = func(route kongRoute) bool {
		if route.Spec.ControlPlaneRef.IsKonnect() {
			return true
		}
		namespace, name, ok := routeServiceRef.name(route)
		if !ok {
			return false
		}
		svc, err := services.Get(namespace, name)
		// A missing service is reported on the route rather than ignored.
		return err != nil || svc.Spec.ControlPlaneRef.IsKonnect()
	}
	return placed
}

// routeBody is the route a KongRoute asks for; its service is the one
// resolving placed it under.
func routeBody(route kongRoute, gvk schemaGVK, p controller.Placement) components.Route {
	spec := route.Spec.KongRouteAPISpec
	body := components.RouteJSON{
		ID:                optional(spec.ID),
		Name:              optional(spec.Name),
		Hosts:             spec.Hosts,
		Methods:           spec.Methods,
		Paths:             spec.Paths,
		Headers:           spec.Headers,
		Snis:              spec.SNIs,
		PreserveHost:      spec.PreserveHost,
		RegexPriority:     spec.RegexPriority,
		RequestBuffering:  spec.RequestBuffering,
		ResponseBuffering: spec.ResponseBuffering,
		StripPath:         spec.StripPath,
		Tags:              controller.Tags(route, gvk, p.Cluster, spec.Tags, route),
	}
	for _, p := range spec.Protocols {
		body.Protocols = append(body.Protocols, components.RouteJSONProtocols(p))
	}
	for _, e := range spec.Sources {
		body.Sources = append(body.Sources, components.Sources{IP: e.IP, Port: e.Port})
	}
	for _, e := range spec.Destinations {
		body.Destinations = append(body.Destinations, components.Destinations{IP: e.IP, Port: e.Port})
	}
	if code := spec.HTTPSRedirectStatusCode; code != nil {
		body.HTTPSRedirectStatusCode = components.HTTPSRedirectStatusCode(*code).ToPointer()
	}
	if spec.PathHandling != "" {
		body.PathHandling = components.PathHandling(spec.PathHandling).ToPointer()
	}
	if p.ParentID != "" {
		body.Service = &components.RouteJSONService{ID: &p.ParentID}
	}
	return components.CreateRouteRouteJSON(body)
}

// routeMustMatch: a route is only adopted when it already leads to the
// route's service (or, for a service-less route, to none).
func routeMustMatch(desired components.Route, actual *components.Route) []string {
	var d diff
	d.check("service", routeServiceID(&desired) == routeServiceID(actual))
	return d
}

// routeMatches compares what match mode compares, with Konnect's defaults
// for unset values.
func routeMatches(desired components.Route, actual *components.Route) []string {
	want, got := desired.RouteJSON, actual.RouteJSON
	if got == nil {
		return []string{"expression"}
	}
	var d diff
	d.check("name", deref(want.Name) == deref(got.Name))
	d.check("hosts", sameSet(want.Hosts, got.Hosts))
	d.check("paths", sameSet(want.Paths, got.Paths))
	d.check("methods", sameSet(want.Methods, got.Methods))
	d.check("headers", sameHeaders(want.Headers, got.Headers))
	d.check("regex_priority", deref(want.RegexPriority) == deref(got.RegexPriority))
	d.check("https_redirect_status_code", orDefault(deref(want.HTTPSRedirectStatusCode), 426) == orDefault(deref(got.HTTPSRedirectStatusCode), 426))
	d.check("snis", sameSet(want.Snis, got.Snis))
	d.check("path_handling", orDefault(deref(want.PathHandling), "v0") == orDefault(deref(got.PathHandling), "v0"))
	d.check("sources", sameAsJSONSet(want.Sources, got.Sources))
	d.check("destinations", sameAsJSONSet(want.Destinations, got.Destinations))
	return d
}

// sameAsJSONSet compares two lists as sets of their JSON forms.
func sameAsJSONSet[E any](a, b []E) bool {
	text := func(items []E) []string {
		out := make([]string, 0, len(items))
		for _, item := range items {
			raw, _ := json.Marshal(item)
			out = append(out, string(raw))
		}
		return out
	}
	return sameSet(text(a), text(b))
}

func routeServiceID(r *components.Route) string {
	if r.RouteJSON != nil && r.RouteJSON.Service != nil {
		return deref(r.RouteJSON.Service.ID)
	}
	if r.RouteExpression != nil && r.RouteExpression.Service != nil {
		return deref(r.RouteExpression.Service.ID)
	}
	return ""
}

func routeID(r *components.Route) *string {
	if r.RouteJSON != nil {
		return r.RouteJSON.ID
	}
	return r.RouteExpression.GetID()
}

func routeTags(r *components.Route) []string {
	if r.RouteJSON != nil {
		return r.RouteJSON.Tags
	}
	return r.RouteExpression.GetTags()
}

var routeCalls = coreCalls[components.Route, components.Route]{
	entity: "route",
	create: func(ctx context.Context, api konnect.API, p controller.Placement, body components.Route) (*components.Route, error) {
		res, err := api.Routes.CreateRoute(ctx, p.ControlPlaneID, body)
		return res.GetRoute(), err
	},
	upsert: func(ctx context.Context, api konnect.API, p controller.Placement, id string, body components.Route) (*components.Route, error) {
		res, err := api.Routes.UpsertRoute(ctx, operations.UpsertRouteRequest{ControlPlaneID: p.ControlPlaneID, RouteID: id, Route: body})
		return res.GetRoute(), err
	},
	get: func(ctx context.Context, api konnect.API, p controller.Placement, id string) (*components.Route, error) {
		res, err := api.Routes.GetRoute(ctx, id, p.ControlPlaneID)
		return res.GetRoute(), err
	},
	remove: func(ctx context.Context, api konnect.API, p controller.Placement, id string) error {
		_, err := api.Routes.DeleteRoute(ctx, p.ControlPlaneID, id)
		return err
	},
	list: func(ctx context.Context, api konnect.API, p controller.Placement, page konnect.Page) ([]components.Route, *string, error) {
		res, err := api.Routes.ListRoute(ctx, operations.ListRouteRequest{ControlPlaneID: p.ControlPlaneID, Size: &page.Size, Offset: page.Offset, Tags: page.Tags})
		return res.GetObject().GetData(), res.GetObject().GetOffset(), err
	},
	id:   routeID,
	tags: routeTags,
}

// sameSet reports whether two lists hold the same strings, in any order
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
