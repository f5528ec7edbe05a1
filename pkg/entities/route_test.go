package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

func testRoute(name, service string) kongRoute {
	route := &configurationv1alpha1.KongRoute{
		ObjectMeta: objectMeta(name),
		Spec: configurationv1alpha1.KongRouteSpec{
			KongRouteAPISpec: configurationv1alpha1.KongRouteAPISpec{Name: name, Paths: []string{"/" + name}},
		},
	}
	if service == "" {
		route.Spec.ControlPlaneRef = konnectRef("cp")
	} else {
		route.Spec.ServiceRef = &configurationv1alpha1.ServiceRef{
			Type:          configurationv1alpha1.ServiceRefTypeNamespacedRef,
			NamespacedRef: &commonv1alpha1.NamespacedRef{Name: service},
		}
	}
	return route
}

func TestRouteLivesWhereItsServiceLives(t *testing.T) {
	refs := testRefs()
	services := cacheOf[kongService]("kongservices")
	kind := RouteKind(refs, services)
	route := testRoute("r", "orders")
	resolve := func(purpose controller.Purpose) controller.Resolution {
		t.Helper()
		res, err := kind.Resolve(t.Context(), route, purpose)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	if res := resolve(controller.ForSync); res.Ready || conditionStatus(res, commonv1alpha1.ConditionKongServiceRefValid) != "False" {
		t.Fatalf("without its service: ready=%v %v", res.Ready, res.Conditions)
	}
	if res := resolve(controller.ForDelete); !res.Gone {
		t.Fatal("deleting a route whose service is gone must find the route gone with it")
	}
	if !kind.IsManaged(route) {
		t.Fatal("a route whose service is missing is not managed: nobody would report the missing service")
	}

	programmedControlPlane(t, refs, "cp", "cp-id")
	svc := testService("orders")
	put(t, services, svc)
	if res := resolve(controller.ForSync); res.Ready {
		t.Fatalf("with a service that is not Programmed: %v", res.Conditions)
	}
	put(t, services, programmedIn(svc, "cp-id", "svc-id"))
	res := resolve(controller.ForSync)
	if !res.Ready || res.Placement.ParentID != "svc-id" || res.Placement.ControlPlaneID != "cp-id" || res.Placement.Auth.Token == "" {
		t.Fatalf("with a Programmed service: ready=%v placement=%+v %v", res.Ready, res.Placement, res.Conditions)
	}
	if route.Status.Konnect.ServiceID != "svc-id" {
		t.Fatalf("status.konnect.serviceID = %q", route.Status.Konnect.ServiceID)
	}
	body, err := kind.Desired(t.Context(), route, res.Placement)
	if err != nil {
		t.Fatal(err)
	}
	if routeServiceID(&body) != "svc-id" || !slices.Equal(body.RouteJSON.Paths, []string{"/r"}) {
		t.Fatalf("body %+v", body.RouteJSON)
	}
}

func TestRouteWithoutServiceLivesInItsControlPlane(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	kind := RouteKind(refs, cacheOf[kongService]("kongservices"))
	route := testRoute("r", "")
	route.ControlPlaneStatus(true).ID = "route-id"
	route.Status.Konnect.ServiceID = "stale"
	res, err := kind.Resolve(t.Context(), route, controller.ForSync)
	if err != nil || !res.Ready || res.Placement.ParentID != "" || res.Placement.ControlPlaneID != "cp-id" {
		t.Fatalf("ready=%v err=%v placement=%+v", res.Ready, err, res.Placement)
	}
	if route.Status.Konnect.ServiceID != "" {
		t.Fatal("a service-less route still records a service")
	}
	body, _ := kind.Desired(t.Context(), route, res.Placement)
	if body.RouteJSON.Service != nil {
		t.Fatal("a service-less route's body names a service")
	}
}

func TestRouteToAServiceInAnotherNamespaceNeedsAGrant(t *testing.T) {
	refs := testRefs()
	programmedControlPlane(t, refs, "cp", "cp-id")
	services := cacheOf[kongService]("kongservices")
	svc := testService("orders")
	svc.Namespace = "backend"
	// Its control plane is in the route's namespace, which lets the
	// service use it (as any Programmed service there was let): the
	// route's reference to the service is the one that needs a grant here.
	svc.Spec.ControlPlaneRef.KonnectNamespacedRef.Namespace = testNamespace
	grant(t, refs, testNamespace, "KongService", "backend", groupKonnect, kindControlPlane)
	put(t, services, programmedIn(svc, "cp-id", "svc-id"))
	kind := RouteKind(refs, services)
	route := testRoute("r", "orders")
	route.Spec.ServiceRef.NamespacedRef.Namespace = "backend"
	res, _ := kind.Resolve(t.Context(), route, controller.ForSync)
	if res.Ready || conditionStatus(res, commonv1alpha1.ConditionResolvedRefs) != "False" {
		t.Fatalf("without a grant: ready=%v %v", res.Ready, res.Conditions)
	}
	grant(t, refs, "backend", "KongRoute", testNamespace, groupConfiguration, "KongService")
	if res, _ := kind.Resolve(t.Context(), route, controller.ForSync); !res.Ready {
		t.Fatalf("with a grant: %v", res.Conditions)
	}
}

func TestRouteAdoptionComparesRoutesAndTheirService(t *testing.T) {
	desired := components.CreateRouteRouteJSON(components.RouteJSON{
		Name: ptr("r"), Paths: []string{"/a", "/b"}, Service: &components.RouteJSONService{ID: ptr("svc")},
	})
	same := components.CreateRouteRouteJSON(components.RouteJSON{
		Name: ptr("r"), Paths: []string{"/b", "/a"}, Service: &components.RouteJSONService{ID: ptr("svc")},
		HTTPSRedirectStatusCode: components.HTTPSRedirectStatusCodeFourHundredAndTwentySix.ToPointer(), PathHandling: components.PathHandlingV0.ToPointer(),
	})
	if d := routeMatches(desired, &same); d != nil {
		t.Errorf("the same route with Konnect's defaults differs in %v", d)
	}
	if d := routeMustMatch(desired, &same); d != nil {
		t.Errorf("the same service is incompatible: %v", d)
	}
	other := components.CreateRouteRouteJSON(components.RouteJSON{
		Name: ptr("r"), Paths: []string{"/a"}, Hosts: []string{"h"}, Service: &components.RouteJSONService{ID: ptr("other")},
	})
	if d := routeMatches(desired, &other); !slices.Equal(d, []string{"hosts", "paths"}) {
		t.Errorf("differences %v, want hosts, paths", d)
	}
	if d := routeMustMatch(desired, &other); !slices.Equal(d, []string{"service"}) {
		t.Errorf("incompatibilities %v, want service", d)
	}
}

func TestRouteCallsAgainstTheSimulator(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	uid := controller.TagKeyUID + ":1"
	exerciseCalls(t, s, p, routeCalls,
		components.CreateRouteRouteJSON(components.RouteJSON{Paths: []string{"/a"}, Tags: []string{uid}}),
		components.CreateRouteRouteJSON(components.RouteJSON{Paths: []string{"/b"}, Tags: []string{uid}}), uid)
}
