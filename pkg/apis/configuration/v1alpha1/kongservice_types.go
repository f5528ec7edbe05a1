package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongService is a Kong Gateway service in a Konnect control plane: an
// upstream that routes forward traffic to.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Host",type=string,JSONPath=`.spec.host`,description="Upstream host"
// +kubebuilder:printcolumn:name="Protocol",type=string,JSONPath=`.spec.protocol`,description="Upstream protocol"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the service exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.controlPlaneRef) || has(self.spec.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed once set"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.controlPlaneRef) || !has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef",message="spec.controlPlaneRef is immutable when an entity is already Programmed"
// +kubebuilder:validation:XValidation:rule="has(self.spec.id) == has(oldSelf.spec.id) && (!has(self.spec.id) || self.spec.id == oldSelf.spec.id)",message="spec.id cannot be added, removed or changed after creation"
type KongService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired service.
	//
	// +required
	Spec KongServiceSpec `json:"spec"`

	// Status is the service as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongServiceStatus `json:"status,omitempty"`
}

// KongServiceSpec is the desired state of a KongService.
//
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlaneRef) || !has(self.controlPlaneRef.type) || self.controlPlaneRef.type != 'kic'",message="KIC is not supported as control plane"
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KongServiceSpec struct {
	// ControlPlaneRef names the Konnect control plane the service belongs to.
	// Its type must be konnectNamespacedRef.
	//
	// +required
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef"`

	// Adopt takes over an existing Konnect service instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	// ClientCertificateRef names the KongCertificate the service presents to
	// its upstream. It must live in the same Konnect control plane; another
	// namespace needs a KongReferenceGrant.
	//
	// +optional
	ClientCertificateRef *commonv1alpha1.NamespacedRef `json:"clientCertificateRef,omitempty"`

	// CACertificateRefs name the KongCACertificates used to verify the
	// upstream's certificate. Each must live in the same Konnect control
	// plane; another namespace needs a KongReferenceGrant.
	//
	// +listType=atomic
	// +optional
	CACertificateRefs []commonv1alpha1.NamespacedRef `json:"caCertificateRefs,omitempty"`

	KongServiceAPISpec `json:",inline"`
}

// KongServiceAPISpec holds the fields of a service that are sent to Konnect.
type KongServiceAPISpec struct {
	// ID is the Konnect ID to create the service with. It cannot change after
	// creation.
	//
	// +optional
	ID string `json:"id,omitempty"`

	// Name of the service in Konnect. When empty, the service is created with
	// the object's UID as its Konnect ID.
	//
	// +optional
	Name string `json:"name,omitempty"`

	// Host of the upstream server, or the name of a KongUpstream.
	//
	// +required
	Host string `json:"host"`

	// Port of the upstream server. Absent means 80.
	//
	// +optional
	Port int64 `json:"port,omitempty"`

	// Protocol used to reach the upstream: grpc, grpcs, http, https, tcp,
	// tls, tls_passthrough, udp, ws or wss. Absent means http.
	//
	// +optional
	Protocol string `json:"protocol,omitempty"`

	// Path prefix used in requests to the upstream.
	//
	// +optional
	Path string `json:"path,omitempty"`

	// URL is a shorthand that sets protocol, host, port and path at once.
	//
	// +optional
	URL string `json:"url,omitempty"`

	// ConnectTimeout is the timeout in milliseconds for connecting to the
	// upstream. Absent means 60000.
	//
	// +optional
	ConnectTimeout *int64 `json:"connect_timeout,omitempty"`

	// ReadTimeout is the timeout in milliseconds between two reads from the
	// upstream. Absent means 60000.
	//
	// +optional
	ReadTimeout *int64 `json:"read_timeout,omitempty"`

	// WriteTimeout is the timeout in milliseconds between two writes to the
	// upstream. Absent means 60000.
	//
	// +optional
	WriteTimeout *int64 `json:"write_timeout,omitempty"`

	// Retries is how many times a failed proxied request is retried. Absent
	// means 5.
	//
	// +optional
	Retries *int64 `json:"retries,omitempty"`

	// Enabled says whether the service accepts traffic. Absent means true.
	//
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// TLSVerify says whether the upstream's TLS certificate is verified.
	//
	// +optional
	TLSVerify *bool `json:"tls_verify,omitempty"`

	// TLSVerifyDepth is the longest certificate chain accepted when verifying
	// the upstream's certificate.
	//
	// +optional
	TLSVerifyDepth *int64 `json:"tls_verify_depth,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// KongServiceStatus is the observed state of a KongService.
type KongServiceStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the service lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneAndCertificateAndCACertificatesRefs `json:"konnect,omitempty"`

	// Conditions describe the service's state: Programmed,
	// ControlPlaneRefValid, APIAuthResolvedRef, APIAuthValid and, where they
	// apply, ResolvedRefs, KongCertificateRefValid,
	// KongCACertificateRefsValid and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongServiceList is a list of KongServices.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongServices.
	Items []KongService `json:"items"`
}
