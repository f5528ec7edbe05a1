package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// The accessors below let the generic reconciler read and write the parts
// of the status that every Konnect entity shares.

// GetConditions returns the status conditions.
func (o *KongConsumerGroup) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongConsumerGroup) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongConsumerGroup) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongConsumerGroup) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongConsumerGroup) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneRef{}
	}
	return o.Status.Konnect
}
