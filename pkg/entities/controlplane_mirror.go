package entities

import (
	"context"
	"fmt"
	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// A KonnectGatewayControlPlane with source Mirror stands for a control
// plane that exists in Konnect independently of the cluster. It goes
// through the same reconciler as any entity, with these differences:
//   - "create" and "update" only read the control plane (by ID), so that
//     status.id, status.clusterType and status.konnectEndpoints follow
//     Konnect and the Mirrored condition says whether it was found;
//   - nothing is ever written to it, and deleting the object never deletes
//     it (Borrows);
//   - the entities other objects create inside it stay when the mirror
//     object goes, so the object is kept, while deleting, until those
//     objects have deleted their entities (UsedBy).
//
// The Mirrored condition is False/Failed when the control plane cannot be
// read. Kong Operator writes True/Failed in that case; a True condition
// that means failure would mislead every client reading it, so this is
// deliberately not reproduced.

// ReasonMirrorFailed is the reason of Mirrored=False.
const ReasonMirrorFailed = "Failed"

func mirrorID(cp controlPlane) string {
	if cp.Spec.Mirror == nil {
		return ""
	}
	return cp.Spec.Mirror.Konnect.ID
}

// readMirror reads the mirrored control plane, records what Konnect says
// of it in cp's status and sets Mirrored. It returns the control plane's ID.
func readMirror(ctx context.Context, api konnect.API, cp controlPlane, id string) (string, error) {
	found, err := listControlPlanes(ctx, api, operations.ListControlPlanesRequest{Filter: &components.ControlPlaneFilterParameters{ID: &components.ID{Eq: &id}}})
	if err == nil && len(found) == 0 {
		err = &konnect.NotFoundError{Operation: "read mirrored control plane", Message: "the organisation has no control plane with ID " + id}
	}
	if err != nil {
		if _, limited := konnect.IsRateLimited(err); !limited {
			controller.SetCondition(cp, controller.FalseCondition(commonv1alpha1.ConditionMirrored, ReasonMirrorFailed,
				fmt.Sprintf("cannot read control plane %s: %v", id, err)))
		}
		return "", err
	}
	recordEndpoints(cp, &found[0])
	controller.SetCondition(cp, controller.TrueCondition(commonv1alpha1.ConditionMirrored, commonv1alpha1.ReasonMirrored,
		fmt.Sprintf("Mirroring control plane %s (%s)", found[0].ID, found[0].Name)))
	return found[0].ID, nil
}
