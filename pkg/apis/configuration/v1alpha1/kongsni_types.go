package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongSNI is a server name for which Kong presents a KongCertificate. It
// inherits its Konnect control plane from that certificate.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the SNI exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || oldSelf.spec.certificateRef == self.spec.certificateRef",message="spec.certificateRef is immutable when programmed"
type KongSNI struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired SNI.
	//
	// +required
	Spec KongSNISpec `json:"spec"`

	// Status is the SNI as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongSNIStatus `json:"status,omitempty"`
}

// KongSNISpec is the desired state of a KongSNI.
//
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KongSNISpec struct {
	// CertificateRef names the KongCertificate served for this name. A
	// certificate in another namespace needs a KongReferenceGrant there.
	//
	// +required
	CertificateRef commonv1alpha1.NamespacedRef `json:"certificateRef"`

	// Adopt takes over an existing Konnect SNI of the certificate instead of
	// creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	KongSNIAPISpec `json:",inline"`
}

// KongSNIAPISpec holds the fields of an SNI that are sent to Konnect as they
// are.
type KongSNIAPISpec struct {
	// Name is the host name, or a wildcard such as *.example.com, that the
	// certificate is served for.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KongSNIStatus is the observed state of a KongSNI.
type KongSNIStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the SNI lives in Konnect, including the Konnect
	// ID of its certificate.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneAndCertificateRefs `json:"konnect,omitempty"`

	// Conditions describe the SNI's state: Programmed,
	// KongCertificateRefValid, ControlPlaneRefValid, APIAuthResolvedRef,
	// APIAuthValid and, where they apply, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongSNIList is a list of KongSNIs.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongSNIList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongSNIs.
	Items []KongSNI `json:"items"`
}
