package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// EventGatewayVirtualClusterConsumePolicy is a policy a virtual cluster
// applies to the records clients consume: change their headers, validate
// them against a schema, decrypt them, or skip them.
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
type EventGatewayVirtualClusterConsumePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired policy.
	//
	// +required
	Spec EventGatewayVirtualClusterConsumePolicySpec `json:"spec"`

	// Status is the policy as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status EventGatewayVirtualClusterPolicyStatus `json:"status,omitempty"`
}

// EventGatewayVirtualClusterConsumePolicySpec is the desired state of an
// EventGatewayVirtualClusterConsumePolicy.
type EventGatewayVirtualClusterConsumePolicySpec struct {
	// EventGatewayVirtualClusterRef names the EventGatewayVirtualCluster
	// the policy belongs to (type namespacedRef); another namespace needs
	// a KongReferenceGrant there.
	//
	// +required
	EventGatewayVirtualClusterRef commonv1alpha1.ObjectRef `json:"eventGatewayVirtualClusterRef,omitzero"`

	// APISpec is the policy as Konnect's API describes it.
	//
	// +required
	APISpec EventGatewayVirtualClusterConsumePolicyAPISpec `json:"apiSpec"`
}

// EventGatewayVirtualClusterConsumePolicyAPISpec is one of the policies
// of consumed records: the member that type names.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'modifyHeaders' || has(self.modifyHeaders)",message="type modifyHeaders needs modifyHeaders"
// +kubebuilder:validation:XValidation:rule="self.type != 'schemaValidation' || has(self.schemaValidation)",message="type schemaValidation needs schemaValidation"
// +kubebuilder:validation:XValidation:rule="self.type != 'decrypt' || has(self.decrypt)",message="type decrypt needs decrypt"
// +kubebuilder:validation:XValidation:rule="self.type != 'decryptFields' || has(self.decryptFields)",message="type decryptFields needs decryptFields"
// +kubebuilder:validation:XValidation:rule="self.type == 'modifyHeaders' || !has(self.modifyHeaders)",message="modifyHeaders is only for type modifyHeaders: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'schemaValidation' || !has(self.schemaValidation)",message="schemaValidation is only for type schemaValidation: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'decrypt' || !has(self.decrypt)",message="decrypt is only for type decrypt: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'decryptFields' || !has(self.decryptFields)",message="decryptFields is only for type decryptFields: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'skipRecord' || !has(self.skipRecord)",message="skipRecord is only for type skipRecord: remove it or change the type"
type EventGatewayVirtualClusterConsumePolicyAPISpec struct {
	// Type is modifyHeaders, schemaValidation, decrypt, decryptFields or
	// skipRecord.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=decrypt;decryptFields;modifyHeaders;schemaValidation;skipRecord
	// +required
	Type string `json:"type"`

	// ModifyHeaders sets or removes headers of consumed records.
	//
	// +optional
	ModifyHeaders *EventGatewayModifyHeadersPolicy `json:"modifyHeaders,omitempty"`

	// SchemaValidation validates consumed records against a schema.
	//
	// +optional
	SchemaValidation *EventGatewayConsumeSchemaValidationPolicy `json:"schemaValidation,omitempty"`

	// Decrypt decrypts consumed records' keys or values.
	//
	// +optional
	Decrypt *EventGatewayDecryptPolicy `json:"decrypt,omitempty"`

	// DecryptFields decrypts fields of parsed records. Konnect nests such
	// a policy under a schemaValidation policy, which Kong Operator's
	// API cannot name: this operator reports it as not supported.
	//
	// +optional
	DecryptFields *EventGatewayDecryptFieldsPolicy `json:"decryptFields,omitempty"`

	// SkipRecord skips the consumed records its condition matches.
	//
	// +optional
	SkipRecord *EventGatewayConditionalPolicyMeta `json:"skipRecord,omitempty"`
}

// EventGatewayConsumeSchemaValidationPolicy validates consumed records
// against a schema.
type EventGatewayConsumeSchemaValidationPolicy struct {
	EventGatewayConditionalPolicyMeta `json:",inline"`

	// Config says how records are validated.
	//
	// +required
	Config *EventGatewayConsumeSchemaValidationConfig `json:"config"`
}

// EventGatewayConsumeSchemaValidationConfig validates consumed records
// with a Confluent schema registry (type confluentSchemaRegistry) or as
// JSON (type json).
//
// +kubebuilder:validation:XValidation:rule="self.type == 'confluentSchemaRegistry' || !has(self.confluentSchemaRegistry)",message="confluentSchemaRegistry is only for type confluentSchemaRegistry: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'json' || !has(self.json)",message="json is only for type json: remove it or change the type"
type EventGatewayConsumeSchemaValidationConfig struct {
	// Type is confluentSchemaRegistry or json.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=confluentSchemaRegistry;json
	// +required
	Type string `json:"type"`

	// ConfluentSchemaRegistry validates with a Confluent schema registry.
	//
	// +optional
	ConfluentSchemaRegistry *EventGatewayConsumeValidation `json:"confluentSchemaRegistry,omitempty"`

	// JSON validates records as JSON.
	//
	// +optional
	JSON *EventGatewayConsumeValidation `json:"json,omitempty"`
}

// EventGatewayConsumeValidation says how consumed records are validated
// and what happens to those that fail.
type EventGatewayConsumeValidation struct {
	// SchemaRegistry names the EventGatewaySchemaRegistry of the same
	// namespace and gateway that holds the schemas.
	//
	// +optional
	SchemaRegistry *EventGatewaySchemaRegistryRef `json:"schemaRegistry,omitempty"`

	// FailureMode is what happens when a record cannot be validated:
	// error, skip, passthrough or mark.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=error;skip;passthrough;mark
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
	// invalid: mark or skip.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=mark;skip
	// +optional
	KeyValidationAction string `json:"keyValidationAction,omitempty"`

	// ValueValidationAction is what happens to a record whose value is
	// invalid: mark or skip.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=mark;skip
	// +optional
	ValueValidationAction string `json:"valueValidationAction,omitempty"`
}

// EventGatewaySchemaRegistryRef names an EventGatewaySchemaRegistry of the
// referrer's namespace.
type EventGatewaySchemaRegistryRef struct {
	// Kind is EventGatewaySchemaRegistry.
	//
	// +kubebuilder:validation:Enum=EventGatewaySchemaRegistry
	// +kubebuilder:default=EventGatewaySchemaRegistry
	// +optional
	Kind string `json:"kind,omitempty"`

	// Name of the EventGatewaySchemaRegistry.
	//
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name"`

	// Namespace is reserved: only a schema registry of the policy's own
	// namespace can be named.
	//
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// EventGatewayDecryptPolicy decrypts consumed records' keys or values.
type EventGatewayDecryptPolicy struct {
	EventGatewayConditionalPolicyMeta `json:",inline"`

	// Config says what is decrypted and where keys come from.
	//
	// +required
	Config EventGatewayDecryptConfig `json:"config"`
}

// EventGatewayDecryptConfig says what is decrypted and where keys come
// from.
type EventGatewayDecryptConfig struct {
	// FailureMode is error or passthrough, when a record cannot be
	// decrypted.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=error;passthrough
	// +required
	FailureMode string `json:"failureMode"`

	// KeySources are where decryption keys are looked up.
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	KeySources []EventGatewayKeySource `json:"keySources"`

	// PartOfRecord is what is decrypted: key, value.
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	PartOfRecord []EventGatewayRecordPart `json:"partOfRecord"`
}

// EventGatewayRecordPart is a part of a record: key or value.
//
// +kubebuilder:validation:Enum=key;value
type EventGatewayRecordPart string

// EventGatewayDecryptFieldsPolicy decrypts fields of parsed records.
type EventGatewayDecryptFieldsPolicy struct {
	EventGatewayConditionalPolicyMeta `json:",inline"`

	// Config says which fields are decrypted and where keys come from.
	//
	// +required
	Config EventGatewayDecryptFieldsConfig `json:"config"`
}

// EventGatewayDecryptFieldsConfig says which fields of parsed records are
// decrypted and where keys come from.
type EventGatewayDecryptFieldsConfig struct {
	// DecryptFields selects the fields.
	//
	// +required
	DecryptFields EventGatewayFieldSelector `json:"decryptFields"`

	// FailureMode is error, skip, passthrough or mark, when a field cannot
	// be decrypted.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=error;skip;passthrough;mark
	// +required
	FailureMode string `json:"failureMode"`

	// KeySources are where decryption keys are looked up.
	//
	// +kubebuilder:validation:MinItems=1
	// +required
	KeySources []EventGatewayKeySource `json:"keySources"`
}

// EventGatewayFieldSelector selects fields of parsed records.
type EventGatewayFieldSelector struct {
	// Paths are the fields.
	//
	// +required
	Paths *EventGatewayFieldPaths `json:"paths"`
}

// EventGatewayVirtualClusterConsumePolicyList is a list of
// EventGatewayVirtualClusterConsumePolicies.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type EventGatewayVirtualClusterConsumePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the EventGatewayVirtualClusterConsumePolicies.
	Items []EventGatewayVirtualClusterConsumePolicy `json:"items"`
}
