package entities

import (
	"context"

	"github.com/Kong/sdk-konnect-go/models/components"
	"github.com/Kong/sdk-konnect-go/models/operations"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// A control plane carries the identity of its object as labels
// (k8s-kind, k8s-namespace, k8s-name, k8s-cluster), which the listing of
// the drift lister shows: an object that lost its control plane's ID finds
// it there (controller.Recovery). Its name is unique in the organisation: a
// create refused as a conflict finds the control plane in its way by the
// name.
var controlPlaneRecovery = &controller.Recovery[controlPlane, ControlPlaneDesired]{
	ByIdentity: true,
	Read: func(ctx context.Context, api konnect.API, _ controlPlane, _ controller.Placement, id string) (controller.Listed[ControlPlaneDesired], error) {
		res, err := konnect.Call(ctx, controlPlaneOp("get"), func(ctx context.Context) (*operations.GetControlPlaneResponse, error) {
			return api.ControlPlanes.GetControlPlane(ctx, id)
		})
		if err != nil {
			return controller.Listed[ControlPlaneDesired]{}, err
		}
		return listedControlPlane(ctx, api, res.GetControlPlane())
	},
	FindByKey: func(ctx context.Context, api konnect.API, _ controlPlane, _ controller.Placement, desired ControlPlaneDesired) (*controller.Listed[ControlPlaneDesired], error) {
		name := desired.Create.Name
		found, err := listControlPlanes(ctx, api, operations.ListControlPlanesRequest{
			Filter: &components.ControlPlaneFilterParameters{Name: &components.ControlPlaneFilterParametersName{Eq: &name}},
		})
		if err != nil || len(found) == 0 {
			return nil, err
		}
		l, err := listedControlPlane(ctx, api, &found[0])
		if err != nil {
			return nil, err
		}
		return &l, nil
	},
	// What a create records from Konnect's answer: the cluster type and
	// the endpoints.
	Record: func(cp controlPlane, l controller.Listed[ControlPlaneDesired]) {
		if actual, ok := l.Actual.(*components.ControlPlane); ok {
			recordEndpoints(cp, actual)
		}
	},
}
