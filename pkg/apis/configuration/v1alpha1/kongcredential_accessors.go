package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// The accessors of the five credential kinds, which share
// KongCredentialStatus: their placement records their consumer's ID as well
// as its control plane's.

// GetConditions returns the status conditions.
func (o *KongCredentialBasicAuth) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongCredentialBasicAuth) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongCredentialBasicAuth) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongCredentialBasicAuth) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongCredentialBasicAuth) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongCredentialAPIKey) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongCredentialAPIKey) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongCredentialAPIKey) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongCredentialAPIKey) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongCredentialAPIKey) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongCredentialACL) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongCredentialACL) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongCredentialACL) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongCredentialACL) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongCredentialACL) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongCredentialJWT) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongCredentialJWT) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongCredentialJWT) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongCredentialJWT) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongCredentialJWT) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongCredentialHMAC) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongCredentialHMAC) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongCredentialHMAC) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongCredentialHMAC) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongCredentialHMAC) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndConsumerRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}
