package integration

import (
	"fmt"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/components"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// kongOperatorIdentity is what Kong Operator writes on an entity it made
// for obj: its k8s-… pairs and managed-by:kong-operator, as tags (key:value)
// or, for control planes, labels.
func kongOperatorIdentity(obj metav1.Object, group, version, kind string) map[string]string {
	return map[string]string{
		"k8s-name": obj.GetName(), "k8s-namespace": obj.GetNamespace(), "k8s-uid": string(obj.GetUID()),
		"k8s-kind": kind, "k8s-group": group, "k8s-version": version,
		"k8s-generation": strconv.FormatInt(obj.GetGeneration(), 10), "managed-by": "kong-operator",
	}
}

func asTags(labels map[string]string) []string {
	var tags []string
	for k, v := range labels {
		tags = append(tags, k+":"+v)
	}
	return tags
}

// programmedByKongOperator is the Programmed condition Kong Operator leaves.
func programmedByKongOperator(generation int64) []metav1.Condition {
	return []metav1.Condition{{
		Type: commonv1alpha1.ConditionProgrammed, Status: metav1.ConditionTrue, Reason: commonv1alpha1.ReasonProgrammed,
		ObservedGeneration: generation, LastTransitionTime: metav1.Now(),
	}}
}

// TestTakeOverFromKongOperator: a control plane, a service and a route that
// Kong Operator created and programmed (its status IDs, its cleanup
// finalizer, entities with its tags and labels) are taken over without a
// create, a write or a delete in Konnect, across the next sync periods too;
// deleting one afterwards deletes its entity.
func TestTakeOverFromKongOperator(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.stopOperator() // until the hand-over, Kong Operator was in charge
	auth := e.createAuthConfig("auth")
	serverURL, err := konnect.NormalizeServerURL(e.sim.URL)
	if err != nil {
		t.Fatal(err)
	}
	auth.Status.OrganizationID, auth.Status.ServerURL = e.orgID, serverURL
	auth.Status.Conditions = []metav1.Condition{{
		Type: commonv1alpha1.ConditionAPIAuthValid, Status: metav1.ConditionTrue, Reason: commonv1alpha1.ReasonValid,
		ObservedGeneration: auth.Generation, LastTransitionTime: metav1.Now(),
	}}
	if _, err := e.cs.KonnectV1alpha1().KonnectAPIAuthConfigurations(e.ns).UpdateStatus(e.ctx, auth, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	konnectStatus := func(id string) commonv1alpha1.KonnectEntityStatus {
		return commonv1alpha1.KonnectEntityStatus{ID: id, ServerURL: serverURL, OrgID: e.orgID}
	}
	finalizers := []string{commonv1alpha1.FinalizerKonnectCleanup}

	// The control plane, labelled by Kong Operator.
	cpObj := e.controlPlaneObject("cp", "auth")
	cpObj.Finalizers = finalizers
	cpObj, err = e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).Create(e.ctx, cpObj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created, err := e.konnect().ControlPlanes.CreateControlPlane(e.ctx, components.CreateControlPlaneRequest{
		Name:   cpObj.Spec.CreateControlPlaneRequest.Name,
		Labels: kongOperatorIdentity(cpObj, "konnect.konghq.com", "v1alpha2", "KonnectGatewayControlPlane"),
	})
	if err != nil {
		t.Fatal(err)
	}
	cpID := created.GetControlPlane().GetID()
	cpObj.Status.KonnectEntityStatus = konnectStatus(cpID)
	cpObj.Status.Conditions = programmedByKongOperator(cpObj.Generation)
	if _, err := e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns).UpdateStatus(e.ctx, cpObj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// A service and a route on it, tagged by Kong Operator.
	e.createService("svc", func(s *configurationv1alpha1.KongService) { s.Finalizers = finalizers })
	svc := e.service("svc")
	svcID := e.existingService(cpID, "svc", "svc.example.com", asTags(kongOperatorIdentity(svc, "configuration.konghq.com", "v1alpha1", "KongService"))...)
	svc.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndCertificateAndCACertificatesRefs{}
	svc.Status.Konnect.KonnectEntityStatus = konnectStatus(svcID)
	svc.Status.Konnect.ControlPlaneID = cpID
	svc.Status.Conditions = programmedByKongOperator(svc.Generation)
	if _, err := e.cs.ConfigurationV1alpha1().KongServices(e.ns).UpdateStatus(e.ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.createRoute("route", withService("svc"), func(r *configurationv1alpha1.KongRoute) { r.Finalizers = finalizers })
	route := e.route("route")
	routeID := "0000bbbb-0000-4000-8000-000000000001"
	routeTags := asTags(kongOperatorIdentity(route, "configuration.konghq.com", "v1alpha1", "KongRoute"))
	if err := e.sim.PutEntity(e.orgID, cpID, "routes", map[string]any{
		"id": routeID, "name": "route", "paths": []string{"/route"}, "service": map[string]any{"id": svcID}, "tags": routeTags,
	}); err != nil {
		t.Fatal(err)
	}
	route.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndServiceRefs{}
	route.Status.Konnect.KonnectEntityStatus = konnectStatus(routeID)
	route.Status.Konnect.ControlPlaneID, route.Status.Konnect.ServiceID = cpID, svcID
	route.Status.Conditions = programmedByKongOperator(route.Generation)
	if _, err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).UpdateStatus(e.ctx, route, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	e.sim.ResetCalls()
	e.startOperator()
	e.eventually("everything Programmed under the same IDs", func() error {
		if cp := e.controlPlane("cp"); cp.Status.ID != cpID || programmed(cp) != nil {
			return fmt.Errorf("control plane: %s, %w", cp.Status.ID, programmed(cp))
		}
		if s := e.service("svc"); s.Status.Konnect.ID != svcID || programmed(s) != nil {
			return fmt.Errorf("service: %s, %w", s.Status.Konnect.ID, programmed(s))
		}
		if r := e.route("route"); r.Status.Konnect.ID != routeID || programmed(r) != nil {
			return fmt.Errorf("route: %s, %w", r.Status.Konnect.ID, programmed(r))
		}
		return nil
	})
	e.step(time.Hour) // the sync period: the first listings
	e.step(time.Hour)
	if got := e.writes(); got != 0 {
		t.Fatalf("%d writes to Konnect after the takeover: %v", got, e.sim.Calls())
	}
	if e.listCalls(serviceLists) == 0 || e.listCalls("core-entities/routes") == 0 {
		t.Fatalf("the services and routes were not listed: the periods proved nothing: %v", e.sim.Calls())
	}
	got, err := e.konnect().Services.GetService(e.ctx, svcID, cpID)
	if err != nil {
		t.Fatal(err)
	}
	if tags := got.GetService().Tags; !slicesEqualAsSets(tags, asTags(kongOperatorIdentity(svc, "configuration.konghq.com", "v1alpha1", "KongService"))) {
		t.Fatalf("the service's tags were changed: %v", tags)
	}
	if labels := e.controlPlaneEntity(cpID)["labels"]; fmt.Sprint(labels) == "" {
		t.Fatal("the control plane lost its labels")
	}

	// Deleting a taken-over object deletes its entity.
	if err := e.cs.ConfigurationV1alpha1().KongRoutes(e.ns).Delete(e.ctx, "route", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.eventually("the route's entity deleted", func() error {
		if _, ok := e.entity(cpID, "routes", routeID); ok {
			return fmt.Errorf("still in Konnect")
		}
		return nil
	})
	if n := e.calls("DELETE", "core-entities/routes"); n != 1 {
		t.Fatalf("%d route deletes, want 1", n)
	}
}

func slicesEqualAsSets(a, b []string) bool {
	as, bs := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		as[x] = true
	}
	for _, x := range b {
		bs[x] = true
	}
	return maps.Equal(as, bs)
}
