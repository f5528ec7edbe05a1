package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// EventGatewayListener is a listener of an event gateway: the addresses
// and ports where Kafka clients connect. Its policies (TLS, forwarding to
// a virtual cluster) are EventGatewayListenerPolicy objects.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the listener"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the listener is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.gatewayRef == oldSelf.spec.gatewayRef",message="spec.gatewayRef is immutable when an entity is already Programmed: create a new object for another gateway"
type EventGatewayListener struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired listener.
	//
	// +required
	Spec EventGatewayListenerSpec `json:"spec"`

	// Status is the listener as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status EventGatewayEntityStatus `json:"status,omitempty"`
}

// EventGatewayListenerSpec is the desired state of an EventGatewayListener.
type EventGatewayListenerSpec struct {
	// GatewayRef names the KonnectEventGateway the listener belongs to
	// (type namespacedRef); another namespace needs a KongReferenceGrant
	// there.
	//
	// +required
	GatewayRef commonv1alpha1.ObjectRef `json:"gatewayRef,omitzero"`

	// APISpec is the listener as Konnect's API describes it.
	//
	// +optional
	APISpec EventGatewayListenerAPISpec `json:"apiSpec,omitzero"`
}

// EventGatewayListenerAPISpec is a listener as Konnect's API describes it,
// with Kong Operator's field names.
type EventGatewayListenerAPISpec struct {
	// Name of the listener, unique in its gateway.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	Name string `json:"name"`

	// Description of the listener.
	//
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Description string `json:"description,omitempty"`

	// Addresses the listener binds to (0.0.0.0 for every one).
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	Addresses []string `json:"addresses"`

	// Ports the listener binds to: a port (9092) or a range
	// ("19092-19095").
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	Ports []intstr.IntOrString `json:"ports"`

	// Labels are Konnect labels for the listener.
	//
	// +optional
	Labels EventGatewayLabels `json:"labels,omitempty"`
}

// EventGatewayListenerList is a list of EventGatewayListeners.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type EventGatewayListenerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the EventGatewayListeners.
	Items []EventGatewayListener `json:"items"`
}
