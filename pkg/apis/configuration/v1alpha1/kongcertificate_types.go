package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// CertificateSource says where the material of a KongCertificate or
// KongCACertificate comes from.
type CertificateSource string

const (
	// CertificateSourceInline takes the PEM material from the spec itself.
	CertificateSourceInline CertificateSource = "inline"
	// CertificateSourceSecretRef reads the PEM material from a Secret on
	// every sync.
	CertificateSourceSecretRef CertificateSource = "secretRef"
)

// KongCertificate is a TLS certificate and private key in a Konnect control
// plane, served for the host names of its KongSNIs or presented to
// upstreams by KongServices and KongUpstreams.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the certificate exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.controlPlaneRef) || has(self.spec.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed once set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || !has(self.spec.controlPlaneRef) || (has(oldSelf.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed"
type KongCertificate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired certificate.
	//
	// +required
	Spec KongCertificateSpec `json:"spec"`

	// Status is the certificate as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongCertificateStatus `json:"status,omitempty"`
}

// KongCertificateSpec is the desired state of a KongCertificate.
//
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlaneRef) || !has(self.controlPlaneRef.type) || self.controlPlaneRef.type != 'kic'",message="KIC is not supported as control plane"
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
// +kubebuilder:validation:XValidation:rule="(has(self.type) && self.type != 'inline') || (has(self.cert) && size(self.cert) > 0)",message="spec.cert is required when type is 'inline'"
// +kubebuilder:validation:XValidation:rule="(has(self.type) && self.type != 'inline') || (has(self.key) && size(self.key) > 0)",message="spec.key is required when type is 'inline'"
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'secretRef' || has(self.secretRef)",message="spec.secretRef is required when type is 'secretRef'"
// +kubebuilder:validation:XValidation:rule="!(has(self.cert) || has(self.key)) || !(has(self.secretRef) || has(self.secretRefAlt))",message="cert/key and secretRef/secretRefAlt cannot be set at the same time"
// +kubebuilder:validation:XValidation:rule="!(has(self.cert_alt) || has(self.key_alt)) || !(has(self.secretRef) || has(self.secretRefAlt))",message="cert_alt/key_alt and secretRef/secretRefAlt cannot be set at the same time"
type KongCertificateSpec struct {
	// ControlPlaneRef names the Konnect control plane the certificate
	// belongs to. Its type must be konnectNamespacedRef.
	//
	// +required
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef"`

	// Adopt takes over an existing Konnect certificate instead of creating
	// one. Only override mode works for type secretRef, because match
	// compares the inline fields.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	// Type says where the key pair comes from: inline (spec.cert and
	// spec.key) or secretRef (the tls.crt and tls.key entries of the Secret
	// in spec.secretRef).
	//
	// +kubebuilder:validation:Enum=inline;secretRef
	// +kubebuilder:default=inline
	// +optional
	Type CertificateSource `json:"type,omitempty"`

	// SecretRef names the Secret whose tls.crt and tls.key hold the
	// certificate and key when type is secretRef. A Secret in another
	// namespace needs a KongReferenceGrant to core/Secret there.
	//
	// +optional
	SecretRef *commonv1alpha1.NamespacedRef `json:"secretRef,omitempty"`

	// SecretRefAlt names the Secret whose tls.crt and tls.key hold the
	// alternate (for example ECDSA) certificate and key when type is
	// secretRef.
	//
	// +optional
	SecretRefAlt *commonv1alpha1.NamespacedRef `json:"secretRefAlt,omitempty"`

	KongCertificateAPISpec `json:",inline"`
}

// KongCertificateAPISpec holds the fields of a certificate that are sent to
// Konnect as they are.
type KongCertificateAPISpec struct {
	// Cert is the PEM certificate (with its chain), or a vault reference
	// such as {vault://env/my-cert}. Required when type is inline.
	//
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('{vault:') || self.matches('^\\\\{vault://[A-Za-z0-9._-]+/.+\\\\}\\\\s*$')",message="spec.cert starts like a vault reference but is malformed: write it as {vault://<vault-prefix>/<path>}, where the prefix uses only letters, digits, '.', '_' and '-'"
	// +optional
	Cert string `json:"cert,omitempty"`

	// Key is the PEM private key of Cert, or a vault reference. Required
	// when type is inline.
	//
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('{vault:') || self.matches('^\\\\{vault://[A-Za-z0-9._-]+/.+\\\\}\\\\s*$')",message="spec.key starts like a vault reference but is malformed: write it as {vault://<vault-prefix>/<path>}, where the prefix uses only letters, digits, '.', '_' and '-'"
	// +optional
	Key string `json:"key,omitempty"`

	// CertAlt is an alternate PEM certificate (for example ECDSA next to
	// RSA), or a vault reference.
	//
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('{vault:') || self.matches('^\\\\{vault://[A-Za-z0-9._-]+/.+\\\\}\\\\s*$')",message="spec.cert_alt starts like a vault reference but is malformed: write it as {vault://<vault-prefix>/<path>}, where the prefix uses only letters, digits, '.', '_' and '-'"
	// +optional
	CertAlt string `json:"cert_alt,omitempty"`

	// KeyAlt is the PEM private key of CertAlt, or a vault reference.
	//
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('{vault:') || self.matches('^\\\\{vault://[A-Za-z0-9._-]+/.+\\\\}\\\\s*$')",message="spec.key_alt starts like a vault reference but is malformed: write it as {vault://<vault-prefix>/<path>}, where the prefix uses only letters, digits, '.', '_' and '-'"
	// +optional
	KeyAlt string `json:"key_alt,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KongCertificateStatus is the observed state of a KongCertificate.
type KongCertificateStatus struct {
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
	// apply, SecretRefValid, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongCertificateList is a list of KongCertificates.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongCertificateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongCertificates.
	Items []KongCertificate `json:"items"`
}
