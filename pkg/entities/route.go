package entities

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type kongRoute = *configurationv1alpha1.KongRoute

// RouteAdapter reconciles KongRoutes into Konnect routes, attached to a
// KongService or, without one, directly to a control plane.
type RouteAdapter struct {
	Refs     *Refs
	Services *controller.Informer[kongService]
}

var _ controller.DependentAdapter[kongRoute, konnect.Route] = (*RouteAdapter)(nil)

// GroupVersionKind implements controller.Adapter.
func (a *RouteAdapter) GroupVersionKind() schema.GroupVersionKind {
	return gvk(configurationv1alpha1.GroupVersion, "KongRoute")
}

// Managed implements controller.Adapter: a route is the operator's when it
// names a Konnect control plane, or a KongService that does.
func (a *RouteAdapter) Managed(route kongRoute) bool {
	if route.Spec.ControlPlaneRef.IsKonnect() {
		return true
	}
	namespace, name, ok := serviceRefOf(route)
	if !ok {
		return false
	}
	svc, err := a.Services.Get(namespace, name)
	// A missing service is reported on the route rather than ignored.
	return err != nil || svc.Spec.ControlPlaneRef.IsKonnect()
}

// ConditionTypes implements controller.Adapter.
func (a *RouteAdapter) ConditionTypes() []string {
	return append([]string{commonv1alpha1.ConditionKongServiceRefValid}, controlPlaneConditionTypes...)
}

func serviceRefOf(route kongRoute) (namespace, name string, ok bool) {
	ref := route.Spec.ServiceRef
	if ref == nil || ref.NamespacedRef == nil {
		return "", "", false
	}
	return namespaceOr(ref.NamespacedRef.Namespace, route.Namespace), ref.NamespacedRef.Name, true
}

// Resolve implements controller.Adapter. A route with a service inherits
// the service's control plane and credentials.
func (a *RouteAdapter) Resolve(_ context.Context, route kongRoute, purpose controller.Purpose) (controller.Resolution, error) {
	b := newResolver(purpose)
	from := referrerOf(a.GroupVersionKind(), route)
	status := route.ControlPlaneStatus(true)
	namespace, name, hasService := serviceRefOf(route)
	if !hasService {
		route.Status.Konnect.ServiceID = ""
		a.Refs.placeUnderControlPlane(b, from, route.Spec.ControlPlaneRef, status)
		return b.done(), nil
	}
	if route.Spec.ControlPlaneRef.IsKonnect() {
		// Checked for its conditions; the service's control plane is used.
		a.Refs.controlPlane(b, from, route.Spec.ControlPlaneRef, false, true)
	}
	if namespace != route.Namespace &&
		!a.Refs.crossNamespaceRef(b, from, groupConfiguration, "KongService", namespace, name) {
		b.notReady()
		return b.done(), nil
	}
	svc, serviceID := parent(b, a.Services, commonv1alpha1.ConditionKongServiceRefValid, "KongService", namespace, name)
	if serviceID == "" {
		return b.done(), nil
	}
	route.Status.Konnect.ServiceID = serviceID
	cp := a.Refs.controlPlane(b, referrerOf(a.GroupVersionKind(), svc), svc.Spec.ControlPlaneRef, false, false)
	if cp == nil {
		return b.done(), nil
	}
	b.res.Placement.Auth = a.Refs.auth(b, cp, false)
	b.placeIn(status, cp.Status.ID)
	return b.done(), nil
}

// Desired implements controller.Adapter.
func (a *RouteAdapter) Desired(_ context.Context, route kongRoute, _ controller.Placement) (konnect.Route, error) {
	spec := route.Spec.KongRouteAPISpec
	desired := konnect.Route{
		ID:                      spec.ID,
		Name:                    spec.Name,
		Protocols:               spec.Protocols,
		Methods:                 spec.Methods,
		Hosts:                   spec.Hosts,
		Paths:                   spec.Paths,
		Headers:                 spec.Headers,
		SNIs:                    spec.SNIs,
		Sources:                 routeEndpoints(spec.Sources),
		Destinations:            routeEndpoints(spec.Destinations),
		HTTPSRedirectStatusCode: intPtr(spec.HTTPSRedirectStatusCode),
		RegexPriority:           intPtr(spec.RegexPriority),
		StripPath:               spec.StripPath,
		PathHandling:            spec.PathHandling,
		PreserveHost:            spec.PreserveHost,
		RequestBuffering:        spec.RequestBuffering,
		ResponseBuffering:       spec.ResponseBuffering,
		Tags:                    controller.Tags(route, a.GroupVersionKind(), spec.Tags, route),
	}
	if route.Status.Konnect != nil {
		desired.ServiceID = route.Status.Konnect.ServiceID
	}
	return desired, nil
}

func routeEndpoints(in []configurationv1alpha1.RouteEndpoint) []konnect.RouteEndpoint {
	var out []konnect.RouteEndpoint
	for _, e := range in {
		out = append(out, konnect.RouteEndpoint{IP: deref(e.IP), Port: intPtr(e.Port)})
	}
	return out
}

// Create implements controller.Adapter. A route without a name is created
// under the object's UID, as its Konnect ID.
func (a *RouteAdapter) Create(ctx context.Context, c *konnect.Client, route kongRoute, p controller.Placement, desired konnect.Route) (string, error) {
	if desired.Name == "" && desired.ID == "" {
		created, err := c.UpsertRoute(ctx, p.ControlPlaneID, string(route.UID), desired)
		return created.ID, err
	}
	created, err := c.CreateRoute(ctx, p.ControlPlaneID, desired)
	return created.ID, err
}

// Update implements controller.Adapter.
func (a *RouteAdapter) Update(ctx context.Context, c *konnect.Client, _ kongRoute, p controller.Placement, id string, desired konnect.Route) error {
	desired.ID = ""
	_, err := c.UpsertRoute(ctx, p.ControlPlaneID, id, desired)
	return err
}

// Delete implements controller.Adapter.
func (a *RouteAdapter) Delete(ctx context.Context, c *konnect.Client, _ kongRoute, p controller.Placement, id string) error {
	return c.DeleteRoute(ctx, p.ControlPlaneID, id)
}

// FindByUID implements controller.Adapter.
func (a *RouteAdapter) FindByUID(ctx context.Context, c *konnect.Client, route kongRoute, p controller.Placement) (string, error) {
	found, err := c.ListRoutes(ctx, p.ControlPlaneID, konnect.ListFilter{Tags: []string{controller.UIDTag(route)}})
	return firstID(found, func(r konnect.Route) string { return r.ID }, err)
}

// Dependencies implements controller.DependentAdapter.
func (a *RouteAdapter) Dependencies() []controller.Dependency[kongRoute] {
	return []controller.Dependency[kongRoute]{
		controlPlaneDependency(a.Refs, func(route kongRoute) []string {
			return controlPlaneKeys(route.Spec.ControlPlaneRef, route.Namespace)
		}),
		{
			Name:   "service",
			Source: a.Services,
			Keys: func(route kongRoute) []string {
				if namespace, name, ok := serviceRefOf(route); ok {
					return []string{key(namespace, name)}
				}
				return nil
			},
		},
		grantDependency(a.Refs, func(route kongRoute) []string {
			serviceNamespace, _, _ := serviceRefOf(route)
			return otherNamespaces(route.Namespace, serviceNamespace, controlPlaneNamespace(route.Spec.ControlPlaneRef, route.Namespace))
		}),
	}
}
