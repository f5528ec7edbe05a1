package v1alpha2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// GetConditions returns the status conditions.
func (o *KonnectGatewayControlPlane) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KonnectGatewayControlPlane) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KonnectGatewayControlPlane) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the control plane's Konnect ID, server URL and
// organisation. The block is part of the status itself, so init has no
// effect.
func (o *KonnectGatewayControlPlane) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// IsMirror reports whether the control plane mirrors an existing one
// instead of creating it.
func (o *KonnectGatewayControlPlane) IsMirror() bool {
	return o.Spec.Source != nil && *o.Spec.Source == ControlPlaneSourceMirror
}
