package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongCACertificate is a trusted CA certificate in a Konnect control plane,
// used by KongServices to verify their upstreams.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the CA certificate exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.controlPlaneRef) || has(self.spec.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed once set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || !has(self.spec.controlPlaneRef) || (has(oldSelf.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed"
type KongCACertificate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired CA certificate.
	//
	// +required
	Spec KongCACertificateSpec `json:"spec"`

	// Status is the CA certificate as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongCACertificateStatus `json:"status,omitempty"`
}

// KongCACertificateSpec is the desired state of a KongCACertificate.
//
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlaneRef) || !has(self.controlPlaneRef.type) || self.controlPlaneRef.type != 'kic'",message="KIC is not supported as control plane"
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
// +kubebuilder:validation:XValidation:rule="(has(self.type) && self.type != 'inline') || (has(self.cert) && size(self.cert) > 0)",message="spec.cert is required when type is 'inline'"
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'secretRef' || has(self.secretRef)",message="spec.secretRef is required when type is 'secretRef'"
// +kubebuilder:validation:XValidation:rule="!(has(self.cert) && has(self.secretRef))",message="cert and secretRef cannot be set at the same time"
type KongCACertificateSpec struct {
	// ControlPlaneRef names the Konnect control plane the CA certificate
	// belongs to. Its type must be konnectNamespacedRef.
	//
	// +required
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef"`

	// Adopt takes over an existing Konnect CA certificate instead of
	// creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	// Type says where the CA certificate comes from: inline (spec.cert) or
	// secretRef (the ca.crt entry of the Secret in spec.secretRef).
	//
	// +kubebuilder:validation:Enum=inline;secretRef
	// +kubebuilder:default=inline
	// +optional
	Type CertificateSource `json:"type,omitempty"`

	// SecretRef names the Secret whose ca.crt holds the CA certificate when
	// type is secretRef. A Secret in another namespace needs a
	// KongReferenceGrant to core/Secret there.
	//
	// +optional
	SecretRef *commonv1alpha1.NamespacedRef `json:"secretRef,omitempty"`

	KongCACertificateAPISpec `json:",inline"`
}

// KongCACertificateAPISpec holds the fields of a CA certificate that are sent
// to Konnect as they are.
type KongCACertificateAPISpec struct {
	// Cert is the PEM CA certificate. Required when type is inline.
	//
	// +optional
	Cert string `json:"cert,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KongCACertificateStatus is the observed state of a KongCACertificate.
type KongCACertificateStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the CA certificate lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef `json:"konnect,omitempty"`

	// Conditions describe the CA certificate's state: Programmed,
	// ControlPlaneRefValid, APIAuthResolvedRef, APIAuthValid and, where they
	// apply, SecretRefValid, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongCACertificateList is a list of KongCACertificates.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongCACertificateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongCACertificates.
	Items []KongCACertificate `json:"items"`
}
