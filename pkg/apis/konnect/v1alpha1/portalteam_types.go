package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// PortalTeam is a team of developers of a Portal: what its members may see and use
// is given to the team. Konnect keys a team on its name within the portal.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the team"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the team is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.portalRef == oldSelf.spec.portalRef",message="spec.portalRef is immutable when an entity is already Programmed: create a new object for another portal"
type PortalTeam struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired team.
	//
	// +required
	Spec PortalTeamSpec `json:"spec"`

	// Status is the team as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status PortalEntityStatus `json:"status,omitempty"`
}

// PortalTeamSpec is the desired state of a PortalTeam.
type PortalTeamSpec struct {
	// PortalRef names the Portal the team belongs to.
	//
	// +required
	PortalRef commonv1alpha1.ObjectRef `json:"portalRef,omitzero"`

	// APISpec is the team as Konnect's API describes it.
	//
	// +optional
	APISpec PortalTeamAPISpec `json:"apiSpec,omitzero"`
}

// PortalTeamList is a list of PortalTeams.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PortalTeamList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the PortalTeams.
	Items []PortalTeam `json:"items"`
}

// PortalTeamAPISpec is a team as Konnect's API describes it, with Kong
// Operator's field names.
type PortalTeamAPISpec struct {
	// Name of the team, unique among the portal's teams.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=250
	// +kubebuilder:validation:Pattern=`^[\w \W]+$`
	// +required
	Name string `json:"name"`

	// Description of the team.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=250
	// +optional
	Description string `json:"description,omitempty"`

	// CanOwnApplications lets the team own applications (Konnect's
	// default: Disabled).
	//
	// +optional
	CanOwnApplications Toggle `json:"canOwnApplications,omitempty"`
}
