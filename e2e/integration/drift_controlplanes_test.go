package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Kong/sdk-konnect-go/models/components"
	corev1 "k8s.io/api/core/v1"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
)

// TestDriftedControlPlanesAreCorrectedByListing: in list mode, control
// planes are listed once per period like core entities. A description
// changed in Konnect and a member removed from a group there are both
// written back within one period, counted and reported by Events that name
// the fields; then idle periods write no control plane and no membership,
// and a mirrored control plane (which carries no label of the operator) is
// never taken for drift.
func TestDriftedControlPlanesAreCorrectedByListing(t *testing.T) {
	t.Parallel()
	const period = time.Hour
	e := newEnv(t, envOptions{syncPeriod: period})
	cpID := e.ready()
	e.createControlPlane("b", "auth")
	bID := e.programmedControlPlane("b")
	e.createGroup("group", "cp", "b")
	groupID := e.programmedControlPlane("group")
	e.membersAre("group", groupID, cpID, bID)
	mirroredID := e.existingControlPlane("elsewhere")
	e.createMirror("mirror", mirroredID)
	e.programmedControlPlane("mirror")
	e.settle()

	api := e.konnect()
	const outside = "changed outside the cluster"
	description := outside
	if _, err := api.ControlPlanes.UpdateControlPlane(e.ctx, cpID, components.UpdateControlPlaneRequest{Description: &description}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.ControlPlaneGroups.PostControlPlanesIDGroupMembershipsRemove(e.ctx, groupID, &components.GroupMembership{Members: []components.Members{{ID: bID}}}); err != nil {
		t.Fatal(err)
	}
	// The changes really happened in Konnect.
	if got := e.sim.GroupMembers(e.orgID, groupID); len(got) != 1 {
		t.Fatalf("Konnect holds members %v after the removal, want one", got)
	}
	if d := e.controlPlaneEntity(cpID)["description"]; d != outside {
		t.Fatalf("Konnect holds description %v after the change", d)
	}

	// Within one sync period: the clock moves one period on, no more.
	e.step(period)
	e.eventually("both drifts overwritten", func() error {
		if d := e.controlPlaneEntity(cpID)["description"]; d != "" {
			return fmt.Errorf("description = %v", d)
		}
		if got := e.sim.GroupMembers(e.orgID, groupID); len(got) != 2 {
			return fmt.Errorf("members = %v", got)
		}
		return nil
	})
	changed := e.eventuallyEvent("KonnectGatewayControlPlane", "cp", corev1.EventTypeWarning, controller.EventDriftCorrected)
	if !strings.Contains(changed.Message, "description") || strings.Contains(changed.Message, outside) {
		t.Errorf("the drift Event should name the field description and never its value: %q", changed.Message)
	}
	group := e.eventuallyEvent("KonnectGatewayControlPlane", "group", corev1.EventTypeWarning, controller.EventDriftCorrected)
	if !strings.Contains(group.Message, "members") {
		t.Errorf("the group's drift Event should name its members: %q", group.Message)
	}
	e.eventually("two corrections counted", func() error {
		if got := e.driftCorrections("KonnectGatewayControlPlane"); got != 2 {
			return fmt.Errorf("%s{kind=KonnectGatewayControlPlane} = %v, want 2", metrics.MetricDriftCorrections, got)
		}
		return nil
	})

	// Idle: two periods list control planes and write none.
	writes, lists := e.controlPlaneWrites(), e.sim.CallCount("GET", "/v2/control-planes")
	e.step(period)
	e.step(period)
	if got := e.controlPlaneWrites() - writes; got != 0 {
		t.Errorf("%d control-plane or membership writes in two idle periods, want 0: %v", got, e.sim.Calls())
	}
	if got := e.sim.CallCount("GET", "/v2/control-planes") - lists; got < 2 {
		t.Errorf("%d control-plane lists in two idle periods, want the listing and the mirror's reads", got)
	}
	if got := e.driftCorrections("KonnectGatewayControlPlane"); got != 2 {
		t.Errorf("%v drift corrections after the idle periods, want still 2 (a mirror is not drift)", got)
	}
	e.deleteControlPlane("mirror")
	e.eventually("the mirror released", func() error { return e.controlPlaneGone("mirror") })
	e.removeFromKonnect(mirroredID)
}

// controlPlaneEntity returns a control plane as the simulator holds it.
func (e *env) controlPlaneEntity(id string) map[string]any {
	e.t.Helper()
	for _, cp := range e.sim.ControlPlanes(e.orgID) {
		if cp["id"] == id {
			return cp
		}
	}
	e.t.Fatalf("Konnect has no control plane %s", id)
	return nil
}
