package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongPluginBinding instantiates a KongPlugin's configuration as a Konnect
// plugin, attached either to the entities in targets or to the whole
// control plane.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Plugin-kind",type=string,JSONPath=`.spec.pluginRef.kind`,description="Kind of the plugin"
// +kubebuilder:printcolumn:name="Plugin-name",type=string,JSONPath=`.spec.pluginRef.name`,description="Name of the plugin"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the plugin exists in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.controlPlaneRef) || has(self.spec.controlPlaneRef)",message="spec.controlPlaneRef cannot be removed once set",fieldPath=".spec.controlPlaneRef"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || (has(self.spec.controlPlaneRef) && has(oldSelf.spec.controlPlaneRef) && oldSelf.spec.controlPlaneRef == self.spec.controlPlaneRef)",message="spec.controlPlaneRef is immutable when an entity is already Programmed",fieldPath=".spec.controlPlaneRef"
type KongPluginBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired plugin binding.
	//
	// +required
	Spec KongPluginBindingSpec `json:"spec"`

	// Status is the plugin as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status KongPluginBindingStatus `json:"status,omitempty"`
}

// KongPluginBindingScope says whether a binding attaches its plugin to
// targets or to the whole control plane.
type KongPluginBindingScope string

const (
	// KongPluginBindingScopeOnlyTargets attaches the plugin to the entities
	// in targets.
	KongPluginBindingScopeOnlyTargets KongPluginBindingScope = "OnlyTargets"
	// KongPluginBindingScopeGlobalInControlPlane applies the plugin to the
	// whole control plane.
	KongPluginBindingScopeGlobalInControlPlane KongPluginBindingScope = "GlobalInControlPlane"
)

// KongPluginBindingSpec is the desired state of a KongPluginBinding.
//
// +kubebuilder:validation:XValidation:rule="!has(self.scope) || self.scope != 'OnlyTargets' || (has(self.targets) && (has(self.targets.routeRef) || has(self.targets.serviceRef) || has(self.targets.consumerRef) || has(self.targets.consumerGroupRef)))",message="At least one target reference must be set when scope is 'OnlyTargets'"
// +kubebuilder:validation:XValidation:rule="!has(self.scope) || self.scope != 'GlobalInControlPlane' || !has(self.targets)",message="No targets must be set when scope is 'GlobalInControlPlane'"
// +kubebuilder:validation:XValidation:rule="!has(self.adopt) || (has(self.controlPlaneRef) && has(self.controlPlaneRef.type) && self.controlPlaneRef.type == 'konnectNamespacedRef')",message="spec.adopt needs spec.controlPlaneRef of type konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="has(oldSelf.adopt) == has(self.adopt)",message="spec.adopt can only be set when the object is created; it cannot be added or removed later"
type KongPluginBindingSpec struct {
	// PluginRef names the KongPlugin whose configuration is instantiated.
	//
	// +required
	PluginRef PluginRef `json:"pluginRef"`

	// Targets are the entities the plugin is attached to, all in this
	// namespace. Required (with at least one entry) when scope is
	// OnlyTargets, forbidden when it is GlobalInControlPlane.
	//
	// +optional
	Targets *KongPluginBindingTargets `json:"targets,omitempty"`

	// ControlPlaneRef names the Konnect control plane the plugin is created
	// in. Bindings whose type is not konnectNamespacedRef are left to an
	// in-cluster Kong Ingress Controller.
	//
	// +required
	ControlPlaneRef *commonv1alpha1.ControlPlaneRef `json:"controlPlaneRef"`

	// Scope is OnlyTargets (attach to the entities in targets) or
	// GlobalInControlPlane (apply to the whole control plane).
	//
	// +kubebuilder:validation:Enum=OnlyTargets;GlobalInControlPlane
	// +kubebuilder:default=OnlyTargets
	// +optional
	Scope KongPluginBindingScope `json:"scope,omitempty"`

	// Adopt takes over an existing Konnect plugin instead of creating one.
	//
	// +optional
	Adopt *commonv1alpha1.AdoptOptions `json:"adopt,omitempty"`

	// Tags are sent to Konnect with the plugin's own tags and the
	// konghq.com/tags annotations of the binding and of the plugin.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`
}

// PluginRefKind is the kind of plugin a binding names.
type PluginRefKind string

const (
	// PluginRefKindKongPlugin names a namespaced KongPlugin.
	PluginRefKindKongPlugin PluginRefKind = "KongPlugin"
	// PluginRefKindKongClusterPlugin names a cluster-scoped
	// KongClusterPlugin.
	PluginRefKindKongClusterPlugin PluginRefKind = "KongClusterPlugin"
)

// PluginRef names the plugin a KongPluginBinding instantiates.
//
// +kubebuilder:validation:XValidation:rule="size(self.name) > 0",message="pluginRef name must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.namespace) || size(self.namespace) == 0 || !has(self.kind) || self.kind == 'KongPlugin'",message="spec.pluginRef.namespace may only be set when spec.pluginRef.kind is KongPlugin: a KongClusterPlugin has no namespace"
type PluginRef struct {
	// Kind is KongPlugin (the default) or KongClusterPlugin.
	//
	// +kubebuilder:validation:Enum=KongPlugin;KongClusterPlugin
	// +kubebuilder:default=KongPlugin
	// +optional
	Kind *PluginRefKind `json:"kind,omitempty"`

	// Name of the plugin.
	//
	// +required
	Name string `json:"name"`

	// Namespace of the KongPlugin. Empty means the binding's namespace;
	// another namespace needs a KongReferenceGrant there.
	//
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// KongPluginBindingTargets are the entities a binding attaches its plugin
// to. A consumer and a consumer group cannot both be targeted.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.consumerRef) && has(self.consumerGroupRef))",message="Cannot set Consumer and ConsumerGroup at the same time"
// +kubebuilder:validation:XValidation:rule="!has(self.routeRef) || self.routeRef.kind != 'KongRoute' || !has(self.serviceRef) || self.serviceRef.kind == 'KongService'",message="KongRoute can be used only when serviceRef is unset or set to KongService"
// +kubebuilder:validation:XValidation:rule="!has(self.serviceRef) || self.serviceRef.kind != 'KongService' || !has(self.routeRef) || self.routeRef.kind == 'KongRoute'",message="KongService can be used only when routeRef is unset or set to KongRoute"
type KongPluginBindingTargets struct {
	// RouteRef names a route-like object: a configuration.konghq.com
	// KongRoute, a networking.k8s.io Ingress, or a gateway.networking.k8s.io
	// HTTPRoute or GRPCRoute. Only KongRoute is used with Konnect.
	//
	// +kubebuilder:validation:XValidation:rule="(self.group == 'configuration.konghq.com' && self.kind == 'KongRoute') || (self.group == 'networking.k8s.io' && self.kind == 'Ingress') || (self.group == 'gateway.networking.k8s.io' && (self.kind == 'HTTPRoute' || self.kind == 'GRPCRoute'))",message="group/kind not allowed for the routeRef"
	// +optional
	RouteRef *TargetRefWithGroupKind `json:"routeRef,omitempty"`

	// ServiceRef names a service-like object: a configuration.konghq.com
	// KongService, or a core Service (group "" or core). Only KongService
	// is used with Konnect.
	//
	// +kubebuilder:validation:XValidation:rule="(self.group == 'configuration.konghq.com' && self.kind == 'KongService') || (self.kind == 'Service' && (self.group == '' || self.group == 'core'))",message="group/kind not allowed for the serviceRef"
	// +optional
	ServiceRef *TargetRefWithGroupKind `json:"serviceRef,omitempty"`

	// ConsumerRef names a KongConsumer.
	//
	// +optional
	ConsumerRef *TargetRef `json:"consumerRef,omitempty"`

	// ConsumerGroupRef names a KongConsumerGroup.
	//
	// +optional
	ConsumerGroupRef *TargetRef `json:"consumerGroupRef,omitempty"`
}

// TargetRef names an object in the binding's namespace.
type TargetRef struct {
	// Name of the object.
	//
	// +required
	Name string `json:"name"`
}

// TargetRefWithGroupKind names an object of a given group and kind in the
// binding's namespace.
type TargetRefWithGroupKind struct {
	// Name of the object.
	//
	// +required
	Name string `json:"name"`

	// Kind of the object.
	//
	// +kubebuilder:validation:Enum=Service;Ingress;HTTPRoute;GRPCRoute;KongService;KongRoute
	// +required
	Kind string `json:"kind"`

	// Group of the object; "" and core both mean the core group.
	//
	// +kubebuilder:validation:Enum="";core;networking.k8s.io;gateway.networking.k8s.io;configuration.konghq.com
	// +required
	Group string `json:"group"`
}

// KongPluginBindingStatus is the observed state of a KongPluginBinding.
type KongPluginBindingStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Konnect records where the plugin lives in Konnect.
	//
	// +optional
	Konnect *commonv1alpha1.KonnectEntityStatusWithControlPlaneRef `json:"konnect,omitempty"`

	// Conditions describe the binding's state: Programmed, PluginRefValid,
	// ControlPlaneRefValid, APIAuthResolvedRef, APIAuthValid and, where they
	// apply, ResolvedRefs and Adopted.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongPluginBindingList is a list of KongPluginBindings.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongPluginBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongPluginBindings.
	Items []KongPluginBinding `json:"items"`
}
