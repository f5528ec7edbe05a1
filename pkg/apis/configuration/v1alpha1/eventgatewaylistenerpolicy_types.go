package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// EventGatewayListenerPolicy is a policy of an event gateway's listener:
// terminate TLS (type tlsServer) or forward connections to a virtual
// cluster (type forwardToVirtualCluster).
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
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.eventGatewayListenerRef == oldSelf.spec.eventGatewayListenerRef",message="spec.eventGatewayListenerRef is immutable when an entity is already Programmed: create a new object for another listener"
type EventGatewayListenerPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired policy.
	//
	// +required
	Spec EventGatewayListenerPolicySpec `json:"spec"`

	// Status is the policy as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status EventGatewayListenerPolicyStatus `json:"status,omitempty"`
}

// EventGatewayListenerPolicySpec is the desired state of an
// EventGatewayListenerPolicy.
type EventGatewayListenerPolicySpec struct {
	// EventGatewayListenerRef names the EventGatewayListener the policy
	// belongs to (type namespacedRef); another namespace needs a
	// KongReferenceGrant there.
	//
	// +required
	EventGatewayListenerRef commonv1alpha1.ObjectRef `json:"eventGatewayListenerRef,omitzero"`

	// APISpec is the policy as Konnect's API describes it.
	//
	// +required
	APISpec EventGatewayListenerPolicyAPISpec `json:"apiSpec"`
}

// EventGatewayListenerPolicyAPISpec is one of the policies of a listener:
// the member that type names.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'tlsServer' || has(self.tlsServer)",message="type tlsServer needs tlsServer"
// +kubebuilder:validation:XValidation:rule="self.type != 'forwardToVirtualCluster' || has(self.forwardToVirtualCluster)",message="type forwardToVirtualCluster needs forwardToVirtualCluster"
// +kubebuilder:validation:XValidation:rule="self.type == 'tlsServer' || !has(self.tlsServer)",message="tlsServer is only for type tlsServer: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'forwardToVirtualCluster' || !has(self.forwardToVirtualCluster)",message="forwardToVirtualCluster is only for type forwardToVirtualCluster: remove it or change the type"
type EventGatewayListenerPolicyAPISpec struct {
	// Type is tlsServer or forwardToVirtualCluster.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=tlsServer;forwardToVirtualCluster
	// +required
	Type string `json:"type"`

	// TLSServer terminates TLS on the listener.
	//
	// +optional
	TLSServer *EventGatewayTLSServerPolicy `json:"tlsServer,omitempty"`

	// ForwardToVirtualCluster forwards the listener's connections to a
	// virtual cluster.
	//
	// +optional
	ForwardToVirtualCluster *EventGatewayForwardToVirtualClusterPolicy `json:"forwardToVirtualCluster,omitempty"`
}

// EventGatewayTLSServerPolicy terminates TLS on a listener.
type EventGatewayTLSServerPolicy struct {
	EventGatewayPolicyMeta `json:",inline"`

	// Config is the TLS configuration.
	//
	// +required
	Config EventGatewayTLSServerConfig `json:"config"`
}

// EventGatewayTLSServerConfig is how a listener terminates TLS.
type EventGatewayTLSServerConfig struct {
	// Certificates the listener serves: one certificate and its key.
	//
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=1
	// +required
	Certificates []EventGatewayTLSCertificate `json:"certificates"`

	// Versions are the TLS versions accepted (Konnect's default: TLSv1.2
	// to TLSv1.3).
	//
	// +optional
	Versions *EventGatewayTLSVersionRange `json:"versions,omitempty"`

	// AllowPlaintext also accepts connections without TLS (Konnect's
	// default: Disabled).
	//
	// +optional
	AllowPlaintext konnectv1alpha1.Toggle `json:"allowPlaintext,omitempty"`

	// ClientAuthentication asks clients for certificates.
	//
	// +optional
	ClientAuthentication *EventGatewayTLSClientAuthentication `json:"clientAuthentication,omitempty"`
}

// EventGatewayTLSCertificate is a certificate and its private key.
type EventGatewayTLSCertificate struct {
	// Certificate is the PEM certificate (chain).
	//
	// +required
	Certificate SensitiveDataSource `json:"certificate"`

	// Key is the certificate's PEM private key.
	//
	// +required
	Key SensitiveDataSource `json:"key"`
}

// EventGatewayTLSVersionRange is a range of TLS versions.
type EventGatewayTLSVersionRange struct {
	// Min is the oldest version accepted.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=TLSv1.2;TLSv1.3
	// +optional
	Min string `json:"min,omitempty"`

	// Max is the newest version accepted.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=TLSv1.2;TLSv1.3
	// +optional
	Max string `json:"max,omitempty"`
}

// EventGatewayTLSClientAuthentication asks clients for certificates.
type EventGatewayTLSClientAuthentication struct {
	// Mode is required (a client without a valid certificate is refused)
	// or requested.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=required;requested
	// +required
	Mode string `json:"mode"`

	// TLSTrustBundles name the gateway's trust bundles that client
	// certificates are verified against.
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	TLSTrustBundles []EventGatewayIDOrName `json:"tlsTrustBundles"`

	// PrincipalMapping is an expression that names the principal of a
	// client certificate.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	PrincipalMapping string `json:"principalMapping,omitempty"`
}

// EventGatewayForwardToVirtualClusterPolicy forwards a listener's
// connections to a virtual cluster.
type EventGatewayForwardToVirtualClusterPolicy struct {
	EventGatewayPolicyMeta `json:",inline"`

	// Config says how connections find their virtual cluster.
	//
	// +required
	Config *EventGatewayForwardConfig `json:"config"`
}

// EventGatewayForwardConfig says how connections find their virtual
// cluster: by port (type portMapping) or by TLS server name (type sni).
//
// +kubebuilder:validation:XValidation:rule="self.type != 'portMapping' || has(self.portMapping)",message="type portMapping needs portMapping"
// +kubebuilder:validation:XValidation:rule="self.type == 'portMapping' || !has(self.portMapping)",message="portMapping is only for type portMapping: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'sni' || !has(self.sni)",message="sni is only for type sni: remove it or change the type"
type EventGatewayForwardConfig struct {
	// Type is portMapping or sni.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=portMapping;sni
	// +required
	Type string `json:"type"`

	// PortMapping maps the listener's ports to one virtual cluster's
	// brokers.
	//
	// +optional
	PortMapping *EventGatewayForwardByPort `json:"portMapping,omitempty"`

	// SNI finds the virtual cluster by the TLS server name clients ask
	// for.
	//
	// +optional
	SNI *EventGatewayForwardBySNI `json:"sni,omitempty"`
}

// EventGatewayForwardByPort maps a listener's ports to a virtual cluster's
// brokers.
type EventGatewayForwardByPort struct {
	// Destination names the virtual cluster by its Konnect ID or its name.
	//
	// +required
	Destination *EventGatewayIDOrName `json:"destination"`

	// AdvertisedHost is the host name brokers are advertised with.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?)*$`
	// +required
	AdvertisedHost string `json:"advertisedHost"`

	// BootstrapPort is at_start (the first port bootstraps; Konnect's
	// default) or none.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=none;at_start
	// +optional
	BootstrapPort string `json:"bootstrapPort,omitempty"`

	// MinBrokerID is the ID of the broker the first port maps to
	// (Konnect's default: 0).
	//
	// +optional
	MinBrokerID int `json:"minBrokerID,omitempty"`
}

// EventGatewayForwardBySNI finds a connection's virtual cluster by the TLS
// server name the client asks for.
type EventGatewayForwardBySNI struct {
	// SNISuffix is appended to virtual clusters' DNS labels to make their
	// server names.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[\.-]([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*([a-z0-9-]*[a-z0-9])$`
	// +optional
	SNISuffix string `json:"sniSuffix,omitempty"`

	// AdvertisedPort is the port brokers are advertised with.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	AdvertisedPort int `json:"advertisedPort,omitempty"`

	// BrokerHostFormat is how brokers' host names are made.
	//
	// +optional
	BrokerHostFormat *EventGatewayBrokerHostFormat `json:"brokerHostFormat,omitempty"`
}

// EventGatewayBrokerHostFormat is how brokers' host names are made.
type EventGatewayBrokerHostFormat struct {
	// Type is per_cluster_suffix or shared_suffix.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=per_cluster_suffix;shared_suffix
	// +required
	Type string `json:"type"`
}

// EventGatewayListenerPolicyStatus is the observed state of a listener
// policy.
type EventGatewayListenerPolicyStatus struct {
	EventGatewayEntityStatus `json:",inline"`

	// EventGatewayListenerID is the Konnect ID of the listener the policy
	// belongs to.
	//
	// +optional
	EventGatewayListenerID *commonv1alpha1.KonnectEntityRef `json:"eventGatewayListenerID,omitempty"`
}

// RecordedParentID is the listener's Konnect ID the status records.
func (s *EventGatewayListenerPolicyStatus) RecordedParentID() string {
	return recordedID(s.EventGatewayListenerID)
}

// RecordParentID records the listener's Konnect ID.
func (s *EventGatewayListenerPolicyStatus) RecordParentID(id string) {
	s.EventGatewayListenerID = record(id)
}

// EventGatewayListenerPolicyList is a list of EventGatewayListenerPolicies.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type EventGatewayListenerPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the EventGatewayListenerPolicies.
	Items []EventGatewayListenerPolicy `json:"items"`
}
