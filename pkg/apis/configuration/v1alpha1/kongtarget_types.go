package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongTarget is a Kong Gateway target: one host[:port] that a KongUpstream
// balances load across. It lives in its upstream's control plane.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Upstream",type=string,JSONPath=`.spec.upstreamRef.name`,description="KongUpstream the target belongs to"
// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.target`,description="Target address"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the target exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.spec.upstreamRef == oldSelf.spec.upstreamRef",message="spec.upstreamRef is immutable",fieldPath=".spec.upstreamRef"
type KongTarget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired target.
	//
	// +required
	Spec KongTargetSpec `json:"spec"`

	// Status is the target as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongTargetStatus `json:"status,omitempty"`
}

// KongTargetSpec is the desired state of a KongTarget.
//
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KongTargetSpec struct {
	// UpstreamRef names the KongUpstream the target belongs to; the target
	// inherits its control plane. Another namespace needs a
	// KongReferenceGrant there. It cannot change after creation.
	//
	// +required
	UpstreamRef commonv1alpha1.NamespacedRef `json:"upstreamRef"`

	// Adopt takes over an existing Konnect target instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	KongTargetAPISpec `json:",inline"`
}

// KongTargetAPISpec holds the fields of a target that are sent to Konnect.
type KongTargetAPISpec struct {
	// Target is the address traffic is sent to, host[:port].
	//
	// +required
	Target string `json:"target"`

	// Weight is the target's share of the load, 0 to 65535; 0 takes it out
	// of rotation. Defaults to 100.
	//
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:default=100
	// +required
	Weight int `json:"weight"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KongTargetStatus is the observed state of a KongTarget.
type KongTargetStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the target lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneAndUpstreamRefs `json:"konnect,omitempty"`

	// Conditions describe the target's state: Programmed,
	// KongUpstreamRefValid, ControlPlaneRefValid, APIAuthResolvedRef,
	// APIAuthValid and, when adopting, Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongTargetList is a list of KongTargets.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongTargetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongTargets.
	Items []KongTarget `json:"items"`
}
