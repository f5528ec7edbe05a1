package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// The accessors the operator's generic loop uses on the Event Gateway
// kinds. KonnectStatus ignores init: the block is part of each status
// itself.

// EventGatewayRecords is where the status of an Event Gateway entity
// records the Konnect IDs of its gateway and of its parent (the gateway
// itself, a backend cluster, a listener or a virtual cluster).
type EventGatewayRecords interface {
	RecordedGatewayID() string
	RecordGatewayID(id string)
	RecordedParentID() string
	RecordParentID(id string)
}

// RecordedParentID is the parent's Konnect ID the status records: for an
// entity whose parent is the gateway, the gateway's.
func (s *EventGatewayEntityStatus) RecordedParentID() string { return s.RecordedGatewayID() }

// RecordParentID records the parent's Konnect ID: for an entity whose
// parent is the gateway, the gateway's.
func (s *EventGatewayEntityStatus) RecordParentID(id string) { s.RecordGatewayID(id) }

// GetConditions returns the status conditions.
func (o *EventGatewayBackendCluster) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *EventGatewayBackendCluster) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *EventGatewayBackendCluster) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *EventGatewayBackendCluster) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// EventGatewayParentRef returns spec.gatewayRef.
func (o *EventGatewayBackendCluster) EventGatewayParentRef() *commonv1alpha1.ObjectRef {
	return &o.Spec.GatewayRef
}

// EventGatewayRecords returns the status, which records the Konnect IDs of
// the gateway and of the parent.
func (o *EventGatewayBackendCluster) EventGatewayRecords() EventGatewayRecords { return &o.Status }

// GetConditions returns the status conditions.
func (o *EventGatewayDataPlaneCertificate) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *EventGatewayDataPlaneCertificate) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *EventGatewayDataPlaneCertificate) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *EventGatewayDataPlaneCertificate) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// EventGatewayParentRef returns spec.gatewayRef.
func (o *EventGatewayDataPlaneCertificate) EventGatewayParentRef() *commonv1alpha1.ObjectRef {
	return &o.Spec.GatewayRef
}

// EventGatewayRecords returns the status, which records the Konnect IDs of
// the gateway and of the parent.
func (o *EventGatewayDataPlaneCertificate) EventGatewayRecords() EventGatewayRecords {
	return &o.Status
}

// GetConditions returns the status conditions.
func (o *EventGatewayListener) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *EventGatewayListener) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *EventGatewayListener) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *EventGatewayListener) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// EventGatewayParentRef returns spec.gatewayRef.
func (o *EventGatewayListener) EventGatewayParentRef() *commonv1alpha1.ObjectRef {
	return &o.Spec.GatewayRef
}

// EventGatewayRecords returns the status, which records the Konnect IDs of
// the gateway and of the parent.
func (o *EventGatewayListener) EventGatewayRecords() EventGatewayRecords { return &o.Status }

// GetConditions returns the status conditions.
func (o *EventGatewaySchemaRegistry) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *EventGatewaySchemaRegistry) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *EventGatewaySchemaRegistry) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *EventGatewaySchemaRegistry) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// EventGatewayParentRef returns spec.gatewayRef.
func (o *EventGatewaySchemaRegistry) EventGatewayParentRef() *commonv1alpha1.ObjectRef {
	return &o.Spec.GatewayRef
}

// EventGatewayRecords returns the status, which records the Konnect IDs of
// the gateway and of the parent.
func (o *EventGatewaySchemaRegistry) EventGatewayRecords() EventGatewayRecords { return &o.Status }

// GetConditions returns the status conditions.
func (o *EventGatewayVirtualCluster) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *EventGatewayVirtualCluster) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *EventGatewayVirtualCluster) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *EventGatewayVirtualCluster) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// EventGatewayParentRef returns spec.eventGatewayBackendClusterRef.
func (o *EventGatewayVirtualCluster) EventGatewayParentRef() *commonv1alpha1.ObjectRef {
	return &o.Spec.EventGatewayBackendClusterRef
}

// EventGatewayRecords returns the status, which records the Konnect IDs of
// the gateway and of the parent.
func (o *EventGatewayVirtualCluster) EventGatewayRecords() EventGatewayRecords { return &o.Status }

// GetConditions returns the status conditions.
func (o *EventGatewayListenerPolicy) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *EventGatewayListenerPolicy) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *EventGatewayListenerPolicy) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *EventGatewayListenerPolicy) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// EventGatewayParentRef returns spec.eventGatewayListenerRef.
func (o *EventGatewayListenerPolicy) EventGatewayParentRef() *commonv1alpha1.ObjectRef {
	return &o.Spec.EventGatewayListenerRef
}

// EventGatewayRecords returns the status, which records the Konnect IDs of
// the gateway and of the parent.
func (o *EventGatewayListenerPolicy) EventGatewayRecords() EventGatewayRecords { return &o.Status }

// GetConditions returns the status conditions.
func (o *EventGatewayVirtualClusterPolicy) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *EventGatewayVirtualClusterPolicy) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *EventGatewayVirtualClusterPolicy) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *EventGatewayVirtualClusterPolicy) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// EventGatewayParentRef returns spec.eventGatewayVirtualClusterRef.
func (o *EventGatewayVirtualClusterPolicy) EventGatewayParentRef() *commonv1alpha1.ObjectRef {
	return &o.Spec.EventGatewayVirtualClusterRef
}

// EventGatewayRecords returns the status, which records the Konnect IDs of
// the gateway and of the parent.
func (o *EventGatewayVirtualClusterPolicy) EventGatewayRecords() EventGatewayRecords {
	return &o.Status
}

// GetConditions returns the status conditions.
func (o *EventGatewayVirtualClusterConsumePolicy) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *EventGatewayVirtualClusterConsumePolicy) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *EventGatewayVirtualClusterConsumePolicy) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *EventGatewayVirtualClusterConsumePolicy) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// EventGatewayParentRef returns spec.eventGatewayVirtualClusterRef.
func (o *EventGatewayVirtualClusterConsumePolicy) EventGatewayParentRef() *commonv1alpha1.ObjectRef {
	return &o.Spec.EventGatewayVirtualClusterRef
}

// EventGatewayRecords returns the status, which records the Konnect IDs of
// the gateway and of the parent.
func (o *EventGatewayVirtualClusterConsumePolicy) EventGatewayRecords() EventGatewayRecords {
	return &o.Status
}

// GetConditions returns the status conditions.
func (o *EventGatewayVirtualClusterProducePolicy) GetConditions() []metav1.Condition {
	return o.Status.Conditions
}

// SetConditions replaces the status conditions.
func (o *EventGatewayVirtualClusterProducePolicy) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *EventGatewayVirtualClusterProducePolicy) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *EventGatewayVirtualClusterProducePolicy) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}

// EventGatewayParentRef returns spec.eventGatewayVirtualClusterRef.
func (o *EventGatewayVirtualClusterProducePolicy) EventGatewayParentRef() *commonv1alpha1.ObjectRef {
	return &o.Spec.EventGatewayVirtualClusterRef
}

// EventGatewayRecords returns the status, which records the Konnect IDs of
// the gateway and of the parent.
func (o *EventGatewayVirtualClusterProducePolicy) EventGatewayRecords() EventGatewayRecords {
	return &o.Status
}
