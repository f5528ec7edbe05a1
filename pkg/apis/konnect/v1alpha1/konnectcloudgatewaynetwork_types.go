package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

// NetworkCreateState is the state a network is created in.
type NetworkCreateState string

const (
	// NetworkCreateStateInitializing provisions the network right away.
	NetworkCreateStateInitializing NetworkCreateState = "initializing"
	// NetworkCreateStateOffline creates the network without provisioning
	// it; a data-plane group configuration that uses it starts it.
	NetworkCreateStateOffline NetworkCreateState = "offline"
)

// KonnectCloudGatewayNetwork is the network, in a cloud provider's region,
// that Konnect runs Dedicated Cloud Gateways in. Konnect provisions it
// asynchronously: status.state follows Konnect's state (initializing,
// ready, terminating…) and Programmed is True once the network is ready.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the network is ready in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`,description="The network's state in Konnect"
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the network"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.name == oldSelf.spec.name",message="spec.name is immutable when an entity is already Programmed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.availability_zones == oldSelf.spec.availability_zones",message="spec.availability_zones is immutable when an entity is already Programmed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.cidr_block == oldSelf.spec.cidr_block",message="spec.cidr_block is immutable when an entity is already Programmed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.cloud_gateway_provider_account_id == oldSelf.spec.cloud_gateway_provider_account_id",message="spec.cloud_gateway_provider_account_id is immutable when an entity is already Programmed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.region == oldSelf.spec.region",message="spec.region is immutable when an entity is already Programmed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || self.spec.name == oldSelf.spec.name",message="spec.name cannot be changed once the network exists in Konnect (status.id is set): create a new KonnectCloudGatewayNetwork instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || self.spec.cloud_gateway_provider_account_id == oldSelf.spec.cloud_gateway_provider_account_id",message="spec.cloud_gateway_provider_account_id cannot be changed once the network exists in Konnect (status.id is set): create a new KonnectCloudGatewayNetwork instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || self.spec.region == oldSelf.spec.region",message="spec.region cannot be changed once the network exists in Konnect (status.id is set): create a new KonnectCloudGatewayNetwork instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || self.spec.availability_zones == oldSelf.spec.availability_zones",message="spec.availability_zones cannot be changed once the network exists in Konnect (status.id is set): create a new KonnectCloudGatewayNetwork instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || self.spec.cidr_block == oldSelf.spec.cidr_block",message="spec.cidr_block cannot be changed once the network exists in Konnect (status.id is set): create a new KonnectCloudGatewayNetwork instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || has(self.spec.state) == has(oldSelf.spec.state) && (!has(self.spec.state) || self.spec.state == oldSelf.spec.state)",message="spec.state only chooses the state a network is created in: it cannot be set, unset or changed once the network exists in Konnect (status.id is set)"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || self.spec.konnect.authRef == oldSelf.spec.konnect.authRef",message="spec.konnect.authRef cannot be changed once the network exists in Konnect (status.id is set): create a new KonnectCloudGatewayNetwork instead"
type KonnectCloudGatewayNetwork struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired network.
	//
	// +required
	Spec KonnectCloudGatewayNetworkSpec `json:"spec"`

	// Status is the network as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KonnectCloudGatewayNetworkStatus `json:"status,omitempty"`
}

// KonnectCloudGatewayNetworkSpec is the desired state of a
// KonnectCloudGatewayNetwork. Every field but adopt is sent to Konnect
// when the network is created; none can change afterwards.
//
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
// +kubebuilder:validation:XValidation:rule="self.availability_zones.all(z, self.availability_zones.exists_one(o, o == z))",message="spec.availability_zones lists an availability zone twice: name each zone once"
type KonnectCloudGatewayNetworkSpec struct {
	// Name of the network in Konnect, unique in the organization.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	Name string `json:"name"`

	// CloudGatewayProviderAccountID is the Konnect ID of the cloud provider
	// account (see Konnect's provider accounts) the network is created in.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	CloudGatewayProviderAccountID string `json:"cloud_gateway_provider_account_id"`

	// Region is the cloud provider's region, for example eu-central-1.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	Region string `json:"region"`

	// AvailabilityZones are the region's availability zones the network
	// spans, for example euc1-az1: one to five.
	//
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=5
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	// +required
	AvailabilityZones []string `json:"availability_zones"`

	// CidrBlock is the network's IPv4 range in CIDR notation, for example
	// 10.0.0.0/16.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +required
	CidrBlock string `json:"cidr_block"`

	// State is the state the network is created in: initializing (the
	// default: Konnect provisions it) or offline (Konnect only provisions
	// it once a data-plane group configuration uses it).
	//
	// +kubebuilder:validation:Enum=initializing;offline
	// +optional
	State *NetworkCreateState `json:"state,omitempty"`

	// Konnect names the KonnectAPIAuthConfiguration that supplies the
	// token, the Konnect API and the organization.
	//
	// +required
	KonnectConfiguration konnectv1alpha2.KonnectConfiguration `json:"konnect"`

	// Adopt takes over an existing Konnect network instead of creating
	// one. Without a mode the network must already equal the spec (match).
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`
}

// KonnectCloudGatewayNetworkStatus is the observed state of a
// KonnectCloudGatewayNetwork.
type KonnectCloudGatewayNetworkStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	commonv1alpha1.KonnectEntityStatus `json:",inline"`

	// State is the network's state in Konnect: created, initializing,
	// offline, ready, terminating or terminated.
	//
	// +optional
	State string `json:"state,omitempty"`

	// Conditions describe the network's state: Programmed,
	// APIAuthResolvedRef, APIAuthValid and, where they apply, ResolvedRefs
	// and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KonnectCloudGatewayNetworkList is a list of KonnectCloudGatewayNetworks.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KonnectCloudGatewayNetworkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KonnectCloudGatewayNetworks.
	Items []KonnectCloudGatewayNetwork `json:"items"`
}
