package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongConsumerGroup is a Kong Gateway consumer group: a named set of
// KongConsumers that plugins can target together. Consumers join groups
// through their own consumerGroups field. Groups without a
// konnectNamespacedRef control plane belong to an in-cluster Kong Ingress
// Controller and are left alone.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=kcg,categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=="Programmed")].status`,description="Whether the consumer group exists in Konnect and equals the spec"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec) || !has(oldSelf.spec.controlPlaneRef) || (has(self.spec) && has(self.spec.controlPlaneRef))",message="spec.controlPlaneRef cannot be removed once set",fieldPath=".spec.controlPlaneRef"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec) || !has(oldSelf.spec.controlPlaneRef) || !has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || (has(self.spec) && has(self.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed",fieldPath=".spec.controlPlaneRef"
type KongConsumerGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired consumer group.
	//
	// +optional
	Spec KongConsumerGroupSpec `json:"spec,omitempty"`

	// Status is the consumer group as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongConsumerGroupStatus `json:"status,omitempty"`
}

// KongConsumerGroupSpec is the desired state of a KongConsumerGroup.
//
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KongConsumerGroupSpec struct {
	// Name of the consumer group in Kong. Sent as is (empty if unset).
	//
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[\p{N}\p{L}.\-_~]*$`
	// +optional
	Name string `json:"name,omitempty"`

	// ControlPlaneRef names the control plane the group belongs to. Only
	// type konnectNamespacedRef puts it in Konnect; kic (the default) leaves
	// it to an in-cluster Kong Ingress Controller.
	//
	// +optional
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef,omitempty"`

	// Adopt takes over an existing Konnect consumer group instead of
	// creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KongConsumerGroupStatus is the observed state of a KongConsumerGroup.
type KongConsumerGroupStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the consumer group lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef `json:"konnect,omitempty"`

	// Conditions describe the group's state: Programmed,
	// ControlPlaneRefValid, APIAuthResolvedRef, APIAuthValid and, where they
	// apply, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongConsumerGroupList is a list of KongConsumerGroups.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongConsumerGroupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongConsumerGroups.
	Items []KongConsumerGroup `json:"items"`
}
