package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongCredentialJWT is a key with which the jwt plugin verifies the JSON Web
// Tokens a KongConsumer presents.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the credential exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || oldSelf.spec.consumerRef == self.spec.consumerRef",message="spec.consumerRef is immutable when an entity is already Programmed"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.algorithm) || !(self.spec.algorithm in ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'EdDSA']) || has(self.spec.rsa_public_key)",message="spec.rsa_public_key is required when algorithm is RS*, ES*, PS* or EdDSA*"
type KongCredentialJWT struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired JWT credential.
	//
	// +required
	Spec KongCredentialJWTSpec `json:"spec"`

	// Status is the JWT credential as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongCredentialStatus `json:"status,omitempty"`
}

// KongCredentialJWTSpec is the desired state of a KongCredentialJWT.
//
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KongCredentialJWTSpec struct {
	// ConsumerRef names the KongConsumer, in the same namespace, that owns
	// the credential. The credential uses the consumer's control plane.
	//
	// +required
	ConsumerRef corev1.LocalObjectReference `json:"consumerRef"`

	// Adopt takes over the existing Konnect JWT credential with the ID in
	// adopt.konnect.id instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	KongCredentialJWTAPISpec `json:",inline"`
}

// KongCredentialJWTAPISpec holds the credential itself, as Konnect stores it.
type KongCredentialJWTAPISpec struct {
	// ID is accepted for compatibility but is not sent to Konnect; Konnect
	// chooses the credential's ID.
	//
	// +optional
	ID string `json:"id,omitempty"`

	// Key identifies the credential; tokens carry it in their iss claim (or
	// the claim the plugin is configured to read).
	//
	// +optional
	Key string `json:"key,omitempty"`

	// Algorithm is the algorithm tokens are signed with. Absent means
	// HS256. Every RS*, ES*, PS* and EdDSA algorithm needs rsa_public_key.
	//
	// +kubebuilder:validation:Enum=HS256;HS384;HS512;RS256;RS384;RS512;ES256;ES384;ES512;PS256;PS384;PS512;EdDSA
	// +kubebuilder:default=HS256
	// +optional
	Algorithm string `json:"algorithm,omitempty"`

	// RSAPublicKey is the PEM public key that verifies tokens signed with an
	// asymmetric algorithm.
	//
	// +optional
	RSAPublicKey string `json:"rsa_public_key,omitempty"`

	// Secret is the shared secret that verifies tokens signed with an HS*
	// algorithm.
	//
	// +optional
	Secret string `json:"secret,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KongCredentialJWTList is a list of KongCredentialJWTs.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongCredentialJWTList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongCredentialJWTs.
	Items []KongCredentialJWT `json:"items"`
}
