package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// EventGatewayVirtualCluster is a virtual cluster of an event gateway: a
// Kafka cluster as clients see it, mapped to a backend cluster, with its
// own authentication, topic namespace and policies. It names its backend
// cluster; its gateway is the backend cluster's.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the virtual cluster"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the virtual cluster is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.eventGatewayBackendClusterRef == oldSelf.spec.eventGatewayBackendClusterRef",message="spec.eventGatewayBackendClusterRef is immutable when an entity is already Programmed: create a new object for another backend cluster"
type EventGatewayVirtualCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired virtual cluster.
	//
	// +required
	Spec EventGatewayVirtualClusterSpec `json:"spec"`

	// Status is the virtual cluster as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status EventGatewayVirtualClusterStatus `json:"status,omitempty"`
}

// EventGatewayVirtualClusterSpec is the desired state of an
// EventGatewayVirtualCluster.
type EventGatewayVirtualClusterSpec struct {
	// EventGatewayBackendClusterRef names the EventGatewayBackendCluster
	// the virtual cluster maps to (type namespacedRef); another namespace
	// needs a KongReferenceGrant there.
	//
	// +required
	EventGatewayBackendClusterRef commonv1alpha1.ObjectRef `json:"eventGatewayBackendClusterRef,omitzero"`

	// APISpec is the virtual cluster as Konnect's API describes it.
	//
	// +required
	APISpec EventGatewayVirtualClusterAPISpec `json:"apiSpec"`
}

// EventGatewayVirtualClusterAPISpec is a virtual cluster as Konnect's API
// describes it, with Kong Operator's field names. Its destination is the
// backend cluster the spec names.
type EventGatewayVirtualClusterAPISpec struct {
	// Name of the virtual cluster, unique in its gateway.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	Name string `json:"name"`

	// Description of the virtual cluster.
	//
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Description string `json:"description,omitempty"`

	// DNSLabel identifies the virtual cluster in its bootstrap server's
	// host name when listeners route by SNI; unique in its gateway.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	DNSLabel string `json:"dnsLabel"`

	// ACLMode is enforce_on_gateway (the virtual cluster's acls policies
	// decide) or passthrough (the backend cluster's ACLs decide).
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=enforce_on_gateway;passthrough
	// +required
	ACLMode string `json:"aclMode"`

	// Authentication lists how clients may authenticate.
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	Authentication []EventGatewayVirtualClusterAuthentication `json:"authentication"`

	// Namespace isolates the virtual cluster's topics and consumer groups
	// by a prefix.
	//
	// +optional
	Namespace *EventGatewayVirtualClusterNamespace `json:"namespace,omitempty"`

	// TopicAliases give backend topics other names.
	//
	// +optional
	TopicAliases []EventGatewayTopicAlias `json:"topicAliases,omitempty"`

	// Labels are Konnect labels for the virtual cluster.
	//
	// +optional
	Labels EventGatewayLabels `json:"labels,omitempty"`
}

// EventGatewayVirtualClusterNamespace isolates a virtual cluster's topics
// and consumer groups by a prefix.
type EventGatewayVirtualClusterNamespace struct {
	// Mode is hide_prefix (clients see names without the prefix) or
	// enforce_prefix (clients use names with it).
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=hide_prefix;enforce_prefix
	// +required
	Mode string `json:"mode"`

	// Prefix of the virtual cluster's topics and consumer groups.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Prefix string `json:"prefix"`

	// Additional are topics and consumer groups outside the prefix that
	// the virtual cluster also sees.
	//
	// +optional
	Additional *EventGatewayNamespaceAdditional `json:"additional,omitempty"`
}

// EventGatewayNamespaceAdditional lists topics and consumer groups outside
// a virtual cluster's prefix that it also sees.
type EventGatewayNamespaceAdditional struct {
	// Topics outside the prefix.
	//
	// +optional
	Topics []EventGatewayTopicSelector `json:"topics,omitempty"`

	// ConsumerGroups outside the prefix.
	//
	// +optional
	ConsumerGroups []EventGatewayConsumerGroupSelector `json:"consumerGroups,omitempty"`
}

// EventGatewayTopicSelector selects topics by a glob or an exact list.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'glob' || has(self.glob)",message="type glob needs glob"
// +kubebuilder:validation:XValidation:rule="self.type == 'glob' || !has(self.glob)",message="glob is only for type glob: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'exactList' || !has(self.exactList)",message="exactList is only for type exactList: remove it or change the type"
type EventGatewayTopicSelector struct {
	// Type is glob or exactList.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=exactList;glob
	// +required
	Type string `json:"type"`

	// Glob selects the topics a pattern matches.
	//
	// +optional
	Glob *EventGatewayTopicGlob `json:"glob,omitempty"`

	// ExactList selects the topics it names.
	//
	// +optional
	ExactList *EventGatewayTopicExactList `json:"exactList,omitempty"`
}

// EventGatewayTopicGlob selects the topics a pattern matches.
type EventGatewayTopicGlob struct {
	// Glob is the pattern.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._?*-]+$`
	// +required
	Glob string `json:"glob"`

	// Conflict is what a name already inside the prefix does: warn
	// (Konnect's default) or ignore.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=warn;ignore
	// +optional
	Conflict string `json:"conflict,omitempty"`
}

// EventGatewayTopicExactList selects the topics it names.
type EventGatewayTopicExactList struct {
	// ExactList names the backend topics.
	//
	// +kubebuilder:validation:MinItems=1
	// +optional
	ExactList []EventGatewayBackendTopic `json:"exactList,omitempty"`

	// Conflict is what a name already inside the prefix does: warn
	// (Konnect's default) or ignore.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=warn;ignore
	// +optional
	Conflict string `json:"conflict,omitempty"`
}

// EventGatewayBackendTopic names a topic of the backend cluster.
type EventGatewayBackendTopic struct {
	// Backend is the topic's name in the backend cluster.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Backend string `json:"backend"`
}

// EventGatewayConsumerGroupSelector selects consumer groups by a glob or
// an exact list.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'glob' || has(self.glob)",message="type glob needs glob"
// +kubebuilder:validation:XValidation:rule="self.type == 'glob' || !has(self.glob)",message="glob is only for type glob: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'exactList' || !has(self.exactList)",message="exactList is only for type exactList: remove it or change the type"
type EventGatewayConsumerGroupSelector struct {
	// Type is glob or exactList.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=exactList;glob
	// +required
	Type string `json:"type"`

	// Glob selects the consumer groups a pattern matches.
	//
	// +optional
	Glob *EventGatewayGroupGlob `json:"glob,omitempty"`

	// ExactList selects the consumer groups it names.
	//
	// +optional
	ExactList *EventGatewayGroupExactList `json:"exactList,omitempty"`
}

// EventGatewayGroupGlob selects the consumer groups a pattern matches.
type EventGatewayGroupGlob struct {
	// Glob is the pattern.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._?*-]+$`
	// +required
	Glob string `json:"glob"`
}

// EventGatewayGroupExactList selects the consumer groups it names.
type EventGatewayGroupExactList struct {
	// ExactList names the consumer groups.
	//
	// +kubebuilder:validation:MinItems=1
	// +optional
	ExactList []EventGatewayGroupName `json:"exactList,omitempty"`
}

// EventGatewayGroupName names a consumer group.
type EventGatewayGroupName struct {
	// Value is the consumer group's name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Value string `json:"value"`
}

// EventGatewayTopicAlias gives a backend topic another name.
type EventGatewayTopicAlias struct {
	// Alias is the name clients use.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Alias string `json:"alias"`

	// Topic is the backend topic.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Topic string `json:"topic"`

	// Condition under which the alias applies (always when unset).
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Condition string `json:"condition,omitempty"`

	// Conflict is what an alias that is also a topic's name does: warn
	// (Konnect's default) or ignore.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=warn;ignore
	// +optional
	Conflict string `json:"conflict,omitempty"`
}

// EventGatewayVirtualClusterStatus is the observed state of a virtual
// cluster.
type EventGatewayVirtualClusterStatus struct {
	EventGatewayEntityStatus `json:",inline"`

	// EventGatewayBackendCluster is the Konnect ID of the backend cluster
	// the virtual cluster maps to.
	//
	// +optional
	EventGatewayBackendCluster *commonv1alpha1.KonnectEntityRef `json:"eventGatewayBackendCluster,omitempty"`
}

// RecordedParentID is the backend cluster's Konnect ID the status
// records.
func (s *EventGatewayVirtualClusterStatus) RecordedParentID() string {
	return recordedID(s.EventGatewayBackendCluster)
}

// RecordParentID records the backend cluster's Konnect ID.
func (s *EventGatewayVirtualClusterStatus) RecordParentID(id string) {
	s.EventGatewayBackendCluster = record(id)
}

// EventGatewayVirtualClusterList is a list of EventGatewayVirtualClusters.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type EventGatewayVirtualClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the EventGatewayVirtualClusters.
	Items []EventGatewayVirtualCluster `json:"items"`
}
