package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// What the Event Gateway kinds share: Konnect labels, switches written as
// Kong Operator writes Konnect's booleans, sensitive values given inline
// or read from a Secret, and the status of an entity that lives in an
// event gateway.

// EventGatewayLabels are Konnect labels of an Event Gateway entity, beside
// the operator's own k8s-* and managed-by labels. Keys are 1-63
// characters and do not start with kong, konnect, mesh, kic or _.
//
// +kubebuilder:validation:MaxProperties=50
type EventGatewayLabels map[string]konnectv1alpha1.LabelValue

// SensitiveDataSourceType says where a sensitive value comes from.
type SensitiveDataSourceType string

const (
	// SensitiveDataInline gives the value in the manifest.
	SensitiveDataInline SensitiveDataSourceType = "inline"
	// SensitiveDataSecretRef reads the value from a key of a Secret.
	SensitiveDataFromSecret SensitiveDataSourceType = "secretRef"
)

// SensitiveDataSource is a sensitive value (a private key, a password):
// given inline, or read from a key of a Secret, which the operator reads
// by its name; the Secret must be labelled konghq.com/secret=true. A
// Secret in another namespace needs a KongReferenceGrant there to
// core/Secret.
//
// +kubebuilder:validation:XValidation:rule="self.type == 'secretRef' ? has(self.secretRef) : has(self.value)",message="value required when type=inline; secretRef required when type=secretRef"
// +kubebuilder:validation:XValidation:rule="!(has(self.value) && has(self.secretRef))",message="value and secretRef exclude each other: keep the one that type names"
type SensitiveDataSource struct {
	// Type is inline (value) or secretRef (secretRef).
	//
	// +kubebuilder:validation:Enum=inline;secretRef
	// +kubebuilder:default=inline
	// +required
	Type SensitiveDataSourceType `json:"type"`

	// Value is the value itself; only with type inline.
	//
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Value *string `json:"value,omitempty"`

	// SecretRef names the Secret key that holds the value; only with type
	// secretRef.
	//
	// +optional
	SecretRef *SensitiveDataSecretRef `json:"secretRef,omitempty"`
}

// SensitiveDataSecretRef names a key of a Secret.
type SensitiveDataSecretRef struct {
	// Name of the Secret.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// Namespace of the Secret; the object's own when unset.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Key is the data key of the Secret that holds the value.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Key string `json:"key"`
}

// EventGatewayEntityStatus is the observed state of an entity of an event
// gateway.
type EventGatewayEntityStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	commonv1alpha1.KonnectEntityStatus `json:",inline"`

	// GatewayID is the Konnect ID of the event gateway the entity belongs
	// to.
	//
	// +optional
	GatewayID *commonv1alpha1.KonnectEntityRef `json:"gatewayID,omitempty"`

	// Conditions describe the entity's state: Programmed, the reference
	// to its parent (EventGatewayRefValid…), APIAuthResolvedRef,
	// APIAuthValid and, where they apply, SecretRefValid and ResolvedRefs.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RecordedGatewayID is the gateway's Konnect ID the status records, ""
// when none.
func (s *EventGatewayEntityStatus) RecordedGatewayID() string { return s.GatewayID.GetID() }

// RecordGatewayID records the gateway's Konnect ID.
func (s *EventGatewayEntityStatus) RecordGatewayID(id string) {
	s.GatewayID = &commonv1alpha1.KonnectEntityRef{ID: id}
}

// parentRecord is where a status records the Konnect ID of an entity's
// parent other than its gateway (a policy's listener or virtual cluster).
type parentRecord = *commonv1alpha1.KonnectEntityRef

func recordedID(r parentRecord) string { return r.GetID() }

func record(id string) parentRecord { return &commonv1alpha1.KonnectEntityRef{ID: id} }
