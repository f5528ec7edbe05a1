package catalog

import (
	"k8s.io/apimachinery/pkg/runtime"

	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// References returns the objects obj refers to, found among the catalog's
// objects or not, in the order its kind's Dependencies name them: the
// descriptions the controllers watch, not a second list of relations
// (kubectl konnect status draws them). Objects of kinds the catalog does
// not hold have none.
func (c *Catalog) References(obj runtime.Object) []controller.Reference {
	for _, entry := range c.entries {
		if refs, handled := entry.references(obj); handled {
			return refs
		}
	}
	return nil
}

// referencesOf lists what obj names through each of the kind's
// dependencies.
func referencesOf[T controller.Entity, D any](kind controller.Kind[T, D], obj T) []controller.Reference {
	var out []controller.Reference
	for _, dep := range kind.Dependencies {
		out = append(out, dep.References(obj)...)
	}
	return out
}

func (e adoptingEntry[T, D]) references(obj runtime.Object) ([]controller.Reference, bool) {
	typed, ok := obj.(T)
	if !ok {
		return nil, false
	}
	return referencesOf(e.kind, typed), true
}

func (e controlPlaneEntry) references(obj runtime.Object) ([]controller.Reference, bool) {
	cp, ok := obj.(*konnectv1alpha2.KonnectGatewayControlPlane)
	if !ok {
		return nil, false
	}
	return referencesOf(e.kind, cp), true
}
