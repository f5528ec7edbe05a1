package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

// Portal is a Konnect Dev Portal (v3): the site where developers find
// APIs and register applications. Its pages, teams, customization, custom
// domain, email configuration, identity providers and IP allow lists are
// objects of their own that name it in spec.portalRef.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the portal"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the portal is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Portal struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired portal.
	//
	// +required
	Spec PortalSpec `json:"spec"`

	// Status is the portal as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status PortalStatus `json:"status,omitempty"`
}

// PortalSpec is the desired state of a Portal.
type PortalSpec struct {
	// Konnect names the KonnectAPIAuthConfiguration that supplies the
	// token, the Konnect API and the organization.
	//
	// +required
	KonnectConfiguration konnectv1alpha2.KonnectConfiguration `json:"konnect"`

	// APISpec is the portal as Konnect's API describes it.
	//
	// +optional
	APISpec PortalAPISpec `json:"apiSpec,omitzero"`
}

// PortalAPISpec is the portal as Konnect's API describes it, with Kong
// Operator's field names. Unset fields keep Konnect's defaults.
type PortalAPISpec struct {
	// Name distinguishes the portal from the organization's other portals
	// (Konnect keeps it unique). It cannot change.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="name is immutable"
	// +required
	Name string `json:"name"`

	// DisplayName is the name developers see; Konnect uses name when it is
	// unset.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +optional
	DisplayName string `json:"displayName,omitempty"`

	// Description of the portal.
	//
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Description *string `json:"description,omitempty"`

	// AuthenticationEnabled lets developers register and create
	// applications (Konnect's default: Enabled).
	//
	// +optional
	AuthenticationEnabled Toggle `json:"authenticationEnabled,omitempty"`

	// RBACEnabled protects the portal's APIs with teams: developers see
	// only what their teams are given. Needs authentication.
	//
	// +optional
	RBACEnabled Toggle `json:"rbacEnabled,omitempty"`

	// SiprEnabled turns the portal's IP allow lists on.
	//
	// +optional
	SiprEnabled Toggle `json:"siprEnabled,omitempty"`

	// AutoApproveDevelopers approves developer registrations without an
	// administrator.
	//
	// +optional
	AutoApproveDevelopers Toggle `json:"autoApproveDevelopers,omitempty"`

	// AutoApproveApplications approves applications' registrations for
	// APIs without an administrator.
	//
	// +optional
	AutoApproveApplications Toggle `json:"autoApproveApplications,omitempty"`

	// NotificationsDeveloperPiiVisibilityEnabled includes the registering
	// developer's name and email in registration notifications.
	//
	// +optional
	NotificationsDeveloperPiiVisibilityEnabled Toggle `json:"notificationsDeveloperPiiVisibilityEnabled,omitempty"`

	// DefaultAPIVisibility is the visibility of newly published APIs:
	// public or private.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=public;private
	// +optional
	DefaultAPIVisibility string `json:"defaultAPIVisibility,omitempty"`

	// DefaultPageVisibility is the visibility of newly created pages:
	// public or private.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=public;private
	// +optional
	DefaultPageVisibility string `json:"defaultPageVisibility,omitempty"`

	// DefaultApplicationAuthStrategyIDRef names the application auth
	// strategy that newly published APIs use, by its Konnect ID (type
	// konnectID): this operator manages no application auth strategies.
	//
	// +optional
	DefaultApplicationAuthStrategyIDRef *commonv1alpha1.ObjectRef `json:"defaultApplicationAuthStrategyIDRef,omitempty"`

	// Labels are Konnect labels for the portal, beside the operator's own
	// k8s-* and managed-by labels. Keys are 1-63 characters and do not
	// start with kong, konnect, mesh, kic or _.
	//
	// +kubebuilder:validation:MaxProperties=50
	// +optional
	Labels map[string]LabelValue `json:"labels,omitempty"`
}

// LabelValue is the value of a Konnect label.
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[a-z0-9A-Z]{1}([a-z0-9A-Z-._]*[a-z0-9A-Z]+)?$`
type LabelValue string

// PortalStatus is the observed state of a Portal.
type PortalStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	commonv1alpha1.KonnectEntityStatus `json:",inline"`

	// Conditions describe the portal's state: Programmed,
	// APIAuthResolvedRef, APIAuthValid and, where they apply, ResolvedRefs.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PortalList is a list of Portals.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PortalList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the Portals.
	Items []Portal `json:"items"`
}
