package integration

import (
	"fmt"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

// KonnectGatewayControlPlanes through the shared per-kind harness
// (kindcase_test.go): a control plane is placed by its auth configuration,
// not by another control plane, and carries its identity as labels. It has
// no spec.adopt: an existing control plane is taken by mirroring it
// (mirror_test.go). Groups and their members are tested in group_test.go.

type controlPlaneObj = *konnectv1alpha2.KonnectGatewayControlPlane

var gatewayControlPlanes = kindCase[controlPlaneObj]{
	kind: "KonnectGatewayControlPlane", collection: "control-planes", path: "/v2/control-planes", labelled: true,
	client: func(e *env) objectClient[controlPlaneObj] {
		return e.cs.KonnectV1alpha2().KonnectGatewayControlPlanes(e.ns)
	},
	object: func(e *env, name string) controlPlaneObj { return e.controlPlaneObject(name, "auth") },
	change: func(cp controlPlaneObj) {
		changed := "changed"
		cp.Spec.CreateControlPlaneRequest.Description = &changed
	},
	changed: func(ent map[string]any) error { return fieldIs(ent, "description", "changed") },
	drift: func(e *env, _ string, ent map[string]any) {
		drifted := "drifted"
		if _, err := e.konnect().ControlPlanes.UpdateControlPlane(e.ctx, fmt.Sprint(ent["id"]), components.UpdateControlPlaneRequest{Description: &drifted}); err != nil {
			e.t.Fatal(err)
		}
	},
	lookup: func(e *env, _ string, cp controlPlaneObj) (map[string]any, bool) {
		for _, ent := range e.sim.ControlPlanes(e.orgID) {
			if ent["id"] == cp.Status.ID {
				return ent, true
			}
		}
		return nil, false
	},
}

func TestControlPlane(t *testing.T) { gatewayControlPlanes.test(t) }
