package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

// conflicted checks that obj reports Programmed=False because an entity
// that is not its own holds its unique name, naming what mentions says.
func conflicted(obj conditioned, mentions ...string) error {
	if err := conditionIs(obj, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, commonv1alpha1.ReasonConflictsWithExistingEntity); err != nil {
		return err
	}
	msg := conditionMessage(obj, commonv1alpha1.ConditionProgrammed)
	for _, m := range mentions {
		if !strings.Contains(msg, m) {
			return fmt.Errorf("%s: Programmed says %q, which does not mention %q", obj.GetName(), msg, m)
		}
	}
	return nil
}

// TestConflictIsExplainedNotRetriedEveryPeriod: a create refused as a
// conflict looks up the entity that holds the name and says what it is and
// how to take it over; it is not tried again every sync period (the entity
// in the way is read once a period instead), and goes ahead once that
// entity is gone.
func TestConflictIsExplainedNotRetriedEveryPeriod(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period})

	t.Run("a control plane whose name another holds", func(t *testing.T) {
		e := e.with(t)
		made, err := e.konnect().ControlPlanes.CreateControlPlane(e.ctx, components.CreateControlPlaneRequest{Name: e.ns + "-cp"})
		if err != nil {
			t.Fatal(err)
		}
		inTheWay := made.GetControlPlane().GetID()
		e.sim.ResetCalls()
		e.createAuthConfig("auth")
		e.createControlPlane("cp", "auth")
		e.eventually("the conflict explained", func() error {
			return conflicted(e.controlPlane("cp"), inTheWay, "no identity tags", "spec.mirror.konnect.id "+inTheWay)
		})
		e.eventuallyEvent("KonnectGatewayControlPlane", "cp", corev1.EventTypeWarning, commonv1alpha1.ReasonConflictsWithExistingEntity)
		for range 3 {
			e.step(period)
		}
		if n := e.sim.CallCount("POST", "/v2/control-planes"); n != 1 {
			t.Fatalf("%d control-plane creates over three sync periods, want the first only: %v", n, e.sim.Calls())
		}
		if n := e.sim.CallCount("GET", "/v2/control-planes/{controlPlaneId}"); n < 3 {
			t.Fatalf("the control plane in the way was read %d times in three periods, want once each: %v", n, e.sim.Calls())
		}
		if err := conflicted(e.controlPlane("cp"), inTheWay); err != nil {
			t.Fatal(err)
		}

		// Gone: within a period the control plane is created.
		e.removeFromKonnect(inTheWay)
		e.within(1, period, "the control plane created once the other was gone", func() error {
			cp := e.controlPlane("cp")
			if cp.Status.ID == "" || cp.Status.ID == inTheWay {
				return fmt.Errorf("status ID %q", cp.Status.ID)
			}
			return programmed(cp)
		})
		if n := e.sim.CallCount("POST", "/v2/control-planes"); n != 2 {
			t.Fatalf("%d control-plane creates, want 2", n)
		}
	})

	t.Run("a service whose name an entity made outside the operator holds", func(t *testing.T) {
		e := e.with(t)
		cpID := e.programmedControlPlane("cp")
		inTheWay := e.existingService(cpID, "orders", "orders.example.com")
		e.sim.ResetCalls()
		e.createService("orders")
		e.eventually("the conflict explained", func() error {
			return conflicted(e.service("orders"), inTheWay, "no identity tags", "spec.adopt")
		})
		// Only a change helps: GitOps tools see it failed, not in progress.
		e.seesAs(gitopsCase{what: "service in conflict", resource: kongServices, name: "orders",
			state: programmedIs(metav1.ConditionFalse, commonv1alpha1.ReasonConflictsWithExistingEntity), kstatus: status.FailedStatus, argo: argoDegraded})
		for range 3 {
			e.step(period)
		}
		if n := e.calls("POST", "core-entities/services"); n != 1 {
			t.Fatalf("%d service creates over three sync periods, want the first only: %v", n, e.sim.Calls())
		}

		// The way the condition names: the object created again, adopting.
		e.deleteService("orders")
		e.createService("orders", adopt(inTheWay, commonv1alpha1.AdoptModeOverride))
		if got := e.programmedService("orders").Status.Konnect.ID; got != inTheWay {
			t.Fatalf("adopted %q, want %q", got, inTheWay)
		}
		if n := e.calls("DELETE", "core-entities/services"); n != 0 {
			t.Fatalf("%d service deletes: the entity in the way was not the object's to delete", n)
		}
	})

	t.Run("a service whose name another object's entity holds", func(t *testing.T) {
		e := e.with(t)
		e.createService("first", func(s *configurationv1alpha1.KongService) { s.Spec.Name = "shared" })
		firstID := e.programmedService("first").Status.Konnect.ID
		e.createService("second", func(s *configurationv1alpha1.KongService) { s.Spec.Name = "shared" })
		e.eventually("the conflict explained", func() error {
			return conflicted(e.service("second"), firstID, "KongService "+e.ns+"/first")
		})
	})
}

// TestAnObjectBackUnderItsNameTakesBackWhatItLeft: an object deleted with
// deletion-policy orphan leaves its entity; applied again under its name,
// while the operator runs on, it takes that entity back instead of
// creating a second one (named or not).
func TestAnObjectBackUnderItsNameTakesBackWhatItLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	cpID := e.ready()
	orphan := func(s *configurationv1alpha1.KongService) {
		s.Annotations = map[string]string{commonv1alpha1.AnnotationDeletionPolicy: string(commonv1alpha1.DeletionPolicyOrphan)}
	}
	unnamed := func(s *configurationv1alpha1.KongService) { s.Spec.Name = "" }
	e.createService("named", orphan)
	e.createService("unnamed", orphan, unnamed)
	ids := map[string]string{"named": e.programmedService("named").Status.Konnect.ID, "unnamed": e.programmedService("unnamed").Status.Konnect.ID}
	for name := range ids {
		e.deleteService(name)
	}
	if n := len(e.entities(cpID, "services")); n != 2 {
		t.Fatalf("%d services in Konnect after the orphaning deletes, want 2", n)
	}
	e.sim.ResetCalls()
	e.createService("named")
	e.createService("unnamed", unnamed)
	for name, id := range ids {
		if got := e.programmedService(name).Status.Konnect.ID; got != id {
			t.Errorf("%s came back with %q, want the entity it left, %q", name, got, id)
		}
	}
	if n := e.calls("POST", "core-entities/services") + e.calls("PUT", serviceUpserts); n != 0 {
		t.Fatalf("%d service writes: %v", n, e.sim.Calls())
	}
	if n := len(e.entities(cpID, "services")); n != 2 {
		t.Fatalf("%d services in Konnect, want the 2 taken back", n)
	}
}
