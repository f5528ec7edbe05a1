package entities

import (
	"reflect"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// What the kinds of a portal's entities share: they name their Portal in
// spec.portalRef, live under it with its credentials, and record its ID in
// status.portalID.

// portalEntity is an object of a portal's entity.
type portalEntity interface {
	controller.Entity
	PortalReference() *commonv1alpha1.ObjectRef
	PortalEntity() *konnectv1alpha1.PortalEntityStatus
}

// underPortal places a kind's entities under the Portal that
// spec.portalRef names.
func underPortal[T portalEntity](refs *Refs, gvk schemaGVK, portals *controller.Informer[portal]) placed[T] {
	return underParentEntity(refs, gvk, gvk.GroupVersion().WithKind(KindPortal), portals,
		func(p portal) *konnectv1alpha2.KonnectConfiguration { return &p.Spec.KonnectConfiguration },
		parentByObjectRef[T]{
			kind: KindPortal, condition: commonv1alpha1.ConditionPortalRefValid,
			ref:      func(obj T) *commonv1alpha1.ObjectRef { return obj.PortalReference() },
			recorded: func(obj T) string { return obj.PortalEntity().RecordedPortalID() },
			record:   func(obj T, id string) { obj.PortalEntity().RecordPortalID(id) },
		})
}

// jsonSubset reports whether every value that want sets, as JSON, is the
// same in got: nested objects field by field, so that what Konnect fills
// in beside what the spec sets is no difference. Lists compare whole.
func jsonSubset(want, got any) bool {
	return subsetOf(AsJSON(want), AsJSON(got))
}

func subsetOf(want, got any) bool {
	wantObject, isObject := want.(map[string]any)
	if !isObject {
		return want == nil || reflect.DeepEqual(want, got)
	}
	gotObject, _ := got.(map[string]any)
	for field, value := range wantObject {
		if !subsetOf(value, gotObject[field]) {
			return false
		}
	}
	return true
}

// jsonField is one top-level field of v's JSON, nil when unset.
func jsonField(v any, field string) any {
	object, _ := AsJSON(v).(map[string]any)
	return object[field]
}
