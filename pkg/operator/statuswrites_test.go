package operator_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

func (e *env) statusWrites(kind string) float64 {
	return e.metricValue("konnect_operator_status_writes_total", map[string]string{"kind": kind})
}

// TestOneStatusWritePerCreate: routes applied together with the service
// they need, and plugin bindings on those routes, wait for them without a
// status write of their own, so that each new object's status is written once, Programmed. A
// reference that fails instead ends the quiet at once: a route whose
// service cannot be created says why without waiting.
func TestOneStatusWritePerCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.ready()
	e.createPlugin("cors", "cors", `{}`)
	e.settle()
	// Creating the service takes a while, so that the routes and bindings
	// really wait for it.
	const slow = 2 * time.Second
	e.sim.Faults().Set("create-service", konnectsim.Fault{Latency: slow})
	before := map[string]float64{}
	for _, kind := range []string{"KongService", "KongRoute", "KongPluginBinding"} {
		before[kind] = e.statusWrites(kind)
	}

	const n = 3
	e.createService("svc")
	appliedAt := time.Now()
	for i := range n {
		e.createRoute(fmt.Sprintf("route-%d", i), withService("svc"))
		e.createBinding(fmt.Sprintf("cors-%d", i), "cors", targeting(fmt.Sprintf("r=route-%d", i)))
	}
	e.eventually("everything Programmed", func() error {
		for i := range n {
			if err := programmed(e.route(fmt.Sprintf("route-%d", i))); err != nil {
				return err
			}
			if err := programmed(e.binding(fmt.Sprintf("cors-%d", i))); err != nil {
				return err
			}
		}
		return nil
	})
	// The wait happened: the service became Programmed well after the
	// routes and bindings were applied.
	c := meta.FindStatusCondition(e.service("svc").Status.Conditions, commonv1alpha1.ConditionProgrammed)
	if waited := c.LastTransitionTime.Sub(appliedAt); waited < slow/2 {
		t.Fatalf("the service was Programmed %s after the routes were applied: they did not wait", waited)
	}
	for kind, want := range map[string]float64{"KongService": 1, "KongRoute": n, "KongPluginBinding": n} {
		if got := e.statusWrites(kind) - before[kind]; got != want {
			t.Errorf("%v status writes of %s, want %v (one per create)", got, kind, want)
		}
	}

	// A failing reference is reported at once.
	e.sim.Faults().Clear()
	e.createService("broken", func(s *configurationv1alpha1.KongService) { s.Spec.ControlPlaneRef = cpRef("nowhere") })
	e.createRoute("stuck", withService("broken"))
	e.eventually("the route says why it waits", func() error {
		c := meta.FindStatusCondition(e.route("stuck").Status.Conditions, commonv1alpha1.ConditionProgrammed)
		if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "nowhere") {
			return fmt.Errorf("Programmed = %+v, want False naming the missing control plane", c)
		}
		return nil
	})
}
