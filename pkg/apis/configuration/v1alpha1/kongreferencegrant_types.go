package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KongReferenceGrant allows objects in other namespaces to reference
// objects in its own namespace. A reference across namespaces is honoured
// only when a grant in the target's namespace lists the referrer's group,
// kind and namespace in from, and the target's group and kind (and, if
// given, name) in to.
//
// +genclient
// +genclient:noStatus
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KongReferenceGrant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says who may reference what in this namespace.
	//
	// +optional
	Spec KongReferenceGrantSpec `json:"spec,omitempty"`
}

// KongReferenceGrantSpec says who may reference what in the grant's
// namespace. Entries of from and of to are each OR-combined.
type KongReferenceGrantSpec struct {
	// From lists the referring objects the grant trusts.
	//
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +required
	From []ReferenceGrantFrom `json:"from"`

	// To lists the objects in this namespace that may be referenced.
	//
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +required
	To []ReferenceGrantTo `json:"to"`
}

// ReferenceGrantFrom describes referring objects a grant trusts.
//
// +kubebuilder:validation:XValidation:rule="self.group != 'configuration.konghq.com' || self.kind in ['KongConsumer', 'KongConsumerGroup', 'KongRoute', 'KongService', 'KongCertificate', 'KongCACertificate', 'KongDataPlaneClientCertificate', 'KongUpstream', 'KongTarget', 'KongKey', 'KongKeySet', 'KongVault', 'KongPluginBinding', 'KongSNI']",message="spec.from[].kind is not a configuration.konghq.com kind that can reference across namespaces: use KongConsumer, KongConsumerGroup, KongRoute, KongService, KongCertificate, KongCACertificate, KongDataPlaneClientCertificate, KongUpstream, KongTarget, KongKey, KongKeySet, KongVault, KongPluginBinding or KongSNI"
// +kubebuilder:validation:XValidation:rule="self.group != 'gateway-operator.konghq.com' || self.kind == 'GatewayConfiguration'",message="spec.from[].kind must be GatewayConfiguration when group is gateway-operator.konghq.com"
// +kubebuilder:validation:XValidation:rule="self.kind == 'KongVault' ? size(self.namespace) == 0 : size(self.namespace) > 0",message="spec.from[].namespace must be empty for KongVault (it is cluster-scoped) and must name the referrers' namespace for every other kind"
type ReferenceGrantFrom struct {
	// Group of the referring kind.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +required
	Group string `json:"group"`

	// Kind of the referring objects.
	//
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	// +required
	Kind string `json:"kind"`

	// Namespace of the referring objects; empty only for the
	// cluster-scoped KongVault.
	//
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Namespace string `json:"namespace"`
}

// ReferenceGrantTo describes objects in the grant's namespace that may be
// referenced.
//
// +kubebuilder:validation:XValidation:rule="self.group != 'core' || self.kind == 'Secret'",message="spec.to[].kind must be Secret when group is core"
// +kubebuilder:validation:XValidation:rule="self.group != 'konnect.konghq.com' || self.kind in ['KonnectGatewayControlPlane', 'KonnectAPIAuthConfiguration', 'Portal', 'KonnectEventGateway', 'EventGatewayBackendCluster', 'EventGatewayListener', 'EventGatewayVirtualCluster', 'KonnectConfigStore', 'KonnectAIGateway', 'AIGatewayConsumerGroup']",message="spec.to[].kind is not a konnect.konghq.com kind that can be referenced across namespaces: use KonnectGatewayControlPlane, KonnectAPIAuthConfiguration, Portal, KonnectEventGateway, EventGatewayBackendCluster, EventGatewayListener, EventGatewayVirtualCluster, KonnectConfigStore, KonnectAIGateway or AIGatewayConsumerGroup"
// +kubebuilder:validation:XValidation:rule="self.group != 'configuration.konghq.com' || self.kind in ['KongPlugin', 'KongService', 'KongCertificate', 'KongCACertificate', 'KongUpstream']",message="spec.to[].kind is not a configuration.konghq.com kind that can be referenced across namespaces: use KongPlugin, KongService, KongCertificate, KongCACertificate or KongUpstream"
type ReferenceGrantTo struct {
	// Group of the referenced kind; core for Secrets.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +required
	Group string `json:"group"`

	// Kind of the referenced objects.
	//
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	// +required
	Kind string `json:"kind"`

	// Name restricts the grant to one object; absent grants every object
	// of the kind.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name *string `json:"name,omitempty"`
}

// KongReferenceGrantList is a list of KongReferenceGrants.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongReferenceGrantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongReferenceGrants.
	Items []KongReferenceGrant `json:"items"`
}
