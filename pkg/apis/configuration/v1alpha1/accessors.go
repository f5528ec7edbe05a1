package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// The accessors below let the generic reconciler read and write the parts
// of the status that every Konnect entity shares.

// GetConditions returns the status conditions.
func (o *KongService) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongService) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongService) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongService) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongService) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndCertificateAndCACertificatesRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongRoute) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongRoute) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongRoute) SetObservedGeneration(generation int64) { o.Status.ObservedGeneration = generation }

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongRoute) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongRoute) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndServiceRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongUpstream) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongUpstream) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongUpstream) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongUpstream) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongUpstream) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndCertificateRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongTarget) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongTarget) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongTarget) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongTarget) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongTarget) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndUpstreamRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongCertificate) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongCertificate) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongCertificate) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongCertificate) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongCertificate) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneRef{}
	}
	return o.Status.Konnect
}

// GetConditions returns the status conditions.
func (o *KongCACertificate) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongCACertificate) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongCACertificate) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongCACertificate) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongCACertificate) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneRef{}
	}
	return o.Status.Konnect
}

// GetConditions returns the status conditions.
func (o *KongSNI) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongSNI) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongSNI) SetObservedGeneration(generation int64) { o.Status.ObservedGeneration = generation }

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongSNI) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongSNI) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndCertificateRefs{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongKey) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongKey) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongKey) SetObservedGeneration(generation int64) { o.Status.ObservedGeneration = generation }

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongKey) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongKey) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneAndKeySetRef{}
	}
	return &o.Status.Konnect.KonnectEntityStatusWithControlPlaneRef
}

// GetConditions returns the status conditions.
func (o *KongKeySet) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongKeySet) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongKeySet) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongKeySet) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongKeySet) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneRef{}
	}
	return o.Status.Konnect
}

// GetConditions returns the status conditions.
func (o *KongVault) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongVault) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongVault) SetObservedGeneration(generation int64) { o.Status.ObservedGeneration = generation }

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongVault) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongVault) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneRef{}
	}
	return o.Status.Konnect
}

// GetConditions returns the status conditions.
func (o *KongPluginBinding) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KongPluginBinding) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongPluginBinding) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongPluginBinding) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongPluginBinding) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneRef{}
	}
	return o.Status.Konnect
}

// GetConditions returns the status conditions.
func (o *KongDataPlaneClientCertificate) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *KongDataPlaneClientCertificate) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KongDataPlaneClientCertificate) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the Konnect ID, server URL and organisation of the
// entity; nil when absent unless init is true.
func (o *KongDataPlaneClientCertificate) KonnectStatus(init bool) *commonv1alpha1.KonnectEntityStatus {
	if s := o.ControlPlaneStatus(init); s != nil {
		return &s.KonnectEntityStatus
	}
	return nil
}

// ControlPlaneStatus returns the Konnect placement of the entity including
// its control plane's ID; nil when absent unless init is true.
func (o *KongDataPlaneClientCertificate) ControlPlaneStatus(init bool) *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef {
	if o.Status.Konnect == nil {
		if !init {
			return nil
		}
		o.Status.Konnect = &commonv1alpha1.KonnectEntityStatusWithControlPlaneRef{}
	}
	return o.Status.Konnect
}
