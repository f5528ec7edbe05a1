package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// EventGatewayVirtualClusterProducePolicy is a policy a virtual cluster
// applies to the records clients produce: change their headers, validate
// them against a schema, or encrypt them.
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
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.eventGatewayVirtualClusterRef == oldSelf.spec.eventGatewayVirtualClusterRef",message="spec.eventGatewayVirtualClusterRef is immutable when an entity is already Programmed: create a new object for another virtual cluster"
type EventGatewayVirtualClusterProducePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired policy.
	//
	// +required
	Spec EventGatewayVirtualClusterProducePolicySpec `json:"spec"`

	// Status is the policy as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status EventGatewayVirtualClusterPolicyStatus `json:"status,omitempty"`
}

// EventGatewayVirtualClusterProducePolicySpec is the desired state of an
// EventGatewayVirtualClusterProducePolicy.
type EventGatewayVirtualClusterProducePolicySpec struct {
	// EventGatewayVirtualClusterRef names the EventGatewayVirtualCluster
	// the policy belongs to (type namespacedRef); another namespace needs
	// a KongReferenceGrant there.
	//
	// +required
	EventGatewayVirtualClusterRef commonv1alpha1.ObjectRef `json:"eventGatewayVirtualClusterRef,omitzero"`

	// APISpec is the policy as Konnect's API describes it.
	//
	// +required
	APISpec EventGatewayVirtualClusterProducePolicyAPISpec `json:"apiSpec"`
}

// EventGatewayVirtualClusterProducePolicyAPISpec is one of the policies
// of produced records: the member that type names.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'modifyHeaders' || has(self.modifyHeaders)",message="type modifyHeaders needs modifyHeaders"
// +kubebuilder:validation:XValidation:rule="self.type != 'schemaValidation' || has(self.schemaValidation)",message="type schemaValidation needs schemaValidation"
// +kubebuilder:validation:XValidation:rule="self.type != 'encrypt' || has(self.encrypt)",message="type encrypt needs encrypt"
// +kubebuilder:validation:XValidation:rule="self.type != 'encryptFields' || has(self.encryptFields)",message="type encryptFields needs encryptFields"
// +kubebuilder:validation:XValidation:rule="self.type == 'modifyHeaders' || !has(self.modifyHeaders)",message="modifyHeaders is only for type modifyHeaders: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'schemaValidation' || !has(self.schemaValidation)",message="schemaValidation is only for type schemaValidation: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'encrypt' || !has(self.encrypt)",message="encrypt is only for type encrypt: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'encryptFields' || !has(self.encryptFields)",message="encryptFields is only for type encryptFields: remove it or change the type"
type EventGatewayVirtualClusterProducePolicyAPISpec struct {
	// Type is modifyHeaders, schemaValidation, encrypt or encryptFields.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=encrypt;encryptFields;modifyHeaders;schemaValidation
	// +required
	Type string `json:"type"`

	// ModifyHeaders sets or removes headers of produced records.
	//
	// +optional
	ModifyHeaders *EventGatewayModifyHeadersPolicy `json:"modifyHeaders,omitempty"`

	// SchemaValidation validates produced records against a schema.
	//
	// +optional
	SchemaValidation *EventGatewayProduceSchemaValidationPolicy `json:"schemaValidation,omitempty"`

	// Encrypt encrypts produced records' keys or values.
	//
	// +optional
	Encrypt *EventGatewayEncryptPolicy `json:"encrypt,omitempty"`

	// EncryptFields encrypts fields of parsed records. Konnect nests such
	// a policy under a schemaValidation policy, which Kong Operator's
	// API cannot name: this operator reports it as not supported.
	//
	// +optional
	EncryptFields *EventGatewayEncryptFieldsPolicy `json:"encryptFields,omitempty"`
}

// EventGatewayProduceSchemaValidationPolicy validates produced records
// against a schema.
type EventGatewayProduceSchemaValidationPolicy struct {
	EventGatewayConditionalPolicyMeta `json:",inline"`

	// Config says how records are validated.
	//
	// +required
	Config *EventGatewayProduceSchemaValidationConfig `json:"config"`
}

// EventGatewayProduceSchemaValidationConfig validates produced records
// with a Confluent schema registry (type confluentSchemaRegistry) or as
// JSON (type json).
//
// +kubebuilder:validation:XValidation:rule="self.type == 'confluentSchemaRegistry' || !has(self.confluentSchemaRegistry)",message="confluentSchemaRegistry is only for type confluentSchemaRegistry: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'json' || !has(self.json)",message="json is only for type json: remove it or change the type"
type EventGatewayProduceSchemaValidationConfig struct {
	// Type is confluentSchemaRegistry or json.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=confluentSchemaRegistry;json
	// +required
	Type string `json:"type"`

	// ConfluentSchemaRegistry validates with a Confluent schema registry.
	//
	// +optional
	ConfluentSchemaRegistry *EventGatewayProduceValidation `json:"confluentSchemaRegistry,omitempty"`

	// JSON validates records as JSON.
	//
	// +optional
	JSON *EventGatewayProduceValidation `json:"json,omitempty"`
}

// EventGatewayProduceValidation says how produced records are validated
// and what happens to those that fail.
type EventGatewayProduceValidation struct {
	// SchemaRegistry names the gateway's schema registry by its Konnect ID
	// or its name.
	//
	// +optional
	SchemaRegistry *EventGatewaySchemaRegistryByIDOrName `json:"schemaRegistry,omitempty"`

	// FailureMode is what happens when a record cannot be validated:
	// reject, passthrough or mark.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=reject;passthrough;mark
	// +optional
	FailureMode string `json:"failureMode,omitempty"`

	// ValidateKey validates records' keys.
	//
	// +optional
	ValidateKey konnectv1alpha1.Toggle `json:"validateKey,omitempty"`

	// ValidateValue validates records' values.
	//
	// +optional
	ValidateValue konnectv1alpha1.Toggle `json:"validateValue,omitempty"`

	// KeyValidationAction is what happens to a record whose key is
	// invalid: reject or mark.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=reject;mark
	// +optional
	KeyValidationAction string `json:"keyValidationAction,omitempty"`

	// ValueValidationAction is what happens to a record whose value is
	// invalid: reject or mark.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=reject;mark
	// +optional
	ValueValidationAction string `json:"valueValidationAction,omitempty"`
}

// EventGatewaySchemaRegistryByIDOrName names a schema registry of the
// gateway by its Konnect ID (type id) or its name (type name).
//
// +kubebuilder:validation:XValidation:rule="self.type != 'id' || (has(self.id) && has(self.id.id))",message="type id needs id.id, the schema registry's Konnect ID"
// +kubebuilder:validation:XValidation:rule="self.type != 'name' || has(self.name)",message="type name needs name"
// +kubebuilder:validation:XValidation:rule="self.type == 'id' || !has(self.id)",message="id is only for type id: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'name' || !has(self.name)",message="name is only for type name: remove it or change the type"
type EventGatewaySchemaRegistryByIDOrName struct {
	// Type is id or name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=id;name
	// +required
	Type string `json:"type"`

	// ID names the schema registry by its Konnect ID.
	//
	// +optional
	ID *EventGatewayKonnectID `json:"id,omitempty"`

	// Name names the schema registry by its name.
	//
	// +optional
	Name *EventGatewayEntityName `json:"name,omitempty"`
}

// EventGatewayKonnectID is a Konnect ID.
type EventGatewayKonnectID struct {
	// ID is the Konnect ID.
	//
	// +kubebuilder:validation:MaxLength=36
	// +optional
	ID string `json:"id,omitempty"`
}

// EventGatewayEntityName is the name of an entity of the gateway.
type EventGatewayEntityName struct {
	// Name of the entity.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +required
	Name string `json:"name"`
}

// EventGatewayEncryptPolicy encrypts produced records' keys or values.
type EventGatewayEncryptPolicy struct {
	EventGatewayConditionalPolicyMeta `json:",inline"`

	// Config says what is encrypted and with which key.
	//
	// +required
	Config EventGatewayEncryptConfig `json:"config"`
}

// EventGatewayEncryptConfig says what is encrypted and with which key.
type EventGatewayEncryptConfig struct {
	// EncryptionKey is the key records are encrypted with.
	//
	// +required
	EncryptionKey *EventGatewayEncryptionKey `json:"encryptionKey"`

	// FailureMode is error or passthrough, when a record cannot be
	// encrypted.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=error;passthrough
	// +required
	FailureMode string `json:"failureMode"`

	// PartOfRecord is what is encrypted: key, value.
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	PartOfRecord []EventGatewayRecordPart `json:"partOfRecord"`
}

// EventGatewayEncryptFieldsPolicy encrypts fields of parsed records.
type EventGatewayEncryptFieldsPolicy struct {
	EventGatewayConditionalPolicyMeta `json:",inline"`

	// Config says which fields are encrypted and with which keys.
	//
	// +required
	Config EventGatewayEncryptFieldsConfig `json:"config"`
}

// EventGatewayEncryptFieldsConfig says which fields of parsed records are
// encrypted and with which keys.
type EventGatewayEncryptFieldsConfig struct {
	// EncryptFields pairs fields with the keys they are encrypted with.
	//
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=256
	// +required
	EncryptFields []EventGatewayFieldEncryption `json:"encryptFields"`

	// FailureMode is reject, passthrough or mark, when a field cannot be
	// encrypted.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=reject;passthrough;mark
	// +required
	FailureMode string `json:"failureMode"`
}

// EventGatewayFieldEncryption encrypts the fields paths select with a key.
type EventGatewayFieldEncryption struct {
	// EncryptionKey is the key.
	//
	// +required
	EncryptionKey *EventGatewayEncryptionKey `json:"encryptionKey"`

	// Paths select the fields.
	//
	// +required
	Paths *EventGatewayFieldPaths `json:"paths"`
}

// EventGatewayVirtualClusterProducePolicyList is a list of
// EventGatewayVirtualClusterProducePolicies.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type EventGatewayVirtualClusterProducePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the EventGatewayVirtualClusterProducePolicies.
	Items []EventGatewayVirtualClusterProducePolicy `json:"items"`
}
