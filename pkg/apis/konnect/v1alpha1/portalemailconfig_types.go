package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// PortalEmailConfig is how a Portal's emails are sent: the sender's name and
// addresses, and the domain. A portal has at most one.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the email configuration"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the email configuration is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.portalRef == oldSelf.spec.portalRef",message="spec.portalRef is immutable when an entity is already Programmed: create a new object for another portal"
type PortalEmailConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired email configuration.
	//
	// +required
	Spec PortalEmailConfigSpec `json:"spec"`

	// Status is the email configuration as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status PortalEntityStatus `json:"status,omitempty"`
}

// PortalEmailConfigSpec is the desired state of a PortalEmailConfig.
type PortalEmailConfigSpec struct {
	// PortalRef names the Portal the email configuration belongs to.
	//
	// +required
	PortalRef commonv1alpha1.ObjectRef `json:"portalRef,omitzero"`

	// APISpec is the email configuration as Konnect's API describes it.
	//
	// +optional
	APISpec PortalEmailConfigAPISpec `json:"apiSpec,omitzero"`
}

// PortalEmailConfigList is a list of PortalEmailConfigs.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PortalEmailConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the PortalEmailConfigs.
	Items []PortalEmailConfig `json:"items"`
}

// PortalEmailConfigAPISpec is a portal's email configuration as Konnect's
// API describes it, with Kong Operator's field names. Unset fields are
// Konnect's defaults.
type PortalEmailConfigAPISpec struct {
	// DomainName is the domain emails are sent from.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	DomainName *string `json:"domainName,omitempty"`

	// FromName is the sender's name.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	FromName *string `json:"fromName,omitempty"`

	// FromEmail is the sender's address.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	FromEmail *string `json:"fromEmail,omitempty"`

	// ReplyToEmail is the Reply-To address; unset sends none.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	ReplyToEmail *string `json:"replyToEmail,omitempty"`
}
