package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongConsumer is a Kong Gateway consumer: an identity that plugins can
// authenticate, rate-limit or group. The consumer's identity (username,
// custom_id) and its credentials and groups are top-level fields; only the
// Konnect placement lives under spec. Consumers without a
// konnectNamespacedRef control plane belong to an in-cluster Kong Ingress
// Controller and are left alone.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=kc,categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Username",type=string,JSONPath=`.username`,description="Consumer user name"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=="Programmed")].status`,description="Whether the consumer exists in Konnect and equals the spec"
// +kubebuilder:validation:XValidation:rule="has(self.username) || has(self.custom_id)",message="Need to provide either username or custom_id"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec) || !has(oldSelf.spec.controlPlaneRef) || (has(self.spec) && has(self.spec.controlPlaneRef))",message="spec.controlPlaneRef cannot be removed once set",fieldPath=".spec.controlPlaneRef"
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || !has(self.spec.controlPlaneRef) || !has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || (has(oldSelf.spec) && has(oldSelf.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed",fieldPath=".spec.controlPlaneRef"
type KongConsumer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Username is the consumer's user name. At least one of username and
	// custom_id is required.
	//
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[\p{L}\p{N}.\-_~+@/\[\]]*(?: [\p{L}\p{N}.\-_~+@/\[\]]+)*$`
	// +optional
	Username string `json:"username,omitempty"`

	// CustomID is an identifier of the consumer in another system. At least
	// one of username and custom_id is required.
	//
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[0-9a-zA-Z.\-_~\(\)#%@|+\[\]]*(?: [0-9a-zA-Z.\-_~\(\)#%@|+\[\]]+)*$`
	// +optional
	CustomID string `json:"custom_id,omitempty"`

	// Credentials name Secrets in this namespace, each labelled
	// konghq.com/credential with its type (basic-auth, key-auth, acl, jwt or
	// hmac); the operator turns each into a credential of this consumer.
	//
	// +listType=set
	// +optional
	Credentials []string `json:"credentials,omitempty"`

	// ConsumerGroups name the KongConsumerGroups in this namespace the
	// consumer belongs to.
	//
	// +listType=set
	// +optional
	ConsumerGroups []string `json:"consumerGroups,omitempty"`

	// Spec holds the Konnect placement of the consumer.
	//
	// +optional
	Spec KongConsumerSpec `json:"spec,omitempty"`

	// Status is the consumer as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongConsumerStatus `json:"status,omitempty"`
}

// KongConsumerSpec holds the Konnect placement of a KongConsumer.
//
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KongConsumerSpec struct {
	// ControlPlaneRef names the control plane the consumer belongs to. Only
	// type konnectNamespacedRef puts it in Konnect; kic (the default) leaves
	// it to an in-cluster Kong Ingress Controller.
	//
	// +optional
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef,omitempty"`

	// Adopt takes over an existing Konnect consumer instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KongConsumerStatus is the observed state of a KongConsumer.
type KongConsumerStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the consumer lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef `json:"konnect,omitempty"`

	// Conditions describe the consumer's state: Programmed,
	// ControlPlaneRefValid, CredentialSecretRefsValid,
	// KongConsumerGroupRefsValid, APIAuthResolvedRef, APIAuthValid and,
	// where they apply, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongConsumerList is a list of KongConsumers.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongConsumerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongConsumers.
	Items []KongConsumer `json:"items"`
}
