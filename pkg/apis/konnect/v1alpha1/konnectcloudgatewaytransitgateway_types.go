package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// TransitGatewayType is the kind of attachment a transit gateway is.
type TransitGatewayType string

const (
	// TransitGatewayTypeAWS attaches the network to an AWS Transit Gateway.
	TransitGatewayTypeAWS TransitGatewayType = "AWSTransitGateway"
	// TransitGatewayTypeAzure peers the network with an Azure VNET.
	TransitGatewayTypeAzure TransitGatewayType = "AzureTransitGateway"
)

// KonnectCloudGatewayTransitGateway attaches a KonnectCloudGatewayNetwork
// to the user's own cloud network: an AWS Transit Gateway or an Azure VNET
// peering. Konnect provisions it asynchronously: status.state follows
// Konnect's state and Programmed is True once the attachment is ready.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the transit gateway is ready in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`,description="The transit gateway's state in Konnect"
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the transit gateway"
// +kubebuilder:printcolumn:name="NetworkID",type=string,JSONPath=`.status.networkID`,description="Konnect ID of the network"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || !has(self.spec.awsTransitGateway) || !has(oldSelf.spec.awsTransitGateway) || self.spec.awsTransitGateway.name == oldSelf.spec.awsTransitGateway.name",message="spec.awsTransitGateway.name is immutable when transit gateway is already Programmed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || !has(self.spec.azureTransitGateway) || !has(oldSelf.spec.azureTransitGateway) || self.spec.azureTransitGateway.name == oldSelf.spec.azureTransitGateway.name",message="spec.azureTransitGateway.name is immutable when transit gateway is already Programmed"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || !has(self.spec.awsTransitGateway) || !has(oldSelf.spec.awsTransitGateway) || self.spec.awsTransitGateway.name == oldSelf.spec.awsTransitGateway.name",message="spec.awsTransitGateway.name cannot be changed once the transit gateway exists in Konnect (status.id is set): create a new KonnectCloudGatewayTransitGateway instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || !has(self.spec.azureTransitGateway) || !has(oldSelf.spec.azureTransitGateway) || self.spec.azureTransitGateway.name == oldSelf.spec.azureTransitGateway.name",message="spec.azureTransitGateway.name cannot be changed once the transit gateway exists in Konnect (status.id is set): create a new KonnectCloudGatewayTransitGateway instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.id) || size(oldSelf.status.id) == 0 || self.spec.networkRef == oldSelf.spec.networkRef",message="spec.networkRef cannot be changed once the transit gateway exists in Konnect (status.id is set): create a new KonnectCloudGatewayTransitGateway instead"
type KonnectCloudGatewayTransitGateway struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired transit gateway.
	//
	// +required
	Spec KonnectCloudGatewayTransitGatewaySpec `json:"spec"`

	// Status is the transit gateway as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KonnectCloudGatewayTransitGatewayStatus `json:"status,omitempty"`
}

// KonnectCloudGatewayTransitGatewaySpec is the desired state of a
// KonnectCloudGatewayTransitGateway.
//
// +kubebuilder:validation:XValidation:rule="self.networkRef.type == 'namespacedRef'",message="only namespacedRef is supported currently"
// +kubebuilder:validation:XValidation:rule="self.type == oldSelf.type",message="spec.type is immutable"
// +kubebuilder:validation:XValidation:rule="self.type != 'AWSTransitGateway' || has(self.awsTransitGateway)",message="must set spec.awsTransitGateway when spec.type is 'AWSTransitGateway'"
// +kubebuilder:validation:XValidation:rule="self.type == 'AWSTransitGateway' || !has(self.awsTransitGateway)",message="must not set spec.awsTransitGateway when spec.type is not 'AWSTransitGateway'"
// +kubebuilder:validation:XValidation:rule="self.type != 'AzureTransitGateway' || has(self.azureTransitGateway)",message="must set spec.azureTransitGateway when spec.type is 'AzureTransitGateway'"
// +kubebuilder:validation:XValidation:rule="self.type == 'AzureTransitGateway' || !has(self.azureTransitGateway)",message="must not set spec.azureTransitGateway when spec.type is not 'AzureTransitGateway'"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KonnectCloudGatewayTransitGatewaySpec struct {
	// NetworkRef names the KonnectCloudGatewayNetwork the transit gateway
	// belongs to; its type must be namespacedRef.
	//
	// +required
	NetworkRef NetworkRef `json:"networkRef"`

	// Adopt takes over an existing Konnect transit gateway of the network
	// instead of creating one. Without a mode it must already equal the
	// spec (match).
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	KonnectTransitGatewayAPISpec `json:",inline"`
}

// KonnectTransitGatewayAPISpec is the transit gateway as Konnect knows it.
type KonnectTransitGatewayAPISpec struct {
	// Type is AWSTransitGateway or AzureTransitGateway. It cannot change.
	//
	// +kubebuilder:validation:Enum=AWSTransitGateway;AzureTransitGateway
	// +required
	Type TransitGatewayType `json:"type"`

	// AWSTransitGateway describes the AWS transit gateway, when type is
	// AWSTransitGateway.
	//
	// +optional
	AWSTransitGateway *AWSTransitGateway `json:"awsTransitGateway,omitempty"`

	// AzureTransitGateway describes the Azure VNET peering, when type is
	// AzureTransitGateway.
	//
	// +optional
	AzureTransitGateway *AzureTransitGateway `json:"azureTransitGateway,omitempty"`
}

// AWSTransitGateway is an attachment to an AWS Transit Gateway.
type AWSTransitGateway struct {
	// Name of the transit gateway in Konnect, unique in its network.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=120
	// +required
	Name string `json:"name"`

	// DNSConfig maps remote DNS servers to the internal domains they
	// resolve through the transit gateway.
	//
	// +optional
	DNSConfig []TransitGatewayDNSConfig `json:"dns_config,omitempty"`

	// CIDRBlocks are the ranges routed through the transit gateway. They
	// are the only part of a transit gateway that can change afterwards.
	//
	// +required
	CIDRBlocks []string `json:"cidr_blocks"`

	// AttachmentConfig identifies the AWS transit gateway to attach to.
	//
	// +required
	AttachmentConfig AwsTransitGatewayAttachmentConfig `json:"attachment_config"`
}

// AzureTransitGateway is a peering with an Azure VNET.
type AzureTransitGateway struct {
	// Name of the transit gateway in Konnect, unique in its network.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=120
	// +required
	Name string `json:"name"`

	// DNSConfig maps remote DNS servers to the internal domains they
	// resolve through the peering.
	//
	// +optional
	DNSConfig []TransitGatewayDNSConfig `json:"dns_config,omitempty"`

	// AttachmentConfig identifies the Azure VNET to peer with.
	//
	// +required
	AttachmentConfig AzureVNETPeeringAttachmentConfig `json:"attachment_config"`
}

// TransitGatewayDNSConfig maps remote DNS servers to internal domains.
type TransitGatewayDNSConfig struct {
	// RemoteDNSServerIPAddresses are the DNS servers, reached through the
	// transit gateway, that resolve the domains below.
	//
	// +optional
	RemoteDNSServerIPAddresses []string `json:"remote_dns_server_ip_addresses,omitempty"`

	// DomainProxyList are the internal domains those servers resolve.
	//
	// +optional
	DomainProxyList []string `json:"domain_proxy_list,omitempty"`
}

// AwsTransitGatewayAttachmentConfig identifies an AWS transit gateway.
type AwsTransitGatewayAttachmentConfig struct {
	// TransitGatewayID is the AWS ID of the transit gateway (tgw-…).
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	TransitGatewayID string `json:"transit_gateway_id"`

	// RAMShareArn is the ARN of the AWS resource share through which the
	// transit gateway is shared with Konnect.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	RAMShareArn string `json:"ram_share_arn"`
}

// AzureVNETPeeringAttachmentConfig identifies an Azure VNET.
type AzureVNETPeeringAttachmentConfig struct {
	// TenantID is the Azure tenant of the VNET.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	TenantID string `json:"tenant_id"`

	// SubscriptionID is the Azure subscription of the VNET.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	SubscriptionID string `json:"subscription_id"`

	// ResourceGroupName is the resource group of the VNET.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	ResourceGroupName string `json:"resource_group_name"`

	// VnetName is the name of the VNET.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	VnetName string `json:"vnet_name"`
}

// KonnectCloudGatewayTransitGatewayStatus is the observed state of a
// KonnectCloudGatewayTransitGateway.
type KonnectCloudGatewayTransitGatewayStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	KonnectEntityStatusWithNetworkRef `json:",inline"`

	// State is the transit gateway's state in Konnect: created,
	// initializing, pending-acceptance, pending-user-action, ready,
	// terminating, terminated or error.
	//
	// +optional
	State string `json:"state,omitempty"`

	// Conditions describe the transit gateway's state: Programmed,
	// KonnectNetworkRefsValid, APIAuthResolvedRef, APIAuthValid and, where
	// it applies, Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KonnectCloudGatewayTransitGatewayList is a list of
// KonnectCloudGatewayTransitGateways.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KonnectCloudGatewayTransitGatewayList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KonnectCloudGatewayTransitGateways.
	Items []KonnectCloudGatewayTransitGateway `json:"items"`
}
