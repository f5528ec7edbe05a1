package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha2 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha2"
)

// KonnectEventGateway is a Konnect Event Gateway (tech preview in Kong
// Operator): a Kafka proxy's control plane. Its backend clusters,
// listeners, virtual clusters, schema registries, data-plane certificates
// and policies are objects of their own (configuration.konghq.com) that
// name it, directly or through their parent.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the event gateway"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the event gateway is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KonnectEventGateway struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired event gateway.
	//
	// +required
	Spec KonnectEventGatewaySpec `json:"spec"`

	// Status is the event gateway as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KonnectEventGatewayStatus `json:"status,omitempty"`
}

// KonnectEventGatewaySpec is the desired state of a KonnectEventGateway.
type KonnectEventGatewaySpec struct {
	// Konnect names the KonnectAPIAuthConfiguration that supplies the
	// token, the Konnect API and the organization.
	//
	// +required
	KonnectConfiguration konnectv1alpha2.KonnectConfiguration `json:"konnect"`

	// APISpec is the event gateway as Konnect's API describes it.
	//
	// +optional
	APISpec KonnectEventGatewayAPISpec `json:"apiSpec,omitzero"`
}

// KonnectEventGatewayAPISpec is an event gateway as Konnect's API
// describes it, with Kong Operator's field names.
type KonnectEventGatewayAPISpec struct {
	// Name of the gateway, unique in the organization.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	Name string `json:"name"`

	// Description of the gateway.
	//
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Description string `json:"description,omitempty"`

	// MinRuntimeVersion is the oldest data-plane release (major.minor) the
	// gateway's configuration may use; Konnect pins the latest release
	// when it is unset.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^\d+\.\d+$`
	// +optional
	MinRuntimeVersion string `json:"minRuntimeVersion,omitempty"`

	// Labels are Konnect labels for the gateway, beside the operator's own
	// k8s-* and managed-by labels. Keys are 1-63 characters and do not
	// start with kong, konnect, mesh, kic or _.
	//
	// +kubebuilder:validation:MaxProperties=50
	// +optional
	Labels map[string]LabelValue `json:"labels,omitempty"`
}

// KonnectEventGatewayStatus is the observed state of a KonnectEventGateway.
type KonnectEventGatewayStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	commonv1alpha1.KonnectEntityStatus `json:",inline"`

	// Conditions describe the event gateway's state: Programmed,
	// APIAuthResolvedRef, APIAuthValid and, where they apply, ResolvedRefs.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KonnectEventGatewayList is a list of KonnectEventGateways.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KonnectEventGatewayList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KonnectEventGateways.
	Items []KonnectEventGateway `json:"items"`
}

// GetConditions returns the status conditions.
func (o *KonnectEventGateway) GetConditions() []metav1.Condition { return o.Status.Conditions }

// SetConditions replaces the status conditions.
func (o *KonnectEventGateway) SetConditions(conditions []metav1.Condition) {
	o.Status.Conditions = conditions
}

// SetObservedGeneration records the generation of the spec that the status
// reports on.
func (o *KonnectEventGateway) SetObservedGeneration(generation int64) {
	o.Status.ObservedGeneration = generation
}

// KonnectStatus returns the entity's Konnect ID, server URL and
// organization.
func (o *KonnectEventGateway) KonnectStatus(bool) *commonv1alpha1.KonnectEntityStatus {
	return &o.Status.KonnectEntityStatus
}
