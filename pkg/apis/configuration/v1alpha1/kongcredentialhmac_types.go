package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongCredentialHMAC is a user name and shared secret with which a
// KongConsumer signs requests for the hmac-auth plugin.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the credential exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || oldSelf.spec.consumerRef == self.spec.consumerRef",message="spec.consumerRef is immutable when an entity is already Programmed"
type KongCredentialHMAC struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired HMAC credential.
	//
	// +required
	Spec KongCredentialHMACSpec `json:"spec"`

	// Status is the HMAC credential as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongCredentialStatus `json:"status,omitempty"`
}

// KongCredentialHMACSpec is the desired state of a KongCredentialHMAC.
//
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KongCredentialHMACSpec struct {
	// ConsumerRef names the KongConsumer, in the same namespace, that owns
	// the credential. The credential uses the consumer's control plane.
	//
	// +required
	ConsumerRef corev1.LocalObjectReference `json:"consumerRef"`

	// Adopt takes over the existing Konnect HMAC credential with the ID in
	// adopt.konnect.id instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	KongCredentialHMACAPISpec `json:",inline"`
}

// KongCredentialHMACAPISpec holds the credential itself, as Konnect stores it.
type KongCredentialHMACAPISpec struct {
	// ID is accepted for compatibility but is not sent to Konnect; Konnect
	// chooses the credential's ID.
	//
	// +optional
	ID string `json:"id,omitempty"`

	// Username is the HMAC user name.
	//
	// +required
	Username string `json:"username"`

	// Secret is the shared HMAC secret. Absent lets Konnect generate one.
	//
	// +optional
	Secret string `json:"secret,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KongCredentialHMACList is a list of KongCredentialHMACs.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongCredentialHMACList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongCredentialHMACs.
	Items []KongCredentialHMAC `json:"items"`
}
