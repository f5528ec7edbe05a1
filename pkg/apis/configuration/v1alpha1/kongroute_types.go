package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongRoute is a Kong Gateway route in a Konnect control plane: the rules
// that match requests and send them to a KongService. A route without a
// service names its control plane directly.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the route exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(self.spec.protocols) || !('http' in self.spec.protocols) || has(self.spec.hosts) || has(self.spec.methods) || has(self.spec.paths) || has(self.spec.headers)",message="If protocols has 'http', at least one of 'hosts', 'methods', 'paths' or 'headers' must be set",fieldPath=".spec.protocols"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.controlPlaneRef) || has(self.spec.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed once set",fieldPath=".spec.controlPlaneRef"
// +kubebuilder:validation:XValidation:rule="!has(self.spec) || !has(self.spec.controlPlaneRef) || !has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || (has(oldSelf.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed",fieldPath=".spec.controlPlaneRef"
// +kubebuilder:validation:XValidation:rule="has(self.spec.id) == has(oldSelf.spec.id) && (!has(self.spec.id) || self.spec.id == oldSelf.spec.id)",message="spec.id cannot be added, removed or changed after creation",fieldPath=".spec.id"
type KongRoute struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired route.
	//
	// +required
	Spec KongRouteSpec `json:"spec"`

	// Status is the route as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongRouteStatus `json:"status,omitempty"`
}

// KongRouteSpec is the desired state of a KongRoute.
//
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlaneRef) || !has(self.controlPlaneRef.type) || self.controlPlaneRef.type != 'kic'",message="KIC is not supported as control plane"
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || has(self.serviceRef) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.serviceRef, or spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KongRouteSpec struct {
	// ControlPlaneRef names the Konnect control plane of a route without a
	// service. A route with a serviceRef inherits its service's control
	// plane. Its type must be konnectNamespacedRef.
	//
	// +optional
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef,omitempty"`

	// ServiceRef names the KongService the route sends traffic to.
	//
	// +optional
	ServiceRef *ServiceRef `json:"serviceRef,omitempty"`

	// Adopt takes over an existing Konnect route instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	KongRouteAPISpec `json:",inline"`
}

// ServiceRefType says how a ServiceRef names its KongService.
type ServiceRefType string

// ServiceRefTypeNamespacedRef names the KongService by name and namespace.
const ServiceRefTypeNamespacedRef ServiceRefType = "namespacedRef"

// ServiceRef names the KongService a route belongs to.
//
// +kubebuilder:validation:XValidation:rule="has(self.type)",message="spec.serviceRef.type is missing: set it to namespacedRef"
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'namespacedRef' || has(self.namespacedRef)",message="when type is namespacedRef, namespacedRef must be set"
type ServiceRef struct {
	// Type of the reference; namespacedRef is the only one. Although the
	// schema marks it optional, a serviceRef without a type is rejected.
	//
	// +kubebuilder:validation:Enum=namespacedRef
	// +optional
	Type ServiceRefType `json:"type,omitempty"`

	// NamespacedRef names the KongService. Another namespace needs a
	// KongReferenceGrant in that namespace.
	//
	// +optional
	NamespacedRef *commonv1alpha1.NamespacedRef `json:"namespacedRef,omitempty"`
}

// KongRouteAPISpec holds the fields of a route that are sent to Konnect.
// Fields left unset get Konnect's defaults.
type KongRouteAPISpec struct {
	// ID is the Konnect ID to create the route with. It cannot change after
	// creation.
	//
	// +optional
	ID string `json:"id,omitempty"`

	// Name of the route in Konnect. When empty, the route is created with
	// the object's UID as its Konnect ID.
	//
	// +optional
	Name string `json:"name,omitempty"`

	// Protocols the route accepts: grpc, grpcs, http, https, tcp, tls,
	// tls_passthrough, udp, ws or wss.
	//
	// +optional
	Protocols []string `json:"protocols,omitempty"`

	// Hosts are host names that match the route.
	//
	// +optional
	Hosts []string `json:"hosts,omitempty"`

	// Methods are HTTP methods that match the route.
	//
	// +optional
	Methods []string `json:"methods,omitempty"`

	// Paths are path prefixes or regular expressions (starting with ~) that
	// match the route.
	//
	// +optional
	Paths []string `json:"paths,omitempty"`

	// Headers map header names to the values that match the route.
	//
	// +optional
	Headers map[string][]string `json:"headers,omitempty"`

	// SNIs are TLS server names that match a stream route.
	//
	// +optional
	SNIs []string `json:"snis,omitempty"`

	// Sources are client IP/port pairs that match a stream route.
	//
	// +optional
	Sources []RouteEndpoint `json:"sources,omitempty"`

	// Destinations are destination IP/port pairs that match a stream route.
	//
	// +optional
	Destinations []RouteEndpoint `json:"destinations,omitempty"`

	// HTTPSRedirectStatusCode is the status code sent when an http request
	// reaches a route that only accepts https: 301, 302, 307, 308 or 426.
	// Absent means 426.
	//
	// +optional
	HTTPSRedirectStatusCode *int64 `json:"https_redirect_status_code,omitempty"`

	// PathHandling is v0 or v1, how the route's path and the service's path
	// are joined. Absent means v0.
	//
	// +optional
	PathHandling string `json:"path_handling,omitempty"`

	// PreserveHost forwards the client's Host header to the upstream.
	// Absent means false.
	//
	// +optional
	PreserveHost *bool `json:"preserve_host,omitempty"`

	// RegexPriority orders regular-expression paths of equal length; higher
	// wins. Absent means 0.
	//
	// +optional
	RegexPriority *int64 `json:"regex_priority,omitempty"`

	// RequestBuffering buffers the request body before proxying it. Absent
	// means true.
	//
	// +optional
	RequestBuffering *bool `json:"request_buffering,omitempty"`

	// ResponseBuffering buffers the response body before sending it on.
	// Absent means true.
	//
	// +optional
	ResponseBuffering *bool `json:"response_buffering,omitempty"`

	// StripPath removes the matched path prefix before proxying. Absent
	// leaves Konnect's default.
	//
	// +optional
	StripPath *bool `json:"strip_path,omitempty"`

	// Tags are user tags, sent to Konnect together with the operator's
	// identity tags.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// RouteEndpoint is an IP (or CIDR) and port matched by a stream route.
type RouteEndpoint struct {
	// IP address or CIDR range.
	//
	// +optional
	IP *string `json:"ip,omitempty"`

	// Port number.
	//
	// +optional
	Port *int64 `json:"port,omitempty"`
}

// KongRouteStatus is the observed state of a KongRoute.
type KongRouteStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the route lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneAndServiceRefs `json:"konnect,omitempty"`

	// Conditions describe the route's state: Programmed,
	// KongServiceRefValid, ControlPlaneRefValid, APIAuthResolvedRef,
	// APIAuthValid and, where they apply, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongRouteList is a list of KongRoutes.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongRouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongRoutes.
	Items []KongRoute `json:"items"`
}
