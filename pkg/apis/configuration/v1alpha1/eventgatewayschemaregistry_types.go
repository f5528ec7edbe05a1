package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// EventGatewaySchemaRegistry is a schema registry an event gateway
// validates records against (a Confluent schema registry). Policies of
// type schemaValidation name it.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the schema registry"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the schema registry is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.gatewayRef == oldSelf.spec.gatewayRef",message="spec.gatewayRef is immutable when an entity is already Programmed: create a new object for another gateway"
type EventGatewaySchemaRegistry struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired schema registry.
	//
	// +required
	Spec EventGatewaySchemaRegistrySpec `json:"spec"`

	// Status is the schema registry as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status EventGatewayEntityStatus `json:"status,omitempty"`
}

// EventGatewaySchemaRegistrySpec is the desired state of an
// EventGatewaySchemaRegistry.
type EventGatewaySchemaRegistrySpec struct {
	// GatewayRef names the KonnectEventGateway the schema registry belongs
	// to (type namespacedRef); another namespace needs a KongReferenceGrant
	// there.
	//
	// +required
	GatewayRef commonv1alpha1.ObjectRef `json:"gatewayRef,omitzero"`

	// APISpec is the schema registry as Konnect's API describes it.
	//
	// +required
	APISpec EventGatewaySchemaRegistryAPISpec `json:"apiSpec"`
}

// EventGatewaySchemaRegistryAPISpec is a schema registry of one of the
// kinds Konnect knows: the member that type names.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'confluent' || has(self.confluent)",message="type confluent needs confluent"
// +kubebuilder:validation:XValidation:rule="self.type == 'confluent' || !has(self.confluent)",message="confluent is only for type confluent: remove it or change the type"
type EventGatewaySchemaRegistryAPISpec struct {
	// Type is confluent.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=confluent
	// +required
	Type string `json:"type"`

	// Confluent is a Confluent schema registry.
	//
	// +optional
	Confluent *EventGatewayConfluentSchemaRegistry `json:"confluent,omitempty"`
}

// EventGatewayConfluentSchemaRegistry is a Confluent schema registry.
type EventGatewayConfluentSchemaRegistry struct {
	// Name of the schema registry, unique in its gateway.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	Name string `json:"name"`

	// Description of the schema registry.
	//
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Description string `json:"description,omitempty"`

	// Labels are Konnect labels for the schema registry.
	//
	// +optional
	Labels EventGatewayLabels `json:"labels,omitempty"`

	// Config says where the registry is and how to read it.
	//
	// +required
	Config EventGatewayConfluentSchemaRegistryConfig `json:"config"`
}

// EventGatewayConfluentSchemaRegistryConfig says where a Confluent schema
// registry is and how to read it.
type EventGatewayConfluentSchemaRegistryConfig struct {
	// SchemaType is avro or json.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=avro;json
	// +required
	SchemaType string `json:"schemaType"`

	// Endpoint is the registry's URL.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Endpoint string `json:"endpoint"`

	// TimeoutSeconds bounds each request to the registry (Konnect's
	// default: 10).
	//
	// +kubebuilder:validation:Minimum=1
	// +optional
	TimeoutSeconds int `json:"timeoutSeconds,omitempty"`

	// Authentication is how the gateway authenticates to the registry.
	//
	// +optional
	Authentication *EventGatewaySchemaRegistryAuthentication `json:"authentication,omitempty"`
}

// EventGatewaySchemaRegistryAuthentication is how the gateway
// authenticates to a schema registry: the member that type names.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'basic' || has(self.basic)",message="type basic needs basic"
// +kubebuilder:validation:XValidation:rule="self.type == 'basic' || !has(self.basic)",message="basic is only for type basic: remove it or change the type"
type EventGatewaySchemaRegistryAuthentication struct {
	// Type is basic.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=basic
	// +required
	Type string `json:"type"`

	// Basic authenticates with a user name and password.
	//
	// +optional
	Basic *EventGatewaySchemaRegistryBasicAuth `json:"basic,omitempty"`
}

// EventGatewaySchemaRegistryBasicAuth is a user name and password.
type EventGatewaySchemaRegistryBasicAuth struct {
	// Username is the user name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Username string `json:"username"`

	// Password is the password, inline or from a Secret.
	//
	// +required
	Password SensitiveDataSource `json:"password"`
}

// EventGatewaySchemaRegistryList is a list of EventGatewaySchemaRegistries.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type EventGatewaySchemaRegistryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the EventGatewaySchemaRegistries.
	Items []EventGatewaySchemaRegistry `json:"items"`
}
