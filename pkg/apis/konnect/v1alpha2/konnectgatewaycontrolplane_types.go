package v1alpha2

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// ControlPlaneSource says whether the operator creates a control plane or
// mirrors one that already exists.
type ControlPlaneSource string

const (
	// ControlPlaneSourceOrigin creates and owns the control plane in Konnect.
	ControlPlaneSourceOrigin ControlPlaneSource = "Origin"
	// ControlPlaneSourceMirror reads an existing Konnect control plane and
	// never writes to it.
	ControlPlaneSourceMirror ControlPlaneSource = "Mirror"
)

// Konnect cluster types the operator may create (Konnect itself knows
// more, and status.clusterType can report any of them).
const (
	ClusterTypeControlPlane         = "CLUSTER_TYPE_CONTROL_PLANE"
	ClusterTypeControlPlaneGroup    = "CLUSTER_TYPE_CONTROL_PLANE_GROUP"
	ClusterTypeK8sIngressController = "CLUSTER_TYPE_K8S_INGRESS_CONTROLLER"
)

// KonnectGatewayControlPlane is a Kong Gateway control plane in Konnect:
// created and owned by the operator (source Origin), or an existing one
// mirrored read-only (source Mirror). A control plane of type
// CLUSTER_TYPE_CONTROL_PLANE_GROUP groups the control planes in members.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the control plane exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the control plane"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || (has(self.spec.konnect) == has(oldSelf.spec.konnect) && (!has(self.spec.konnect) || self.spec.konnect.authRef == oldSelf.spec.konnect.authRef))",message="spec.konnect.authRef is immutable when an entity is already Programmed",fieldPath=".spec.konnect.authRef"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'APIAuthValid' && c.status == 'True') || (has(self.spec.konnect) == has(oldSelf.spec.konnect) && (!has(self.spec.konnect) || self.spec.konnect.authRef == oldSelf.spec.konnect.authRef))",message="spec.konnect.authRef is immutable when an entity refers to a Valid API Auth Configuration",fieldPath=".spec.konnect.authRef"
type KonnectGatewayControlPlane struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired control plane.
	//
	// +required
	Spec KonnectGatewayControlPlaneSpec `json:"spec"`

	// Status is the control plane as last seen in Konnect.
	//
	// +optional
	Status KonnectGatewayControlPlaneStatus `json:"status,omitempty"`
}

// KonnectGatewayControlPlaneSpec is the desired state of a
// KonnectGatewayControlPlane.
//
// +kubebuilder:validation:XValidation:rule="!has(self.createControlPlaneRequest) || !has(self.createControlPlaneRequest.labels) || size(self.createControlPlaneRequest.labels) <= 40",message="spec.createControlPlaneRequest.labels must not have more than 40 entries"
// +kubebuilder:validation:XValidation:rule="!has(self.createControlPlaneRequest) || !has(self.createControlPlaneRequest.labels) || self.createControlPlaneRequest.labels.all(k, size(k) >= 1 && size(k) <= 63)",message="spec.createControlPlaneRequest.labels keys must be of length 1-63 characters"
// +kubebuilder:validation:XValidation:rule="!has(self.createControlPlaneRequest) || !has(self.createControlPlaneRequest.labels) || self.createControlPlaneRequest.labels.all(k, size(self.createControlPlaneRequest.labels[k]) >= 1 && size(self.createControlPlaneRequest.labels[k]) <= 63)",message="spec.createControlPlaneRequest.labels values must be of length 1-63 characters"
// +kubebuilder:validation:XValidation:rule="!has(self.createControlPlaneRequest) || !has(self.createControlPlaneRequest.labels) || self.createControlPlaneRequest.labels.all(k, !k.startsWith('k8s') && !k.startsWith('kong') && !k.startsWith('konnect') && !k.startsWith('mesh') && !k.startsWith('kic') && !k.startsWith('insomnia') && !k.startsWith('_'))",message="spec.createControlPlaneRequest.labels keys must not start with 'k8s', 'kong', 'konnect', 'mesh', 'kic', 'insomnia' or '_'"
// +kubebuilder:validation:XValidation:rule="!has(self.createControlPlaneRequest) || !has(self.createControlPlaneRequest.labels) || !('managed-by' in self.createControlPlaneRequest.labels)",message="spec.createControlPlaneRequest.labels must not set managed-by: the operator writes that label itself to identify its control planes"
// +kubebuilder:validation:XValidation:rule="!has(self.createControlPlaneRequest) || !has(self.createControlPlaneRequest.labels) || self.createControlPlaneRequest.labels.all(k, k.matches('^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$'))",message="spec.createControlPlaneRequest.labels keys must satisfy the '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$' pattern"
// +kubebuilder:validation:XValidation:rule="!has(self.createControlPlaneRequest) || !has(self.createControlPlaneRequest.cluster_type) || self.createControlPlaneRequest.cluster_type == 'CLUSTER_TYPE_CONTROL_PLANE_GROUP' || !has(self.members)",message="spec.members is only applicable for ControlPlanes that are created as groups"
// +kubebuilder:validation:XValidation:rule="!has(self.createControlPlaneRequest) || !has(self.createControlPlaneRequest.cluster_type) || self.createControlPlaneRequest.cluster_type in ['CLUSTER_TYPE_CONTROL_PLANE_GROUP', 'CLUSTER_TYPE_CONTROL_PLANE', 'CLUSTER_TYPE_K8S_INGRESS_CONTROLLER']",message="spec.createControlPlaneRequest.cluster_type must be one of 'CLUSTER_TYPE_CONTROL_PLANE_GROUP', 'CLUSTER_TYPE_CONTROL_PLANE' or 'CLUSTER_TYPE_K8S_INGRESS_CONTROLLER'"
// +kubebuilder:validation:XValidation:rule="has(self.createControlPlaneRequest) == has(oldSelf.createControlPlaneRequest) && (!has(self.createControlPlaneRequest) || (has(self.createControlPlaneRequest.cluster_type) == has(oldSelf.createControlPlaneRequest.cluster_type) && (!has(self.createControlPlaneRequest.cluster_type) || self.createControlPlaneRequest.cluster_type == oldSelf.createControlPlaneRequest.cluster_type)))",message="spec.createControlPlaneRequest.cluster_type is immutable"
// +kubebuilder:validation:XValidation:rule="!has(self.createControlPlaneRequest) || !has(self.createControlPlaneRequest.cluster_type) || self.createControlPlaneRequest.cluster_type != 'CLUSTER_TYPE_K8S_INGRESS_CONTROLLER' || !has(self.createControlPlaneRequest.cloud_gateway)",message="spec.createControlPlaneRequest.cloud_gateway cannot be set for spec.createControlPlaneRequest.cluster_type 'CLUSTER_TYPE_K8S_INGRESS_CONTROLLER'"
// +kubebuilder:validation:XValidation:rule="!has(self.source) || self.source != 'Mirror' || !has(self.createControlPlaneRequest)",message="createControlPlaneRequest fields cannot be set for type Mirror"
// +kubebuilder:validation:XValidation:rule="has(self.source) == has(oldSelf.source) && (!has(self.source) || self.source == oldSelf.source)",message="spec.source cannot be changed after creation"
// +kubebuilder:validation:XValidation:rule="!has(self.source) || self.source != 'Mirror' || has(self.mirror)",message="mirror field must be set for type Mirror"
// +kubebuilder:validation:XValidation:rule="!has(self.source) || self.source != 'Origin' || !has(self.mirror)",message="mirror field cannot be set for type Origin"
// +kubebuilder:validation:XValidation:rule="!has(self.source) || self.source != 'Origin' || (has(self.createControlPlaneRequest) && has(self.createControlPlaneRequest.name))",message="spec.createControlPlaneRequest must be set for type Origin"
type KonnectGatewayControlPlaneSpec struct {
	// CreateControlPlaneRequest is the control plane to create in Konnect.
	// Required when source is Origin, forbidden when it is Mirror.
	//
	// +optional
	CreateControlPlaneRequest *CreateControlPlaneRequest `json:"createControlPlaneRequest,omitempty"`

	// Mirror names the existing Konnect control plane to mirror. Required
	// when source is Mirror, forbidden when it is Origin.
	//
	// +optional
	Mirror *MirrorSpec `json:"mirror,omitempty"`

	// Source is Origin (the operator creates and owns the control plane) or
	// Mirror (a read-only view of an existing one). It cannot change after
	// creation.
	//
	// +kubebuilder:validation:Enum=Origin;Mirror
	// +kubebuilder:default=Origin
	// +optional
	Source *ControlPlaneSource `json:"source,omitempty"`

	// Members name KonnectGatewayControlPlanes in this namespace that belong
	// to this control plane group. Only allowed when cluster_type is
	// CLUSTER_TYPE_CONTROL_PLANE_GROUP.
	//
	// +optional
	Members []corev1.LocalObjectReference `json:"members,omitempty"`

	// Konnect says which KonnectAPIAuthConfiguration supplies the token,
	// the Konnect API URL and the organization.
	//
	// +optional
	Konnect *KonnectConfiguration `json:"konnect,omitempty"`
}

// CreateControlPlaneRequest is the body of the Konnect request that creates
// a control plane.
type CreateControlPlaneRequest struct {
	// Name of the control plane in Konnect.
	//
	// +required
	Name string `json:"name"`

	// Description of the control plane.
	//
	// +optional
	Description *string `json:"description,omitempty"`

	// ClusterType is CLUSTER_TYPE_CONTROL_PLANE,
	// CLUSTER_TYPE_CONTROL_PLANE_GROUP or
	// CLUSTER_TYPE_K8S_INGRESS_CONTROLLER. Absent lets Konnect create a
	// regular control plane. It cannot change after creation.
	//
	// +optional
	ClusterType *string `json:"cluster_type,omitempty"`

	// AuthType is how data planes authenticate to the control plane:
	// pinned_client_certs or pki_client_certs.
	//
	// +optional
	AuthType *string `json:"auth_type,omitempty"`

	// CloudGateway says whether the control plane may back Dedicated Cloud
	// Gateways. It is only sent when the control plane is created.
	//
	// +optional
	CloudGateway *bool `json:"cloud_gateway,omitempty"`

	// ProxyURLs are the URLs at which the data planes are reachable.
	//
	// +optional
	ProxyURLs []ProxyURL `json:"proxy_urls,omitempty"`

	// Labels are Konnect labels for the control plane: at most 40, keys and
	// values 1 to 63 characters, keys not starting with k8s, kong, konnect,
	// mesh, kic, insomnia or _, and no managed-by key. The operator adds its
	// own k8s-* and managed-by labels.
	//
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// ProxyURL is a URL at which the data planes of a control plane are
// reachable.
type ProxyURL struct {
	// Host name of the proxy.
	//
	// +required
	Host string `json:"host"`

	// Port of the proxy.
	//
	// +required
	Port int64 `json:"port"`

	// Protocol of the proxy, for example https.
	//
	// +required
	Protocol string `json:"protocol"`
}

// MirrorSpec names the Konnect control plane to mirror.
type MirrorSpec struct {
	// Konnect identifies the control plane in Konnect.
	//
	// +required
	Konnect MirrorKonnect `json:"konnect"`
}

// MirrorKonnect identifies a Konnect control plane by ID.
type MirrorKonnect struct {
	// ID is the Konnect ID (a lowercase UUID) of the control plane to
	// mirror.
	//
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:Pattern=`^[0-9a-f]{8}(?:\-[0-9a-f]{4}){3}-[0-9a-f]{12}$`
	// +required
	ID string `json:"id"`
}

// KonnectConfiguration says how the operator reaches Konnect for an object.
type KonnectConfiguration struct {
	// AuthRef names the KonnectAPIAuthConfiguration to use. It cannot change
	// once the control plane exists in Konnect.
	//
	// +required
	AuthRef KonnectAPIAuthConfigurationRef `json:"authRef"`
}

// KonnectAPIAuthConfigurationRef names a KonnectAPIAuthConfiguration.
type KonnectAPIAuthConfigurationRef struct {
	// Name of the KonnectAPIAuthConfiguration.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// Namespace of the KonnectAPIAuthConfiguration. Empty means the
	// namespace of the control plane; another namespace needs a
	// KongReferenceGrant in that namespace.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Namespace *string `json:"namespace,omitempty"`
}

// KonnectGatewayControlPlaneStatus is the observed state of a
// KonnectGatewayControlPlane.
type KonnectGatewayControlPlaneStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	commonv1alpha1.KonnectEntityStatus `json:",inline"`

	// ClusterType is the cluster type Konnect reports for the control plane.
	//
	// +optional
	ClusterType string `json:"clusterType,omitempty"`

	// KonnectEndpoints are the endpoints data planes must connect to.
	//
	// +optional
	KonnectEndpoints *KonnectEndpoints `json:"konnectEndpoints,omitempty"`

	// Conditions describe the control plane's state: Programmed,
	// APIAuthResolvedRef, APIAuthValid and, where they apply, ResolvedRefs,
	// Mirrored and MembersReferenceResolved.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:default={{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KonnectEndpoints are the Konnect endpoints of a control plane that data
// planes connect to.
type KonnectEndpoints struct {
	// ControlPlane is the endpoint data planes fetch configuration from.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	ControlPlane string `json:"controlPlane"`

	// Telemetry is the endpoint data planes send telemetry to.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	Telemetry string `json:"telemetry"`
}

// KonnectGatewayControlPlaneList is a list of KonnectGatewayControlPlanes.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KonnectGatewayControlPlaneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KonnectGatewayControlPlanes.
	Items []KonnectGatewayControlPlane `json:"items"`
}
