package catalog

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/entities"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// controlPlaneEntry compares KonnectGatewayControlPlanes the way the
// listing does: a mirror is only read, an origin compared with what an
// update writes.
type controlPlaneEntry struct {
	kind controller.Kind[*konnectv1alpha2.KonnectGatewayControlPlane, entities.ControlPlaneDesired]
}

func (e controlPlaneEntry) compare(ctx context.Context, clients controller.ClientSource, obj runtime.Object) (Comparison, bool, error) {
	cp, ok := obj.(*konnectv1alpha2.KonnectGatewayControlPlane)
	if !ok {
		return Comparison{}, false, nil
	}
	if cp.IsMirror() {
		mirrored := ""
		if cp.Spec.Mirror != nil {
			mirrored = cp.Spec.Mirror.Konnect.ID
		}
		return Comparison{State: StateNotCompared, ID: cp.Status.ID, Message: "mirrors control plane " + mirrored + ": only read, never written"}, true, nil
	}
	copied := cp.DeepCopy()
	res, desired, cmp, done := prepare(ctx, e.kind, copied)
	if done {
		return cmp, true, nil
	}
	id := copied.Status.ID
	if id == "" {
		return Comparison{State: StateMissing, Message: "not in Konnect yet: the operator would create it"}, true, nil
	}
	api, err := clients.API(res.Placement.Auth.ServerURL, res.Placement.Auth.Token)
	if err != nil {
		return Comparison{}, true, err
	}
	differences, err := entities.CompareControlPlane(ctx, api, id, desired)
	switch {
	case konnect.IsNotFound(err):
		return Comparison{State: StateMissing, ID: id, Message: id + " is gone from Konnect: the operator would create it again"}, true, nil
	case err != nil:
		return Comparison{}, true, err
	}
	out := Comparison{State: StateEqual, ID: id}
	for _, d := range differences {
		out.Fields = append(out.Fields, FieldDifference{Field: d.Field, Cluster: compactJSON(d.Desired), Konnect: compactJSON(d.Actual)})
	}
	if len(out.Fields) > 0 {
		out.State = StateDiffers
	}
	slices.SortFunc(out.Fields, func(a, b FieldDifference) int { return strings.Compare(a.Field, b.Field) })
	return out, true, nil
}
