package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// EventGatewayBackendCluster is a Kafka cluster an event gateway proxies
// to. Virtual clusters (EventGatewayVirtualCluster) present it to
// clients.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the backend cluster"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the backend cluster is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.gatewayRef == oldSelf.spec.gatewayRef",message="spec.gatewayRef is immutable when an entity is already Programmed: create a new object for another gateway"
type EventGatewayBackendCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired backend cluster.
	//
	// +required
	Spec EventGatewayBackendClusterSpec `json:"spec"`

	// Status is the backend cluster as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status EventGatewayEntityStatus `json:"status,omitempty"`
}

// EventGatewayBackendClusterSpec is the desired state of an
// EventGatewayBackendCluster.
type EventGatewayBackendClusterSpec struct {
	// GatewayRef names the KonnectEventGateway the backend cluster belongs
	// to (type namespacedRef); another namespace needs a KongReferenceGrant
	// there.
	//
	// +required
	GatewayRef commonv1alpha1.ObjectRef `json:"gatewayRef,omitzero"`

	// APISpec is the backend cluster as Konnect's API describes it.
	//
	// +required
	APISpec EventGatewayBackendClusterAPISpec `json:"apiSpec"`
}

// EventGatewayBackendClusterAPISpec is a backend cluster as Konnect's API
// describes it, with Kong Operator's field names.
type EventGatewayBackendClusterAPISpec struct {
	// Name of the backend cluster, unique in its gateway.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	Name string `json:"name"`

	// Description of the backend cluster.
	//
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Description string `json:"description,omitempty"`

	// BootstrapServers are the cluster's bootstrap servers, as host:port.
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	BootstrapServers []string `json:"bootstrapServers"`

	// Authentication is how the gateway authenticates to the cluster.
	//
	// +required
	Authentication *EventGatewayBackendClusterAuthentication `json:"authentication"`

	// TLS is how the gateway connects to the cluster.
	//
	// +required
	TLS EventGatewayBackendClusterTLS `json:"tls"`

	// InsecureAllowAnonymousVirtualClusterAuth lets virtual clusters of
	// this backend cluster accept anonymous clients (Konnect's default:
	// Disabled). Not for production: it may let clients act with the
	// gateway's own rights.
	//
	// +optional
	InsecureAllowAnonymousVirtualClusterAuth konnectv1alpha1.Toggle `json:"insecureAllowAnonymousVirtualClusterAuth,omitempty"`

	// MetadataUpdateIntervalSeconds is how often the cluster's metadata is
	// read (Konnect's default: 60).
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=43200
	// +optional
	MetadataUpdateIntervalSeconds int `json:"metadataUpdateIntervalSeconds,omitempty"`

	// Labels are Konnect labels for the backend cluster.
	//
	// +optional
	Labels EventGatewayLabels `json:"labels,omitempty"`
}

// EventGatewayBackendClusterAuthentication is how the gateway
// authenticates to a backend cluster: the member that type names.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'saslPlain' || has(self.saslPlain)",message="type saslPlain needs saslPlain"
// +kubebuilder:validation:XValidation:rule="self.type != 'saslScram' || has(self.saslScram)",message="type saslScram needs saslScram"
// +kubebuilder:validation:XValidation:rule="self.type == 'anonymous' || !has(self.anonymous)",message="anonymous is only for type anonymous: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'saslPlain' || !has(self.saslPlain)",message="saslPlain is only for type saslPlain: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'saslScram' || !has(self.saslScram)",message="saslScram is only for type saslScram: remove it or change the type"
type EventGatewayBackendClusterAuthentication struct {
	// Type is anonymous, saslPlain or saslScram.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=anonymous;saslPlain;saslScram
	// +required
	Type string `json:"type"`

	// Anonymous connects without credentials (nothing to configure).
	//
	// +optional
	Anonymous *EventGatewayEmpty `json:"anonymous,omitempty"`

	// SaslPlain authenticates with SASL/PLAIN.
	//
	// +optional
	SaslPlain *EventGatewaySaslPlain `json:"saslPlain,omitempty"`

	// SaslScram authenticates with SASL/SCRAM.
	//
	// +optional
	SaslScram *EventGatewaySaslScram `json:"saslScram,omitempty"`
}

// EventGatewaySaslPlain is a SASL/PLAIN user name and password. Either may
// be a reference to a vault secret (${vault://…}).
type EventGatewaySaslPlain struct {
	// Username is the user name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Username string `json:"username"`

	// Password is the password.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Password string `json:"password"`
}

// EventGatewaySaslScram is a SASL/SCRAM user name, password and algorithm.
type EventGatewaySaslScram struct {
	// Algorithm is sha256 or sha512.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=sha256;sha512
	// +required
	Algorithm string `json:"algorithm"`

	// Username is the user name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Username string `json:"username"`

	// Password is the password.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Password string `json:"password"`
}

// EventGatewayBackendClusterTLS is how the gateway connects to a backend
// cluster.
type EventGatewayBackendClusterTLS struct {
	// Enabled connects over TLS.
	//
	// +required
	Enabled konnectv1alpha1.Toggle `json:"enabled"`

	// InsecureSkipVerify accepts any server certificate (Konnect's
	// default: Disabled).
	//
	// +optional
	InsecureSkipVerify konnectv1alpha1.Toggle `json:"insecureSkipVerify,omitempty"`

	// CABundle is the PEM bundle of the authorities the cluster's
	// certificate is verified against.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	CABundle string `json:"caBundle,omitempty"`

	// TLSVersions the gateway may use: tls12, tls13 (Konnect's default:
	// both).
	//
	// +optional
	TLSVersions []string `json:"tlsVersions,omitempty"`

	// ClientIdentity is the certificate and key the gateway presents.
	//
	// +optional
	ClientIdentity *EventGatewayTLSCertificate `json:"clientIdentity,omitempty"`
}

// EventGatewayBackendClusterList is a list of EventGatewayBackendClusters.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type EventGatewayBackendClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the EventGatewayBackendClusters.
	Items []EventGatewayBackendCluster `json:"items"`
}
