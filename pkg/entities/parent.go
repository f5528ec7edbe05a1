package entities

import (
	"fmt"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/controller"
)

// parent resolves a reference to another Konnect entity that must exist in
// Konnect first (a route's service, a credential's consumer), sets
// conditionType, and returns the parent with its Konnect ID when it can be
// used for the resolver's purpose.
func parent[P controller.Entity](b *resolver, inf *controller.Informer[P], conditionType, kind, namespace, name string) (P, string) {
	var zero P
	what := fmt.Sprintf("%s %s/%s", kind, namespace, name)
	p, err := inf.Get(namespace, name)
	if err != nil {
		absent(b, inf, conditionType, what, namespace, name, func() { b.missing(conditionType, what) })
		return zero, ""
	}
	id := p.KonnectStatus(false).GetKonnectID()
	if b.forDelete() {
		if id == "" {
			b.gone()
			return zero, ""
		}
		return p, id
	}
	switch {
	case isBeingDeleted(p):
		b.invalid(conditionType, commonv1alpha1.ReasonInvalid, "%s is being deleted", what)
	case id == "" || !controller.IsConditionTrue(p.GetConditions(), commonv1alpha1.ConditionProgrammed):
		b.notProgrammed(conditionType, commonv1alpha1.ReasonInvalid, what, p.GetConditions())
	default:
		b.valid(conditionType, what+" is Programmed")
		return p, id
	}
	return zero, ""
}
