package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KonnectAPIAuthType says where a KonnectAPIAuthConfiguration finds its
// token.
type KonnectAPIAuthType string

const (
	// KonnectAPIAuthTypeToken reads the token from spec.token.
	KonnectAPIAuthTypeToken KonnectAPIAuthType = "token"
	// KonnectAPIAuthTypeSecretRef reads the token from the data key "token"
	// of the Secret named in spec.secretRef.
	KonnectAPIAuthTypeSecretRef KonnectAPIAuthType = "secretRef"
)

// ConditionValid is the condition type the schema seeds on a new
// KonnectAPIAuthConfiguration (Unknown/Pending). The operator reports the
// outcome of checking the token in the APIAuthValid condition instead, so
// Valid stays Pending; it is kept for compatibility with existing manifests.
const ConditionValid = "Valid"

// KonnectAPIAuthConfiguration holds the credentials and the Konnect region
// that the Konnect objects below it use. It is not itself created in
// Konnect: the operator only checks that Konnect accepts the token.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Valid",type=string,JSONPath=`.status.conditions[?(@.type=='APIAuthValid')].status`,description="Whether Konnect accepts the token"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization the token belongs to"
// +kubebuilder:printcolumn:name="ServerURL",type=string,JSONPath=`.status.serverURL`,description="Konnect API URL in use"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.spec.type != 'token' || !has(self.spec.token) || size(self.spec.token) == 0 || self.spec.token.startsWith('spat_') || self.spec.token.startsWith('kpat_')",message="Konnect tokens have to start with spat_ or kpat_",fieldPath=".spec.token"
// +kubebuilder:validation:XValidation:rule="self.spec.type != 'token' || !has(oldSelf.spec.token) || has(self.spec.token)",message="Token is required once set",fieldPath=".spec.token"
type KonnectAPIAuthConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says where the token comes from and which Konnect API to use.
	//
	// +required
	Spec KonnectAPIAuthConfigurationSpec `json:"spec"`

	// Status is the outcome of checking the token against Konnect.
	//
	// +optional
	Status KonnectAPIAuthConfigurationStatus `json:"status,omitempty"`
}

// KonnectAPIAuthConfigurationSpec is the desired state of a
// KonnectAPIAuthConfiguration.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'token' || (has(self.token) && size(self.token) > 0)",message="Konnect tokens have to start with spat_ or kpat_"
// +kubebuilder:validation:XValidation:rule="self.type != 'secretRef' || has(self.secretRef)",message="spec.secretRef is required if auth type is set to secretRef"
// +kubebuilder:validation:XValidation:rule="!(has(self.token) && has(self.secretRef))",message="spec.token and spec.secretRef cannot both be set: keep only the one that spec.type selects"
type KonnectAPIAuthConfigurationSpec struct {
	// Type selects where the token comes from: token reads spec.token,
	// secretRef reads the data key "token" of the Secret in spec.secretRef.
	//
	// +kubebuilder:validation:Enum=token;secretRef
	// +required
	Type KonnectAPIAuthType `json:"type"`

	// Token is a Konnect personal (kpat_) or system (spat_) access token. It
	// is stored in plain text in this object; prefer a Secret.
	//
	// +optional
	Token string `json:"token,omitempty"`

	// SecretRef names the Secret holding the token under the data key
	// "token". The Secret must carry the label
	// konghq.com/credential=konnect. An empty namespace means the namespace
	// of this object; another namespace needs a KongReferenceGrant there.
	//
	// +optional
	SecretRef *corev1.SecretReference `json:"secretRef,omitempty"`

	// ServerURL is the Konnect API to use, as a host name
	// (eu.api.konghq.com) or an https URL (https://eu.api.konghq.com). The
	// first DNS label is the region: two lowercase letters or global. It
	// cannot change after creation.
	//
	// +kubebuilder:validation:XValidation:rule="size(self) > 0",message="Server URL is required"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Server URL is immutable"
	// +kubebuilder:validation:XValidation:rule="!isURL(self) || url(self).getScheme() == '' || url(self).getScheme() == 'https'",message="Server URL must use HTTPs if specifying scheme"
	// +kubebuilder:validation:XValidation:rule="size(self) == 0 || (isURL(self) && url(self).getScheme() != '') || self.matches('^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\\\\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*$')",message="Server URL must satisfy hostname (RFC 1123) regex if not a valid absolute URL"
	// +required
	ServerURL string `json:"serverURL"`
}

// KonnectAPIAuthConfigurationStatus is the observed state of a
// KonnectAPIAuthConfiguration.
type KonnectAPIAuthConfigurationStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// OrganizationID is the ID of the Konnect organization the token belongs
	// to.
	//
	// +optional
	OrganizationID string `json:"organizationID,omitempty"`

	// ServerURL is the normalised Konnect API URL in use,
	// https://<region>.<domain>.
	//
	// +optional
	ServerURL string `json:"serverURL,omitempty"`

	// Conditions describe the configuration's state: APIAuthValid says
	// whether Konnect accepts the token, ResolvedRefs whether a Secret in
	// another namespace may be read. The seeded Valid condition stays
	// Pending.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:default={{type: "Valid", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KonnectAPIAuthConfigurationList is a list of KonnectAPIAuthConfigurations.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KonnectAPIAuthConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KonnectAPIAuthConfigurations.
	Items []KonnectAPIAuthConfiguration `json:"items"`
}
