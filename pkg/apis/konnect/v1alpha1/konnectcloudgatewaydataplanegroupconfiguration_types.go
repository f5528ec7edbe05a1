package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// APIAccess says how the data planes of a configuration are exposed.
type APIAccess string

// The API access types Konnect knows.
const (
	APIAccessPrivate       APIAccess = "private"
	APIAccessPublic        APIAccess = "public"
	APIAccessPrivatePublic APIAccess = "private+public"
)

// AutoscaleType is how a data-plane group scales.
type AutoscaleType string

const (
	// AutoscaleStatic runs a fixed number of instances of one size.
	AutoscaleStatic AutoscaleType = "static"
	// AutoscaleAutopilot scales with the requests per second.
	AutoscaleAutopilot AutoscaleType = "autopilot"
)

// KonnectCloudGatewayDataPlaneGroupConfiguration is the Dedicated Cloud
// Gateway deployment of a control plane: the Kong Gateway version and the
// data-plane groups, each in a network. Konnect keeps one such
// configuration per control plane and replaces it as a whole on every
// write, so a control plane should have only one of these objects.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether every data-plane group is ready in Konnect and the configuration equals the spec"
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the configuration"
// +kubebuilder:printcolumn:name="ControlPlaneID",type=string,JSONPath=`.status.controlPlaneID`,description="Konnect ID of the control plane"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef",message="spec.controlPlaneRef is immutable when an entity is already Programmed"
type KonnectCloudGatewayDataPlaneGroupConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired configuration.
	//
	// +required
	Spec KonnectCloudGatewayDataPlaneGroupConfigurationSpec `json:"spec"`

	// Status is the configuration as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KonnectCloudGatewayDataPlaneGroupConfigurationStatus `json:"status,omitempty"`
}

// KonnectCloudGatewayDataPlaneGroupConfigurationSpec is the desired state
// of a KonnectCloudGatewayDataPlaneGroupConfiguration.
//
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlaneRef.type) || self.controlPlaneRef.type != 'kic'",message="spec.controlPlaneRef.type kic is not supported for KonnectCloudGatewayDataPlaneGroupConfiguration: set type to konnectNamespacedRef and name a KonnectGatewayControlPlane with cloud_gateway: true"
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KonnectCloudGatewayDataPlaneGroupConfigurationSpec struct {
	// Version is the Kong Gateway version the data planes run, for example
	// "3.9".
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +required
	Version string `json:"version"`

	// DataplaneGroups are where data planes are deployed, and how many.
	// The list replaces Konnect's whole configuration of the control plane:
	// groups that are not listed are removed.
	//
	// +optional
	DataplaneGroups []KonnectConfigurationDataPlaneGroup `json:"dataplane_groups,omitempty"`

	// APIAccess is how the data planes are exposed: private (only inside
	// the network), public, or private+public (the default).
	//
	// +kubebuilder:validation:Enum=private;public;private+public
	// +kubebuilder:default=private+public
	// +optional
	APIAccess *APIAccess `json:"api_access,omitempty"`

	// ControlPlaneRef names the KonnectGatewayControlPlane (created with
	// cloud_gateway: true) the data planes connect to. Its type must be
	// konnectNamespacedRef.
	//
	// +required
	ControlPlaneRef commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef"`

	// Adopt takes over the control plane's existing configuration in
	// Konnect instead of writing one. Without a mode it must already equal
	// the spec (match).
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`
}

// KonnectConfigurationDataPlaneGroup is one data-plane group: a cloud
// provider's region, the network it runs in and how it scales.
type KonnectConfigurationDataPlaneGroup struct {
	// Provider is the cloud provider: aws, azure or gcp.
	//
	// +kubebuilder:validation:Enum=aws;azure;gcp
	// +required
	Provider string `json:"provider"`

	// Region is the cloud provider's region, for example eu-central-1.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	Region string `json:"region"`

	// NetworkRef names the network the group is deployed on. A
	// KonnectCloudGatewayNetwork must be ready before the group is
	// configured.
	//
	// +required
	NetworkRef NetworkRef `json:"networkRef"`

	// Autoscale says how the group scales.
	//
	// +required
	Autoscale ConfigurationDataPlaneGroupAutoscale `json:"autoscale"`

	// Environment variables set on the group's data planes; names start
	// with KONG_.
	//
	// +optional
	Environment []ConfigurationDataPlaneGroupEnvironmentField `json:"environment,omitempty"`
}

// ConfigurationDataPlaneGroupEnvironmentField is one environment variable
// of a data-plane group.
type ConfigurationDataPlaneGroupEnvironmentField struct {
	// Name of the variable; it must start with KONG_.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^KONG_.`
	// +required
	Name string `json:"name"`

	// Value of the variable.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Value string `json:"value"`
}

// ConfigurationDataPlaneGroupAutoscale is how a data-plane group scales:
// static (a fixed number of instances) or autopilot (by requests per
// second).
//
// +kubebuilder:validation:XValidation:rule="!(has(self.static) && has(self.autopilot))",message="can't provide both autopilot and static configuration"
// +kubebuilder:validation:XValidation:rule="self.type != 'static' || has(self.static)",message="static is required when type is static"
// +kubebuilder:validation:XValidation:rule="self.type != 'autopilot' || has(self.autopilot)",message="autopilot is required when type is autopilot"
type ConfigurationDataPlaneGroupAutoscale struct {
	// Static is the static scaling of the group, when type is static.
	//
	// +optional
	Static *ConfigurationDataPlaneGroupAutoscaleStatic `json:"static,omitempty"`

	// Autopilot is the request-driven scaling of the group, when type is
	// autopilot.
	//
	// +optional
	Autopilot *ConfigurationDataPlaneGroupAutoscaleAutopilot `json:"autopilot,omitempty"`

	// Type is static or autopilot.
	//
	// +kubebuilder:validation:Enum=static;autopilot
	// +required
	Type AutoscaleType `json:"type"`
}

// ConfigurationDataPlaneGroupAutoscaleAutopilot scales a group with the
// requests per second it serves.
type ConfigurationDataPlaneGroupAutoscaleAutopilot struct {
	// BaseRps is the number of requests per second the group must serve.
	//
	// +kubebuilder:validation:Minimum=1
	// +required
	BaseRps int64 `json:"base_rps"`

	// MaxRps is the most requests per second it may scale to; Konnect
	// takes ten times base_rps when it is not set.
	//
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxRps *int64 `json:"max_rps,omitempty"`
}

// ConfigurationDataPlaneGroupAutoscaleStatic runs a fixed number of
// instances of one size.
type ConfigurationDataPlaneGroupAutoscaleStatic struct {
	// InstanceType is the size of the instances: small, medium or large
	// (Konnect may offer more).
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +required
	InstanceType string `json:"instance_type"`

	// RequestedInstances is the number of data planes in the group.
	//
	// +kubebuilder:validation:Minimum=1
	// +required
	RequestedInstances int64 `json:"requested_instances"`
}

// KonnectCloudGatewayDataPlaneGroupConfigurationStatus is the observed
// state of a KonnectCloudGatewayDataPlaneGroupConfiguration.
type KonnectCloudGatewayDataPlaneGroupConfigurationStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	commonv1alpha1.KonnectEntityStatusWithControlPlaneRef `json:",inline"`

	// DataPlaneGroups are the groups Konnect deployed, with their state.
	//
	// +optional
	DataPlaneGroups []KonnectCloudGatewayDataPlaneGroupConfigurationStatusGroup `json:"dataplane_groups,omitempty"`

	// Conditions describe the configuration's state: Programmed,
	// ControlPlaneRefValid, KonnectNetworkRefsValid, APIAuthResolvedRef,
	// APIAuthValid and, where they apply, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KonnectCloudGatewayDataPlaneGroupConfigurationStatusGroup is one
// data-plane group as Konnect deployed it.
type KonnectCloudGatewayDataPlaneGroupConfigurationStatusGroup struct {
	// ID is the Konnect ID of the data-plane group.
	//
	// +required
	ID string `json:"id"`

	// CloudGatewayNetworkID is the Konnect ID of the group's network.
	//
	// +required
	CloudGatewayNetworkID string `json:"cloud_gateway_network_id"`

	// Provider is the group's cloud provider.
	//
	// +required
	Provider string `json:"provider"`

	// Region is the group's cloud provider region.
	//
	// +required
	Region string `json:"region"`

	// PrivateIPAddresses are the private addresses of the load balancer in
	// front of the group.
	//
	// +optional
	PrivateIPAddresses []string `json:"private_ip_addresses,omitempty"`

	// EgressIPAddresses are the addresses the group's traffic leaves from.
	//
	// +optional
	EgressIPAddresses []string `json:"egress_ip_addresses,omitempty"`

	// State is the group's state in Konnect: created, initializing, ready,
	// terminating or terminated.
	//
	// +required
	State string `json:"state"`
}

// KonnectCloudGatewayDataPlaneGroupConfigurationList is a list of
// KonnectCloudGatewayDataPlaneGroupConfigurations.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KonnectCloudGatewayDataPlaneGroupConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KonnectCloudGatewayDataPlaneGroupConfigurations.
	Items []KonnectCloudGatewayDataPlaneGroupConfiguration `json:"items"`
}
