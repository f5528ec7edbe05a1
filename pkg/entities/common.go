package entities

import (
	"encoding/json"
	"errors"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// placeUnderControlPlane resolves a direct control-plane reference and its
// credentials, and records the control plane in status and placement.
func (r *Refs) placeUnderControlPlane(b *resolver, from referrer, ref *commonv1alpha1.ControlPlaneRef, status *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef) {
	cp := r.controlPlane(b, from, ref, false, false)
	if cp == nil {
		return
	}
	b.res.Placement.Auth = r.auth(b, cp)
	b.placeIn(status, cp.Status.ID)
}

// dependencyControlPlane names the dependency of objects that place
// entities into a control plane; a mirrored control plane waits for them
// (ControlPlaneKind's UsedBy).
const dependencyControlPlane = "controlPlane"

// controlPlaneDependency reconciles objects again when their control plane
// changes.
func controlPlaneDependency[T controller.Object](r *Refs, keys func(T) []string) controller.Dependency[T] {
	return controller.Dependency[T]{Name: dependencyControlPlane, Source: r.ControlPlanes, Keys: keys}
}

// GrantDependency reconciles objects again when a KongReferenceGrant
// changes in a namespace they refer into. namespaces returns the other
// namespaces obj refers into.
func GrantDependency[T controller.Object](r *Refs, namespaces func(T) []string) controller.Dependency[T] {
	return controller.Dependency[T]{
		Name: "grants",
		Source: controller.SourceOf[*configurationv1alpha1.KongReferenceGrant]{
			Informer: r.Grants,
			Key:      func(grant *configurationv1alpha1.KongReferenceGrant) string { return grant.Namespace },
		},
		Keys: namespaces,
	}
}

// otherNamespaces returns the namespaces among refs that differ from the
// object's own, for GrantDependency.
func otherNamespaces(own string, refs ...string) []string {
	var out []string
	for _, ns := range refs {
		if ns != "" && ns != own && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// controlPlaneNamespace returns the namespace a control-plane reference
// points into ("" when it is not a Konnect reference).
func controlPlaneNamespace(ref *commonv1alpha1.ControlPlaneRef, own string) string {
	if !ref.IsKonnect() {
		return ""
	}
	return namespaceOr(ref.KonnectNamespacedRef.Namespace, own)
}

// optional is nil for the zero value and a pointer to v otherwise, for the
// SDK's optional fields: an unset spec field is left out of the body (and
// the SDK fills in Konnect's default where the API has one).
func optional[V comparable](v V) *V {
	var zero V
	if v == zero {
		return nil
	}
	return &v
}

// refusedForChildren reports whether Konnect refused a delete because other
// entities still refer to the one being deleted.
func refusedForChildren(err error) bool {
	var invalid *konnect.InvalidInputError
	return errors.As(err, &invalid) || konnect.IsConflict(err)
}

// gvk names a kind of one of the operator's API group versions.
func gvk(gv metav1.GroupVersion, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}
}

// AsJSON is v as JSON values, as encoding/json decodes it back: a map for
// an object, nil when v does not encode.
func AsJSON(v any) any {
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}
