package integration

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
	// Konnect answers the service's create only once the routes and
	// bindings are applied, however long that takes: they wait for it.
	e := newEnv(t, envOptions{konnectTimeout: 10 * time.Minute})
	e.ready()
	e.createPlugin("cors", "cors", `{}`)
	e.settle()
	applied := make(chan struct{})
	e.sim.Faults().Set("create-service", konnectsim.Fault{Until: applied})
	before := map[string]float64{}
	for _, kind := range []string{"KongService", "KongRoute", "KongPluginBinding"} {
		before[kind] = e.statusWrites(kind)
	}

	const n = 3
	e.createService("svc")
	for i := range n {
		e.createRoute(fmt.Sprintf("route-%d", i), withService("svc"))
		e.createBinding(fmt.Sprintf("cors-%d", i), "cors", targeting(fmt.Sprintf("r=route-%d", i)))
	}
	close(applied)
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
