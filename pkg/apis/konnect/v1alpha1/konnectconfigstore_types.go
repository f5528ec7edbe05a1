package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KonnectConfigStore is a config store of a Konnect control plane: a
// place for secrets that the control plane's konnect vaults read
// (KongVault with backend konnect and spec.configStoreRef). Konnect keys
// config stores on nothing but their name.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the config store"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the config store is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.controlPlaneRef == oldSelf.spec.controlPlaneRef",message="spec.controlPlaneRef is immutable when an entity is already Programmed: create a new KonnectConfigStore for another control plane"
type KonnectConfigStore struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired config store.
	//
	// +required
	Spec KonnectConfigStoreSpec `json:"spec"`

	// Status is the config store as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KonnectConfigStoreStatus `json:"status,omitempty"`
}

// KonnectConfigStoreSpec is the desired state of a KonnectConfigStore.
type KonnectConfigStoreSpec struct {
	// ControlPlaneRef names the KonnectGatewayControlPlane the store
	// belongs to (type namespacedRef); another namespace needs a
	// KongReferenceGrant there.
	//
	// +required
	ControlPlaneRef commonv1alpha1.ObjectRef `json:"controlPlaneRef,omitzero"`

	// APISpec is the config store as Konnect's API describes it.
	//
	// +optional
	APISpec KonnectConfigStoreAPISpec `json:"apiSpec,omitzero"`
}

// KonnectConfigStoreAPISpec is a config store as Konnect's API describes
// it, with Kong Operator's field names.
type KonnectConfigStoreAPISpec struct {
	// Name of the config store. It is how the operator finds the store
	// again when the object's status is lost: give each store of a control
	// plane its own.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=100
	// +optional
	Name string `json:"name,omitempty"`
}

// KonnectConfigStoreStatus is the observed state of a KonnectConfigStore.
type KonnectConfigStoreStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	commonv1alpha1.KonnectEntityStatus `json:",inline"`

	// ControlPlaneID is the Konnect ID of the store's control plane.
	//
	// +optional
	ControlPlaneID *commonv1alpha1.KonnectEntityRef `json:"controlPlaneID,omitempty"`

	// Conditions describe the config store's state: Programmed,
	// ControlPlaneRefValid, APIAuthResolvedRef, APIAuthValid and, for a
	// control plane in another namespace, ResolvedRefs.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KonnectConfigStoreList is a list of KonnectConfigStores.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KonnectConfigStoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KonnectConfigStores.
	Items []KonnectConfigStore `json:"items"`
}
