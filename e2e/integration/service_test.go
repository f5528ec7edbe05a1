package integration

import (
	"fmt"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// KongServices and KongRoutes through the shared per-kind harness
// (kindcase_test.go); the branches of the reconciliation algorithm are
// walked with services in lifecycle_test.go, and routes' references in
// kinds_test.go.

type (
	kongService = *configurationv1alpha1.KongService
	kongRoute   = *configurationv1alpha1.KongRoute
)

func serviceObject(name string) kongService {
	return &configurationv1alpha1.KongService{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongServiceSpec{
			ControlPlaneRef:    cpRef("cp"),
			KongServiceAPISpec: configurationv1alpha1.KongServiceAPISpec{Name: name, Host: name + ".example.com"},
		},
	}
}

var services = kindCase[kongService]{
	kind: "KongService", collection: "services", path: "core-entities/services",
	client: func(e *env) objectClient[kongService] { return e.cs.ConfigurationV1alpha1().KongServices(e.ns) },
	object: func(_ *env, name string) kongService { return serviceObject(name) },
	setControlPlane: func(s kongService, ref *commonv1alpha1.ControlPlaneRef) {
		s.Spec.ControlPlaneRef = ref
	},
	change:  func(s kongService) { s.Spec.Port = 8080 },
	changed: func(ent map[string]any) error { return fieldIs(ent, "port", 8080) },
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["port"] = 9090
		e.reput(cpID, "services", ent)
	},
	adopt: func(s kongService, opts *commonv1alpha1.AdoptOptions) { s.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		host := name + ".example.com"
		if !matching {
			host = "elsewhere.example.com"
		}
		return e.put(cpID, "services", map[string]any{"name": name, "host": host, "port": 80, "protocol": "http"})
	},
	differs: "host",
}

// routeObject is a route named name of the service "svc".
func routeObject(name string) kongRoute {
	r := &configurationv1alpha1.KongRoute{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configurationv1alpha1.KongRouteSpec{
			KongRouteAPISpec: configurationv1alpha1.KongRouteAPISpec{Name: name, Paths: []string{"/" + name}},
		},
	}
	withService("svc")(r)
	return r
}

// routes are routes of a service: they inherit its control plane.
var routes = kindCase[kongRoute]{
	kind: "KongRoute", collection: "routes", path: "core-entities/routes",
	client: func(e *env) objectClient[kongRoute] { return e.cs.ConfigurationV1alpha1().KongRoutes(e.ns) },
	setup:  func(e *env) { e.ensureService("svc") },
	object: func(_ *env, name string) kongRoute { return routeObject(name) },
	change: func(r kongRoute) { r.Spec.Paths = []string{"/changed-" + r.Name} },
	changed: func(ent map[string]any) error {
		if paths := fmt.Sprint(ent["paths"]); paths != "[/changed-"+fmt.Sprint(ent["name"])+"]" {
			return fmt.Errorf("paths = %s", paths)
		}
		return nil
	},
	drift: func(e *env, cpID string, ent map[string]any) {
		ent["paths"] = []any{"/drifted"}
		e.reput(cpID, "routes", ent)
	},
	adopt: func(r kongRoute, opts *commonv1alpha1.AdoptOptions) { r.Spec.Adopt = opts },
	seed: func(e *env, cpID, name string, matching bool) string {
		path := "/" + name
		if !matching {
			path = "/elsewhere-" + name
		}
		serviceID := services.get(e, "svc").Status.Konnect.ID
		// Through Konnect's API, which fills in a route's defaults.
		r, err := e.konnect().Routes.CreateRoute(e.ctx, cpID, components.CreateRouteRouteJSON(components.RouteJSON{
			Name: &name, Paths: []string{path}, Service: &components.RouteJSONService{ID: &serviceID},
		}))
		if err != nil {
			e.t.Fatal(err)
		}
		return *r.GetRoute().RouteJSON.ID
	},
	differs: "paths",
}

// ensureService returns the Konnect ID of the KongService called name,
// creating it first when needed.
func (e *env) ensureService(name string) string {
	e.t.Helper()
	if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).Get(e.ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		e.createService(name)
	}
	return e.programmedService(name).Status.Konnect.ID
}

// existingService puts a service into Konnect behind the operator's back and
// returns its ID.
func (e *env) existingService(cpID, name, host string, tags ...string) string {
	e.t.Helper()
	id := fmt.Sprintf("0000aaaa-0000-4000-8000-%012d", len(e.entities(cpID, "services"))+1)
	ent := map[string]any{"id": id, "name": name, "host": host, "port": 80, "protocol": "http"}
	if len(tags) > 0 {
		ent["tags"] = tags
	}
	if err := e.sim.PutEntity(e.orgID, cpID, "services", ent); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// adopt sets a service's spec.adopt to take id over in mode.
func adopt(id string, mode commonv1alpha1.AdoptMode) func(*configurationv1alpha1.KongService) {
	return func(s *configurationv1alpha1.KongService) { s.Spec.Adopt = adoptOptions(id, mode) }
}

// TestServiceKinds walks services, their routes and the plugins bound to
// them in one environment.
func TestServiceKinds(t *testing.T) { testTogether(t, services, routes, pluginBindings) }
