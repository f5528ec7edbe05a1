package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongUpstream is a Kong Gateway upstream in a Konnect control plane: a
// named, load-balanced set of KongTargets that a KongService can use as its
// host.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the upstream exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.controlPlaneRef) || has(self.spec.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed once set",fieldPath=".spec.controlPlaneRef"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || (has(self.spec.controlPlaneRef) && has(oldSelf.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed",fieldPath=".spec.controlPlaneRef"
type KongUpstream struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired upstream.
	//
	// +required
	Spec KongUpstreamSpec `json:"spec"`

	// Status is the upstream as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongUpstreamStatus `json:"status,omitempty"`
}

// KongUpstreamSpec is the desired state of a KongUpstream.
//
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlaneRef) || !has(self.controlPlaneRef.type) || self.controlPlaneRef.type != 'kic'",message="KIC is not supported as control plane"
// +kubebuilder:validation:XValidation:rule="!has(self.hash_fallback) || self.hash_fallback != 'header' || has(self.hash_fallback_header)",message="hash_fallback_header is required when `hash_fallback` is set to `header`"
// +kubebuilder:validation:XValidation:rule="!has(self.hash_fallback) || self.hash_fallback != 'query_arg' || has(self.hash_fallback_query_arg)",message="hash_fallback_query_arg is required when `hash_fallback` is set to `query_arg`"
// +kubebuilder:validation:XValidation:rule="!has(self.hash_fallback) || self.hash_fallback != 'uri_capture' || has(self.hash_fallback_uri_capture)",message="hash_fallback_uri_capture is required when `hash_fallback` is set to `uri_capture`"
// +kubebuilder:validation:XValidation:rule="!has(self.hash_fallback) || self.hash_fallback != 'cookie' || has(self.hash_on_cookie)",message="hash_on_cookie is required when hash_fallback is set to `cookie`."
// +kubebuilder:validation:XValidation:rule="!has(self.hash_on) || self.hash_on != 'cookie' || has(self.hash_on_cookie)",message="hash_on_cookie is required when hash_on is set to `cookie`."
// +kubebuilder:validation:XValidation:rule="!has(self.hash_fallback) || self.hash_fallback != 'cookie' || has(self.hash_on_cookie_path)",message="hash_on_cookie_path is required when hash_fallback is set to `cookie`."
// +kubebuilder:validation:XValidation:rule="!has(self.hash_on) || self.hash_on != 'cookie' || has(self.hash_on_cookie_path)",message="hash_on_cookie_path is required when hash_on is set to `cookie`."
// +kubebuilder:validation:XValidation:rule="!has(self.hash_on) || self.hash_on != 'header' || has(self.hash_on_header)",message="hash_on_header is required when hash_on is set to `header`"
// +kubebuilder:validation:XValidation:rule="!has(self.hash_on) || self.hash_on != 'query_arg' || has(self.hash_on_query_arg)",message="hash_on_query_arg is required when `hash_on` is set to `query_arg`"
// +kubebuilder:validation:XValidation:rule="!has(self.hash_on) || self.hash_on != 'uri_capture' || has(self.hash_on_uri_capture)",message="hash_on_uri_capture is required when `hash_on` is set to `uri_capture`"
// +kubebuilder:validation:XValidation:rule="!has(self.algorithm) || self.algorithm != 'sticky-sessions' || has(self.sticky_sessions_cookie)",message="spec.algorithm is sticky-sessions but spec.sticky_sessions_cookie is missing: name the cookie that pins clients"
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
// +kubebuilder:validation:XValidation:rule="!(has(self.client_certificate) && has(self.clientCertificateRef))",message="spec.client_certificate and spec.clientCertificateRef cannot both be set: keep clientCertificateRef (client_certificate is deprecated)"
type KongUpstreamSpec struct {
	// ControlPlaneRef names the Konnect control plane the upstream belongs
	// to. Its type must be konnectNamespacedRef.
	//
	// +required
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef"`

	// Adopt takes over an existing Konnect upstream instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	// ClientCertificateRef names the KongCertificate the upstream presents
	// to its targets. Another namespace needs a KongReferenceGrant.
	//
	// +optional
	ClientCertificateRef *commonv1alpha1.NamespacedRef `json:"clientCertificateRef,omitempty"`

	KongUpstreamAPISpec `json:",inline"`
}

// KongUpstreamAPISpec holds the fields of an upstream that are sent to
// Konnect. Fields left unset get Konnect's defaults.
type KongUpstreamAPISpec struct {
	// Name of the upstream: the host name a KongService uses to send
	// traffic to it. Konnect requires it.
	//
	// +optional
	Name string `json:"name,omitempty"`

	// Algorithm balances the load: consistent-hashing, latency,
	// least-connections, round-robin or sticky-sessions. Absent means
	// round-robin.
	//
	// +optional
	Algorithm string `json:"algorithm,omitempty"`

	// HashOn is what consistent hashing uses as input: none, consumer, ip,
	// header, cookie, path, query_arg or uri_capture. Absent means none.
	//
	// +optional
	HashOn string `json:"hash_on,omitempty"`

	// HashFallback is what hashing falls back to when hash_on yields
	// nothing; same values as hash_on. Absent means none.
	//
	// +optional
	HashFallback string `json:"hash_fallback,omitempty"`

	// HashOnHeader is the header hashed when hash_on is header.
	//
	// +optional
	HashOnHeader string `json:"hash_on_header,omitempty"`

	// HashFallbackHeader is the header hashed when hash_fallback is header.
	//
	// +optional
	HashFallbackHeader string `json:"hash_fallback_header,omitempty"`

	// HashOnQueryArg is the query argument hashed when hash_on is
	// query_arg.
	//
	// +optional
	HashOnQueryArg string `json:"hash_on_query_arg,omitempty"`

	// HashFallbackQueryArg is the query argument hashed when hash_fallback
	// is query_arg.
	//
	// +optional
	HashFallbackQueryArg string `json:"hash_fallback_query_arg,omitempty"`

	// HashOnURICapture is the URI capture group hashed when hash_on is
	// uri_capture.
	//
	// +optional
	HashOnURICapture string `json:"hash_on_uri_capture,omitempty"`

	// HashFallbackURICapture is the URI capture group hashed when
	// hash_fallback is uri_capture.
	//
	// +optional
	HashFallbackURICapture string `json:"hash_fallback_uri_capture,omitempty"`

	// HashOnCookie is the cookie hashed when hash_on or hash_fallback is
	// cookie; Kong sets it when the client has none.
	//
	// +optional
	HashOnCookie string `json:"hash_on_cookie,omitempty"`

	// HashOnCookiePath is the path of the cookie Kong sets for cookie
	// hashing. Absent means /.
	//
	// +optional
	HashOnCookiePath string `json:"hash_on_cookie_path,omitempty"`

	// HostHeader is the Host header sent to the targets.
	//
	// +optional
	HostHeader string `json:"host_header,omitempty"`

	// Slots is the number of slots in the load balancer, 10 to 65536.
	// Absent means 10000.
	//
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=65536
	// +optional
	Slots *int64 `json:"slots,omitempty"`

	// StickySessionsCookie is the cookie that pins a client to a target
	// when algorithm is sticky-sessions.
	//
	// +optional
	StickySessionsCookie string `json:"sticky_sessions_cookie,omitempty"`

	// StickySessionsCookiePath is the path of the sticky-sessions cookie.
	// Absent means /.
	//
	// +optional
	StickySessionsCookiePath string `json:"sticky_sessions_cookie_path,omitempty"`

	// UseSrvName sends the name from a resolved SRV record as the TLS SNI
	// and Host header. Absent means false.
	//
	// +optional
	UseSrvName *bool `json:"use_srv_name,omitempty"`

	// Healthchecks configures active and passive health checking of the
	// targets.
	//
	// +optional
	Healthchecks *Healthchecks `json:"healthchecks,omitempty"`

	// ClientCertificate is the deprecated way to name the client
	// certificate by its Konnect ID; use clientCertificateRef instead.
	//
	// +optional
	ClientCertificate *UpstreamClientCertificate `json:"client_certificate,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// UpstreamClientCertificate names a Konnect certificate by ID.
type UpstreamClientCertificate struct {
	// ID is the Konnect ID of the certificate.
	//
	// +optional
	ID *string `json:"id,omitempty"`
}

// KongUpstreamStatus is the observed state of a KongUpstream.
type KongUpstreamStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the upstream lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneAndCertificateRefs `json:"konnect,omitempty"`

	// Conditions describe the upstream's state: Programmed,
	// ControlPlaneRefValid, APIAuthResolvedRef, APIAuthValid and, where they
	// apply, ResolvedRefs, KongCertificateRefValid and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongUpstreamList is a list of KongUpstreams.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongUpstreamList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongUpstreams.
	Items []KongUpstream `json:"items"`
}
