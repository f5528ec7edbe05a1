package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongDataPlaneClientCertificate is a certificate that data planes present
// to a Konnect control plane (or control-plane group) in pinned-certificate
// mode. Konnect cannot update it: changing the certificate means a new
// object.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the certificate exists in Konnect"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.controlPlaneRef) || has(self.spec.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed once set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || !has(self.spec.controlPlaneRef) || (has(oldSelf.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || oldSelf.spec.cert == self.spec.cert",message="spec.cert is immutable when an entity is already Programmed"
type KongDataPlaneClientCertificate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired data-plane client certificate.
	//
	// +required
	Spec KongDataPlaneClientCertificateSpec `json:"spec"`

	// Status is the certificate as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongDataPlaneClientCertificateStatus `json:"status,omitempty"`
}

// KongDataPlaneClientCertificateSpec is the desired state of a
// KongDataPlaneClientCertificate.
//
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlaneRef) || !has(self.controlPlaneRef.type) || self.controlPlaneRef.type != 'kic'",message="KIC is not supported as control plane"
type KongDataPlaneClientCertificateSpec struct {
	// ControlPlaneRef names the Konnect control plane, or control-plane
	// group, that accepts the certificate. Its type must be
	// konnectNamespacedRef.
	//
	// +required
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef"`

	// Adopt takes over a certificate that already exists in Konnect. Only
	// mode match is allowed: the Konnect certificate must equal spec.cert
	// byte for byte, because Konnect cannot update it.
	//
	// +kubebuilder:validation:XValidation:rule="has(self.mode) && self.mode == 'match'",message="Only 'match' mode adoption is supported"
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	KongDataPlaneClientCertificateAPISpec `json:",inline"`
}

// KongDataPlaneClientCertificateAPISpec holds the fields sent to Konnect.
type KongDataPlaneClientCertificateAPISpec struct {
	// Cert is the PEM certificate that data planes present. It cannot
	// change once the certificate is Programmed.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	Cert string `json:"cert"`
}

// KongDataPlaneClientCertificateStatus is the observed state of a
// KongDataPlaneClientCertificate.
type KongDataPlaneClientCertificateStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the certificate lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef `json:"konnect,omitempty"`

	// Conditions describe the certificate's state: Programmed,
	// ControlPlaneRefValid, APIAuthResolvedRef, APIAuthValid and, where they
	// apply, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongDataPlaneClientCertificateList is a list of
// KongDataPlaneClientCertificates.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongDataPlaneClientCertificateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongDataPlaneClientCertificates.
	Items []KongDataPlaneClientCertificate `json:"items"`
}
