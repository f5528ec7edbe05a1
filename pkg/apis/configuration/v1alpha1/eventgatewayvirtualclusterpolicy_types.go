package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// EventGatewayVirtualClusterPolicy is a cluster-level policy of a virtual
// cluster: access control lists (type acls).
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the policy"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the policy is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.eventGatewayVirtualClusterRef == oldSelf.spec.eventGatewayVirtualClusterRef",message="spec.eventGatewayVirtualClusterRef is immutable when an entity is already Programmed: create a new object for another virtual cluster"
type EventGatewayVirtualClusterPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired policy.
	//
	// +required
	Spec EventGatewayVirtualClusterPolicySpec `json:"spec"`

	// Status is the policy as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status EventGatewayVirtualClusterPolicyStatus `json:"status,omitempty"`
}

// EventGatewayVirtualClusterPolicySpec is the desired state of an
// EventGatewayVirtualClusterPolicy.
type EventGatewayVirtualClusterPolicySpec struct {
	// EventGatewayVirtualClusterRef names the EventGatewayVirtualCluster
	// the policy belongs to (type namespacedRef); another namespace needs
	// a KongReferenceGrant there.
	//
	// +required
	EventGatewayVirtualClusterRef commonv1alpha1.ObjectRef `json:"eventGatewayVirtualClusterRef,omitzero"`

	// APISpec is the policy as Konnect's API describes it.
	//
	// +required
	APISpec EventGatewayVirtualClusterPolicyAPISpec `json:"apiSpec"`
}

// EventGatewayVirtualClusterPolicyAPISpec is one of the cluster-level
// policies of a virtual cluster: the member that type names.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'acls' || has(self.acls)",message="type acls needs acls"
// +kubebuilder:validation:XValidation:rule="self.type == 'acls' || !has(self.acls)",message="acls is only for type acls: remove it or change the type"
type EventGatewayVirtualClusterPolicyAPISpec struct {
	// Type is acls.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=acls
	// +required
	Type string `json:"type"`

	// ACLs decide which clients may do what to which resources.
	//
	// +optional
	ACLs *EventGatewayACLsPolicy `json:"acls,omitempty"`
}

// EventGatewayACLsPolicy decides which clients may do what to which
// resources of a virtual cluster.
type EventGatewayACLsPolicy struct {
	EventGatewayConditionalPolicyMeta `json:",inline"`

	// Config holds the rules.
	//
	// +required
	Config EventGatewayACLsConfig `json:"config"`
}

// EventGatewayACLsConfig holds access rules.
type EventGatewayACLsConfig struct {
	// Rules are the access rules.
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	Rules []EventGatewayACLRule `json:"rules"`
}

// EventGatewayACLRule allows or denies operations on resources.
type EventGatewayACLRule struct {
	// Action is allow or deny.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=allow;deny
	// +required
	Action string `json:"action"`

	// ResourceType is topic, group, transactional_id or cluster.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=topic;group;transactional_id;cluster
	// +required
	ResourceType string `json:"resourceType"`

	// Operations the rule covers.
	//
	// +required
	Operations []EventGatewayACLOperation `json:"operations"`

	// ResourceNames are the resources the rule covers.
	//
	// +required
	ResourceNames *EventGatewayACLResourceNames `json:"resourceNames"`
}

// EventGatewayACLOperation is a Kafka operation.
type EventGatewayACLOperation struct {
	// Name of the operation.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=all;alter;alter_configs;create;delete;describe;describe_configs;idempotent_write;read;write
	// +required
	Name string `json:"name"`
}

// EventGatewayACLResourceNames are the resources a rule covers: patterns
// (type stat) or an expression evaluated per connection (type dynam).
//
// +kubebuilder:validation:XValidation:rule="self.type != 'stat' || has(self.stat)",message="type stat needs stat"
// +kubebuilder:validation:XValidation:rule="self.type != 'dynam' || has(self.dynam)",message="type dynam needs dynam"
// +kubebuilder:validation:XValidation:rule="self.type == 'stat' || !has(self.stat)",message="stat is only for type stat: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'dynam' || !has(self.dynam)",message="dynam is only for type dynam: remove it or change the type"
type EventGatewayACLResourceNames struct {
	// Type is stat or dynam.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=stat;dynam
	// +required
	Type string `json:"type"`

	// Stat lists name patterns.
	//
	// +kubebuilder:validation:MaxItems=50
	// +optional
	Stat []EventGatewayMatch `json:"stat,omitempty"`

	// Dynam is an expression that gives the names.
	//
	// +optional
	Dynam *string `json:"dynam,omitempty"`
}

// EventGatewayVirtualClusterPolicyStatus is the observed state of a policy
// of a virtual cluster.
type EventGatewayVirtualClusterPolicyStatus struct {
	EventGatewayEntityStatus `json:",inline"`

	// VirtualClusterID is the Konnect ID of the virtual cluster the policy
	// belongs to.
	//
	// +optional
	VirtualClusterID *commonv1alpha1.KonnectEntityRef `json:"virtualClusterID,omitempty"`
}

// RecordedParentID is the virtual cluster's Konnect ID the status records.
func (s *EventGatewayVirtualClusterPolicyStatus) RecordedParentID() string {
	return recordedID(s.VirtualClusterID)
}

// RecordParentID records the virtual cluster's Konnect ID.
func (s *EventGatewayVirtualClusterPolicyStatus) RecordParentID(id string) {
	s.VirtualClusterID = record(id)
}

// EventGatewayVirtualClusterPolicyList is a list of
// EventGatewayVirtualClusterPolicies.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type EventGatewayVirtualClusterPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the EventGatewayVirtualClusterPolicies.
	Items []EventGatewayVirtualClusterPolicy `json:"items"`
}
