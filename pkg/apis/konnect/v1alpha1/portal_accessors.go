package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// The accessors the operator's generic loop uses on the kinds of the Dev
// Portal and of config stores. KonnectStatus ignores init: the block is
// part of each status itself.

// GetConditions returns the status conditions.
func (o *Portal) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *Portal) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *Portal) SetObservedGeneration(generation int64) { o.Status.ObservedGeneration = generation }

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *Portal) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// GetConditions returns the status conditions.
func (o *KonnectConfigStore) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KonnectConfigStore) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KonnectConfigStore) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *KonnectConfigStore) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// GetConditions returns the status conditions.
func (o *PortalPage) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *PortalPage) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *PortalPage) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *PortalPage) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// PortalReference returns spec.portalRef.
func (o *PortalPage) PortalReference() *commonv1alpha1.ObjectRef { return &o.Spec.PortalRef }

// PortalEntity returns the status, which records the portal's Konnect ID.
func (o *PortalPage) PortalEntity() *PortalEntityStatus { return &o.Status }

// GetConditions returns the status conditions.
func (o *PortalTeam) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *PortalTeam) SetConditions(conditions []metav1.Condition) { o.Status.Conditions = conditions }

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *PortalTeam) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *PortalTeam) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// PortalReference returns spec.portalRef.
func (o *PortalTeam) PortalReference() *commonv1alpha1.ObjectRef { return &o.Spec.PortalRef }

// PortalEntity returns the status, which records the portal's Konnect ID.
func (o *PortalTeam) PortalEntity() *PortalEntityStatus { return &o.Status }

// GetConditions returns the status conditions.
func (o *PortalCustomization) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *PortalCustomization) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *PortalCustomization) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *PortalCustomization) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// PortalReference returns spec.portalRef.
func (o *PortalCustomization) PortalReference() *commonv1alpha1.ObjectRef { return &o.Spec.PortalRef }

// PortalEntity returns the status, which records the portal's Konnect ID.
func (o *PortalCustomization) PortalEntity() *PortalEntityStatus { return &o.Status }

// GetConditions returns the status conditions.
func (o *PortalCustomDomain) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *PortalCustomDomain) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *PortalCustomDomain) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *PortalCustomDomain) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// PortalReference returns spec.portalRef.
func (o *PortalCustomDomain) PortalReference() *commonv1alpha1.ObjectRef { return &o.Spec.PortalRef }

// PortalEntity returns the status, which records the portal's Konnect ID.
func (o *PortalCustomDomain) PortalEntity() *PortalEntityStatus { return &o.Status }

// GetConditions returns the status conditions.
func (o *PortalEmailConfig) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *PortalEmailConfig) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *PortalEmailConfig) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *PortalEmailConfig) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// PortalReference returns spec.portalRef.
func (o *PortalEmailConfig) PortalReference() *commonv1alpha1.ObjectRef { return &o.Spec.PortalRef }

// PortalEntity returns the status, which records the portal's Konnect ID.
func (o *PortalEmailConfig) PortalEntity() *PortalEntityStatus { return &o.Status }

// GetConditions returns the status conditions.
func (o *PortalIdentityProviderRequest) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *PortalIdentityProviderRequest) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *PortalIdentityProviderRequest) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *PortalIdentityProviderRequest) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// PortalReference returns spec.portalRef.
func (o *PortalIdentityProviderRequest) PortalReference() *commonv1alpha1.ObjectRef {
	return &o.Spec.PortalRef
}

// PortalEntity returns the status, which records the portal's Konnect ID.
func (o *PortalIdentityProviderRequest) PortalEntity() *PortalEntityStatus { return &o.Status }

// GetConditions returns the status conditions.
func (o *PortalIPAllowList) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *PortalIPAllowList) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *PortalIPAllowList) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *PortalIPAllowList) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// PortalReference returns spec.portalRef.
func (o *PortalIPAllowList) PortalReference() *commonv1alpha1.ObjectRef { return &o.Spec.PortalRef }

// PortalEntity returns the status, which records the portal's Konnect ID.
func (o *PortalIPAllowList) PortalEntity() *PortalEntityStatus { return &o.Status }
