package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongKey is a cryptographic key (a JWK or a PEM key pair) in a Konnect
// control plane, optionally grouped in a KongKeySet. Plugins such as
// openid-connect and jwt-signer read it.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the key exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.controlPlaneRef) || has(self.spec.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed once set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || !has(self.spec.controlPlaneRef) || (has(oldSelf.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed"
type KongKey struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired key.
	//
	// +required
	Spec KongKeySpec `json:"spec"`

	// Status is the key as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongKeyStatus `json:"status,omitempty"`
}

// KongKeySpec is the desired state of a KongKey.
//
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlaneRef) || !has(self.controlPlaneRef.type) || self.controlPlaneRef.type != 'kic'",message="KIC is not supported as control plane"
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
// +kubebuilder:validation:XValidation:rule="has(self.jwk) || has(self.pem)",message="Either 'jwk' or 'pem' must be set"
type KongKeySpec struct {
	// ControlPlaneRef names the Konnect control plane the key belongs to.
	// The schema allows leaving it out, but only keys with a reference of
	// type konnectNamespacedRef are pushed to Konnect: the control plane is
	// not taken from the key set.
	//
	// +optional
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef,omitempty"`

	// Adopt takes over an existing Konnect key instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	// KeySetRef names the KongKeySet the key belongs to.
	//
	// +optional
	KeySetRef *KeySetRef `json:"keySetRef,omitempty"`

	KongKeyAPISpec `json:",inline"`
}

// KeySetRefType says how a KeySetRef points at its key set.
type KeySetRefType string

const (
	// KeySetRefKonnectID points at a key set by its raw Konnect ID. The
	// schema accepts it, but the operator creates the key without a set.
	KeySetRefKonnectID KeySetRefType = "konnectID"
	// KeySetRefNamespacedRef points at a KongKeySet in the key's namespace.
	KeySetRefNamespacedRef KeySetRefType = "namespacedRef"
)

// KeySetRef names the key set a KongKey belongs to.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'namespacedRef' || has(self.namespacedRef)",message="when type is namespacedRef, namespacedRef must be set"
// +kubebuilder:validation:XValidation:rule="self.type != 'konnectID' || has(self.konnectID)",message="when type is konnectID, konnectID must be set"
type KeySetRef struct {
	// Type is namespacedRef (a KongKeySet in this namespace) or konnectID (a
	// raw Konnect key-set ID, accepted but ignored by the operator).
	//
	// +kubebuilder:validation:Enum=konnectID;namespacedRef
	// +required
	Type KeySetRefType `json:"type"`

	// KonnectID is the Konnect ID of the key set when type is konnectID.
	//
	// +optional
	KonnectID string `json:"konnectID,omitempty"`

	// NamespacedRef names the KongKeySet when type is namespacedRef.
	//
	// +optional
	NamespacedRef *commonv1alpha1.NameRef `json:"namespacedRef,omitempty"`
}

// KongKeyAPISpec holds the fields of a key that are sent to Konnect as they
// are.
type KongKeyAPISpec struct {
	// KID is the key identifier. With a JWK it must equal the kid inside
	// the JWK.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	KID string `json:"kid"`

	// Name is an optional name for the key.
	//
	// +optional
	Name string `json:"name,omitempty"`

	// JWK is the key as a JSON Web Key, written as a JSON string.
	//
	// +optional
	JWK string `json:"jwk,omitempty"`

	// PEM is the key as a PEM-encoded key pair.
	//
	// +optional
	PEM *PEMKeyPair `json:"pem,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// PEMKeyPair is a PEM-encoded private and public key.
type PEMKeyPair struct {
	// PrivateKey is the PEM private key.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	PrivateKey string `json:"private_key"`

	// PublicKey is the PEM public key that belongs to PrivateKey.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	PublicKey string `json:"public_key"`
}

// KongKeyStatus is the observed state of a KongKey.
type KongKeyStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the key lives in Konnect, including the Konnect
	// ID of its key set.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneAndKeySetRef `json:"konnect,omitempty"`

	// Conditions describe the key's state: Programmed, ControlPlaneRefValid,
	// APIAuthResolvedRef, APIAuthValid and, where they apply,
	// KeySetRefValid, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongKeyList is a list of KongKeys.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongKeyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongKeys.
	Items []KongKey `json:"items"`
}
