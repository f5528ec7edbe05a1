package integration

import (
	"fmt"
	"testing"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// TestOperatorMetricsDescribeItsObjectsAndOrganisation runs the operator
// with a Programmed service and one whose control plane does not exist, and
// reads its registry: objects by kind and condition status (zeros for kinds
// without objects), the leader gauge, and Konnect requests and rate-limit
// budget under the organisation's ID.
func TestOperatorMetricsDescribeItsObjectsAndOrganisation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{rateLimitPerMinute: 100000})
	e.ready()
	e.createService("good")
	e.programmedService("good")
	e.createService("orphan", func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = cpRef("missing") })

	objects := func(kind, condition, status string) float64 {
		return e.metricValue(metrics.MetricObjects, map[string]string{"kind": kind, "condition": condition, "status": status})
	}
	e.eventually("the objects gauge counts one Programmed service and one not", func() error {
		if got := [2]float64{objects("KongService", "Programmed", "True"), objects("KongService", "Programmed", "False")}; got != [2]float64{1, 1} {
			return fmt.Errorf("KongService True/False = %v, want [1 1]", got)
		}
		return nil
	})
	for _, tt := range []struct {
		kind, condition, status string
		want                    float64
	}{
		{"KongService", "Programmed", "Unknown", 0},
		{"KonnectGatewayControlPlane", "Programmed", "True", 1},
		{"KonnectAPIAuthConfiguration", "APIAuthValid", "True", 1},
		{"KongRoute", "Programmed", "True", 0},
		{"KongCredentialHMAC", "Programmed", "False", 0},
	} {
		if got := objects(tt.kind, tt.condition, tt.status); got != tt.want {
			t.Errorf("%s{kind=%q,condition=%q,status=%q} = %v, want %v", metrics.MetricObjects, tt.kind, tt.condition, tt.status, got, tt.want)
		}
	}
	if !e.hasMetric(metrics.MetricObjects, map[string]string{"kind": "KongRoute", "status": "False"}) {
		t.Errorf("no %s series for KongRoute: kinds without objects should report 0", metrics.MetricObjects)
	}
	for _, kind := range []string{"KongService", "KongRoute", "KongConsumer", "KongPluginBinding", "KongCredentialHMAC", "KonnectGatewayControlPlane"} {
		// Served at zero from start-up, so that the dashboard's rate works
		// before the first correction.
		if !e.hasMetric(metrics.MetricDriftCorrections, map[string]string{"kind": kind}) {
			t.Errorf("no %s series for %s", metrics.MetricDriftCorrections, kind)
		} else if got := e.metricValue(metrics.MetricDriftCorrections, map[string]string{"kind": kind}); got != 0 {
			t.Errorf("%s{kind=%q} = %v, want 0: nothing drifted", metrics.MetricDriftCorrections, kind, got)
		}
	}
	if got := e.metricValue(metrics.MetricLeader, nil); got != 1 {
		t.Errorf("%s = %v, want 1 (no leader election: this process runs the controllers)", metrics.MetricLeader, got)
	}
	org := map[string]string{"organization": e.orgID}
	if got := e.metricValue(konnect.MetricRequests, org); got == 0 {
		t.Errorf("no %s for organisation %s", konnect.MetricRequests, e.orgID)
	}
	if got := e.metricValue(konnect.MetricRequests, map[string]string{"organization": konnect.OrganizationUnknown}); got == 0 {
		t.Errorf("no %s for the unknown organisation: the first Me goes out before it is known", konnect.MetricRequests)
	}
	if !e.hasMetric(konnect.MetricRemaining, org) {
		t.Errorf("no %s for organisation %s, though the simulator sends RateLimit-Remaining", konnect.MetricRemaining, e.orgID)
	}
	checkControllerRuntimeAndClientGoNames(t, e)
}

// checkControllerRuntimeAndClientGoNames checks the series dashboards built
// for controller-runtime and client-go query, labelled as they expect:
// reconciles and queues by controller (the kind), the Kubernetes client's
// requests and its limiter by host.
func checkControllerRuntimeAndClientGoNames(t *testing.T, e *env) {
	t.Helper()
	service := map[string]string{"controller": "KongService"}
	for _, tt := range []struct {
		name     string
		labels   map[string]string
		positive bool // more than zero, not only served
	}{
		{metrics.MetricRuntimeReconciles, map[string]string{"controller": "KongService", "result": "requeue_after"}, false},
		{metrics.MetricRuntimeReconciles, service, true},
		{metrics.MetricRuntimeErrors, service, false},
		{metrics.MetricRuntimePanics, service, false},
		{metrics.MetricRuntimeTime, service, true},
		{metrics.MetricRuntimeMaxConcurrent, service, true},
		{metrics.MetricRuntimeActiveWorkers, map[string]string{"controller": "KonnectGatewayControlPlane"}, false},
		{"konnect_operator_reconcile_panics_total", map[string]string{"kind": "KongRoute"}, false},
		{"workqueue_adds_total", map[string]string{"controller": "KongService", "name": "KongService"}, true},
		{"workqueue_depth", map[string]string{"controller": "KongRoute", "name": "KongRoute"}, false},
		{metrics.MetricRESTRequests, map[string]string{"method": "PUT", "code": "200"}, true},
		{metrics.MetricRESTRequestDuration, map[string]string{"verb": "GET"}, true},
		{metrics.MetricRESTRateLimiterDuration, map[string]string{"verb": "PUT"}, true},
	} {
		if !e.hasMetric(tt.name, tt.labels) {
			t.Errorf("no %s%v", tt.name, tt.labels)
		} else if got := e.metricValue(tt.name, tt.labels); tt.positive && got <= 0 {
			t.Errorf("%s%v = %v, want more than 0", tt.name, tt.labels, got)
		}
	}
	if got := e.metricValue(metrics.MetricRuntimePanics, service); got != 0 {
		t.Errorf("%s%v = %v: nothing panicked", metrics.MetricRuntimePanics, service, got)
	}
}
