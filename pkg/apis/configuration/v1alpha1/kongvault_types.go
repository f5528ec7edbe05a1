package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongVault is a secret vault that Kong resolves {vault://<prefix>/...}
// references against. It is cluster-scoped; with a konnectNamespacedRef
// control plane it is pushed to Konnect, otherwise it belongs to an
// in-cluster Kong Ingress Controller and konnect-operator ignores it.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=kv,categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Backend Type",type=string,JSONPath=`.spec.backend`,description="Vault backend"
// +kubebuilder:printcolumn:name="Prefix",type=string,JSONPath=`.spec.prefix`,description="Prefix that vault references use"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Description",type=string,JSONPath=`.spec.description`,description="Description of the vault",priority=1
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=="Programmed")].status`,description="Whether the vault exists in Konnect and equals the spec"
// +kubebuilder:validation:XValidation:rule="self.spec.prefix == oldSelf.spec.prefix",message="The spec.prefix field is immutable"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.controlPlaneRef) || has(self.spec.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed once set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || !has(self.spec.controlPlaneRef) || (has(oldSelf.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed"
type KongVault struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired vault.
	//
	// +required
	Spec KongVaultSpec `json:"spec"`

	// Status is the vault as last seen in Konnect.
	//
	// +optional
	Status KongVaultStatus `json:"status,omitempty"`
}

// KongVaultSpec is the desired state of a KongVault.
//
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
// +kubebuilder:validation:XValidation:rule="!has(self.configStoreRef) || self.backend == 'konnect'",message="spec.configStoreRef is only supported when spec.backend is 'konnect': remove configStoreRef or set backend to konnect"
type KongVaultSpec struct {
	// ControlPlaneRef names the Konnect control plane the vault belongs to.
	// Leave it out (or use type kic) for a vault of an in-cluster Kong
	// Ingress Controller. Because KongVault is cluster-scoped,
	// konnectNamespacedRef.namespace must be set, and that namespace needs a
	// KongReferenceGrant from KongVault with namespace "".
	//
	// +optional
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef,omitempty"`

	// Adopt takes over an existing Konnect vault instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	// Backend is the vault implementation, such as env, aws, gcp, hcv,
	// azure or konnect. Konnect calls it the vault's name.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	Backend string `json:"backend"`

	// Prefix is the name that vault references use, as in
	// {vault://<prefix>/<path>}. It cannot change after creation.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	Prefix string `json:"prefix"`

	// Description of the vault.
	//
	// +optional
	Description string `json:"description,omitempty"`

	// Config is the backend's configuration, a JSON object whose fields
	// depend on the backend.
	//
	// +optional
	Config *apiextensionsv1.JSON `json:"config,omitempty"`

	// ConfigStoreRef names the KonnectConfigStore whose Konnect ID is sent
	// as config.config_store_id. Only for backend konnect. The reference
	// always crosses namespaces, so it needs a KongReferenceGrant from
	// KongVault with namespace "".
	//
	// +optional
	ConfigStoreRef *KonnectConfigStoreRef `json:"configStoreRef,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KonnectConfigStoreRef names a KonnectConfigStore.
type KonnectConfigStoreRef struct {
	// Kind of the referenced object; only KonnectConfigStore.
	//
	// +kubebuilder:validation:Enum=KonnectConfigStore
	// +kubebuilder:default=KonnectConfigStore
	// +optional
	Kind string `json:"kind,omitempty"`

	// Name of the KonnectConfigStore.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// Namespace of the KonnectConfigStore.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Namespace string `json:"namespace"`
}

// KongVaultStatus is the observed state of a KongVault.
type KongVaultStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the vault lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef `json:"konnect,omitempty"`

	// Conditions describe the vault's state: Programmed,
	// ControlPlaneRefValid, APIAuthResolvedRef, APIAuthValid and, where they
	// apply, ResolvedRefs, ConfigStoreRefValid and Adopted. A status
	// written without conditions gets one Programmed=Unknown entry.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:default={{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}
	// +required
	Conditions []metav1.Condition `json:"conditions"`
}

// KongVaultList is a list of KongVaults.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongVaultList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongVaults.
	Items []KongVault `json:"items"`
}
