package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// PortalIPAllowList is a list of the addresses a Portal may be reached from,
// when the portal's siprEnabled is Enabled. Konnect keys it on nothing but
// its addresses.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the IP allow list"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the IP allow list is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.portalRef == oldSelf.spec.portalRef",message="spec.portalRef is immutable when an entity is already Programmed: create a new object for another portal"
type PortalIPAllowList struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired IP allow list.
	//
	// +required
	Spec PortalIPAllowListSpec `json:"spec"`

	// Status is the IP allow list as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status PortalEntityStatus `json:"status,omitempty"`
}

// PortalIPAllowListSpec is the desired state of a PortalIPAllowList.
type PortalIPAllowListSpec struct {
	// PortalRef names the Portal the IP allow list belongs to.
	//
	// +required
	PortalRef commonv1alpha1.ObjectRef `json:"portalRef,omitzero"`

	// APISpec is the IP allow list as Konnect's API describes it.
	//
	// +optional
	APISpec PortalIPAllowListAPISpec `json:"apiSpec,omitzero"`
}

// PortalIPAllowListList is a list of PortalIPAllowLists.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PortalIPAllowListList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the PortalIPAllowLists.
	Items []PortalIPAllowList `json:"items"`
}

// PortalIPAllowListAPISpec is an IP allow list as Konnect's API describes
// it, with Kong Operator's field names.
type PortalIPAllowListAPISpec struct {
	// AllowedIps are the addresses and CIDR blocks allowed: one to 25,
	// each once.
	//
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=25
	// +kubebuilder:validation:items:MaxLength=64
	// +listType=set
	// +required
	AllowedIps []string `json:"allowedIps"`
}
