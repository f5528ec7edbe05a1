package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// GetConditions returns the status conditions.
func (o *KonnectAPIAuthConfiguration) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *KonnectAPIAuthConfiguration) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KonnectAPIAuthConfiguration) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// GetConditions returns the status conditions.
func (o *KonnectCloudGatewayNetwork) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KonnectCloudGatewayNetwork) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KonnectCloudGatewayNetwork) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the network's Konnect ID, server URL and
// organisation. The block is part of the status itself, so init has no
// effect.
func (o *KonnectCloudGatewayNetwork) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// GetConditions returns the status conditions.
func (o *KonnectCloudGatewayDataPlaneGroupConfiguration) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *KonnectCloudGatewayDataPlaneGroupConfiguration) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KonnectCloudGatewayDataPlaneGroupConfiguration) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the configuration's Konnect ID, server URL and
// organisation; init has no effect (the block is part of the status).
func (o *KonnectCloudGatewayDataPlaneGroupConfiguration) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// ControlPlaneStatus returns the configuration's Konnect placement,
// including its control plane's ID; init has no effect.
func (o *KonnectCloudGatewayDataPlaneGroupConfiguration) ControlPlaneStatus(bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	return &o.Status.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KonnectCloudGatewayTransitGateway) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *KonnectCloudGatewayTransitGateway) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KonnectCloudGatewayTransitGateway) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the transit gateway's Konnect ID, server URL and
// organisation; init has no effect (the block is part of the status).
func (o *KonnectCloudGatewayTransitGateway) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}
