package integration

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// TestControlPlaneReferenceOfEachKind walks the control-plane reference of
// every kind that has one of its own (KongVault's is tested with it): a
// missing control plane, then one that is not Programmed, each reported on
// ControlPlaneRefValid with no Konnect call; then Programmed. A control
// plane in another namespace is refused (ResolvedRefs) until a
// KongReferenceGrant there admits the kind, which fixes the reference
// without touching the referrer.
func TestControlPlaneReferenceOfEachKind(t *testing.T) {
	t.Parallel()
	kinds := []controlPlaneReferrer{upstreams, certificates, caCertificates, keySets, keys, dpCertificates}
	e := newEnv(t, envOptions{})
	other := e.addNamespace()
	each := func(what, name string, check func(konnectObject) error) {
		t.Helper()
		e.eventually(what, func() error {
			for _, k := range kinds {
				if err := check(k.read(e, name)); err != nil {
					return fmt.Errorf("%s: %w", k.kindName(), err)
				}
			}
			return nil
		})
	}
	refusedBy := func(conditionType, reason, programmedReason string) func(konnectObject) error {
		return func(obj konnectObject) error {
			if err := conditionIs(obj, conditionType, metav1.ConditionFalse, reason); err != nil {
				return err
			}
			return conditionIs(obj, commonv1alpha1.ConditionProgrammed, metav1.ConditionFalse, programmedReason)
		}
	}
	programmedAnd := func(conditionType, reason string) func(konnectObject) error {
		return func(obj konnectObject) error {
			if err := conditionIs(obj, conditionType, metav1.ConditionTrue, reason); err != nil {
				return err
			}
			return programmed(obj)
		}
	}

	for _, k := range kinds {
		k.createReferring(e, "local", cpRef("cp"))
	}
	each("a missing control plane is reported", "local", refusedBy(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonInvalid, commonv1alpha1.ReasonWaitingForReferences))
	e.createControlPlane("cp", "auth")
	each("an unprogrammed control plane is reported", "local", refusedBy(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonNotProgrammed, commonv1alpha1.ReasonWaitingForReferences))
	if n := e.sim.Count(e.orgID); n != 0 {
		t.Fatalf("%d entities in Konnect while no control plane was usable", n)
	}
	e.createAuthConfig("auth")
	each("the control plane is used once Programmed", "local", programmedAnd(commonv1alpha1.ConditionControlPlaneRefValid, commonv1alpha1.ReasonValid))

	e.readyIn(other, "cp")
	for _, k := range kinds {
		k.createReferring(e, "remote", cpRefIn(other, "cp"))
	}
	each("a control plane in another namespace is refused", "remote", refusedBy(commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonRefNotPermitted, commonv1alpha1.ReasonConditionWithStatusFalseExists))
	e.settle()
	var from []grantFrom
	for _, k := range kinds {
		from = append(from, grantFrom{"configuration.konghq.com", k.kindName(), e.ns})
	}
	e.grant(other, "all-to-cp", "konnect.konghq.com", "KonnectGatewayControlPlane", from...)
	each("the grant admits them", "remote", programmedAnd(commonv1alpha1.ConditionResolvedRefs, commonv1alpha1.ReasonResolvedRefs))
}
