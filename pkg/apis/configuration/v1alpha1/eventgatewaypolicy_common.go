package v1alpha1

import konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"

// What the policies of the Event Gateway share: their name, description,
// switch and labels, the condition under which a virtual cluster's
// policy applies, and the parts of configurations that several policies
// use (header changes, encryption keys, key sources, field paths).
//
// Policies and much of their configuration are unions: a type, and the
// member that the type names. Each union has a rule per member: a type
// whose member has required fields needs the member, and a member is only
// for its type.

// EventGatewayPolicyMeta is what every Event Gateway policy has besides
// its configuration.
type EventGatewayPolicyMeta struct {
	// Name of the policy, unique among the policies of its parent.
	//
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Name string `json:"name,omitempty"`

	// Description of the policy.
	//
	// +kubebuilder:validation:MaxLength=512
	// +optional
	Description string `json:"description,omitempty"`

	// Enabled turns the policy on (Konnect's default: Enabled).
	//
	// +optional
	Enabled konnectv1alpha1.Toggle `json:"enabled,omitempty"`

	// Labels are Konnect labels for the policy.
	//
	// +optional
	Labels EventGatewayLabels `json:"labels,omitempty"`
}

// EventGatewayConditionalPolicyMeta is what every policy of a virtual
// cluster has besides its configuration: a policy's meta and the
// condition under which it applies.
type EventGatewayConditionalPolicyMeta struct {
	EventGatewayPolicyMeta `json:",inline"`

	// Condition is an expression on the record or the connection: the
	// policy applies where it holds (always when unset).
	//
	// +kubebuilder:validation:MaxLength=1000
	// +optional
	Condition string `json:"condition,omitempty"`
}

// EventGatewayModifyHeadersPolicy sets or removes headers of records.
type EventGatewayModifyHeadersPolicy struct {
	EventGatewayConditionalPolicyMeta `json:",inline"`

	// Config lists the header changes.
	//
	// +required
	Config EventGatewayModifyHeadersConfig `json:"config"`
}

// EventGatewayModifyHeadersConfig lists header changes, made in order.
type EventGatewayModifyHeadersConfig struct {
	// Actions are the header changes.
	//
	// +kubebuilder:validation:MinItems=1
	// +optional
	Actions []EventGatewayModifyHeaderAction `json:"actions,omitempty"`
}

// EventGatewayModifyHeaderAction sets a header (op set) or removes one
// (op remove).
//
// +kubebuilder:validation:XValidation:rule="self.op != 'set' || has(self.set)",message="op set needs set"
// +kubebuilder:validation:XValidation:rule="self.op != 'remove' || has(self.remove)",message="op remove needs remove"
// +kubebuilder:validation:XValidation:rule="self.op == 'set' || !has(self.set)",message="set is only for op set: remove it or change the op"
// +kubebuilder:validation:XValidation:rule="self.op == 'remove' || !has(self.remove)",message="remove is only for op remove: remove it or change the op"
type EventGatewayModifyHeaderAction struct {
	// Op is set or remove.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=remove;set
	// +required
	Op string `json:"op"`

	// Remove names the header to remove.
	//
	// +optional
	Remove *EventGatewayHeaderKey `json:"remove,omitempty"`

	// Set names the header to set and its value.
	//
	// +optional
	Set *EventGatewayHeaderValue `json:"set,omitempty"`
}

// EventGatewayHeaderKey names a header.
type EventGatewayHeaderKey struct {
	// Key is the header's name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Key string `json:"key"`
}

// EventGatewayHeaderValue is a header and its value.
type EventGatewayHeaderValue struct {
	// Key is the header's name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Key string `json:"key"`

	// Value is the header's value.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Value string `json:"value"`
}

// EventGatewayEncryptionKey is the key records are encrypted with: an AWS
// KMS key (type aws) or a static key of the gateway (type static).
//
// +kubebuilder:validation:XValidation:rule="self.type == 'aws' ? has(self.aws) : !has(self.aws)",message="aws must be set only when type is aws"
// +kubebuilder:validation:XValidation:rule="self.type == 'static' ? has(self.static) : !has(self.static)",message="static must be set only when type is static"
type EventGatewayEncryptionKey struct {
	// Type is aws or static.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=aws;static
	// +required
	Type string `json:"type"`

	// AWS is the AWS KMS key.
	//
	// +optional
	AWS *EventGatewayEncryptionKeyAWS `json:"aws,omitempty"`

	// Static names a static key of the gateway.
	//
	// +optional
	Static *EventGatewayEncryptionKeyStatic `json:"static,omitempty"`
}

// EventGatewayEncryptionKeyAWS is an AWS KMS key.
type EventGatewayEncryptionKeyAWS struct {
	// Arn of the key.
	//
	// +kubebuilder:validation:MinLength=10
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^arn:aws:kms:.+`
	// +required
	Arn string `json:"arn"`
}

// EventGatewayEncryptionKeyStatic names a static key of the gateway.
type EventGatewayEncryptionKeyStatic struct {
	// Key names the static key by its Konnect ID or its name.
	//
	// +required
	Key *EventGatewayIDOrName `json:"key"`
}

// EventGatewayIDOrName names a Konnect entity of the gateway by its ID or
// its name: exactly one of them.
//
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:MaxProperties=1
type EventGatewayIDOrName struct {
	// ID is the entity's Konnect ID.
	//
	// +optional
	ID *string `json:"id,omitempty"`

	// Name is the entity's name.
	//
	// +kubebuilder:validation:MaxLength=255
	// +optional
	Name *string `json:"name,omitempty"`
}

// EventGatewayKeySource is where decryption keys are looked up: AWS KMS
// (type aws) or the gateway's static keys (type static).
//
// +kubebuilder:validation:XValidation:rule="self.type == 'aws' || !has(self.aws)",message="aws is only for type aws: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'static' || !has(self.static)",message="static is only for type static: remove it or change the type"
type EventGatewayKeySource struct {
	// Type is aws or static.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=aws;static
	// +required
	Type string `json:"type"`

	// AWS takes keys from AWS KMS (nothing to configure).
	//
	// +optional
	AWS *EventGatewayEmpty `json:"aws,omitempty"`

	// Static takes the gateway's static keys (nothing to configure).
	//
	// +optional
	Static *EventGatewayEmpty `json:"static,omitempty"`
}

// EventGatewayEmpty is a union member with nothing to configure.
type EventGatewayEmpty struct{}

// EventGatewayFieldPaths selects fields of a parsed record: a list of
// paths (type array) or an expression (type expression).
//
// +kubebuilder:validation:XValidation:rule="self.type != 'array' || has(self.array)",message="type array needs array"
// +kubebuilder:validation:XValidation:rule="self.type != 'expression' || has(self.expression)",message="type expression needs expression"
// +kubebuilder:validation:XValidation:rule="self.type == 'array' || !has(self.array)",message="array is only for type array: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'expression' || !has(self.expression)",message="expression is only for type expression: remove it or change the type"
type EventGatewayFieldPaths struct {
	// Type is array or expression.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=array;expression
	// +required
	Type string `json:"type"`

	// Array lists the paths.
	//
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +optional
	Array []EventGatewayMatch `json:"array,omitempty"`

	// Expression selects the fields.
	//
	// +optional
	Expression *string `json:"expression,omitempty"`
}

// EventGatewayMatch is one pattern a name or path matches.
type EventGatewayMatch struct {
	// Match is the pattern.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Match string `json:"match"`
}
