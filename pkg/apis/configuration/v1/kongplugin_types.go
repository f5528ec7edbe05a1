package v1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// KongPlugin is a plugin configuration template. It never becomes a Konnect
// entity by itself: KongPluginBindings (written by hand, or generated from
// the konghq.com/plugins annotation) instantiate it on Konnect entities.
// Like KIC's KongPlugin, its fields are top-level rather than under spec.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=kp,categories=kong
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Plugin-Type",type=string,JSONPath=`.plugin`,description="Name of the plugin"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Disabled",type=boolean,JSONPath=`.disabled`,description="Whether the plugin is disabled",priority=1
// +kubebuilder:printcolumn:name="Config",type=string,JSONPath=`.config`,description="Plugin configuration",priority=1
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=="Programmed")].status`
// +kubebuilder:validation:XValidation:rule="!(has(self.config) && has(self.configFrom))",message="Using both config and configFrom fields is not allowed.",fieldPath=".configFrom"
// +kubebuilder:validation:XValidation:rule="!(has(self.configFrom) && has(self.configPatches))",message="Using both configFrom and configPatches fields is not allowed.",fieldPath=".configPatches"
// +kubebuilder:validation:XValidation:rule="self.plugin == oldSelf.plugin",message="The plugin field is immutable",fieldPath=".plugin"
type KongPlugin struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// ConsumerRef is a legacy binding to a consumer, used only by an
	// in-cluster Kong Ingress Controller.
	//
	// +optional
	ConsumerRef string `json:"consumerRef,omitempty"`

	// Disabled turns the plugin off (Konnect enabled=false) without
	// removing it.
	//
	// +optional
	Disabled bool `json:"disabled,omitempty"`

	// Config is the plugin's configuration, sent to Konnect as is.
	//
	// +kubebuilder:validation:Type=object
	// +optional
	Config *apiextensionsv1.JSON `json:"config,omitempty"`

	// ConfigFrom takes the whole configuration from a data key of a Secret
	// in the plugin's namespace: a JSON (or YAML) object. A change of the
	// Secret reaches Konnect.
	//
	// +optional
	ConfigFrom *ConfigSource `json:"configFrom,omitempty"`

	// ConfigPatches set values from Secrets in the plugin's namespace into
	// config: each data key holds a JSON value, added at its JSON pointer
	// as a JSON Patch "add" does. A change of a Secret reaches Konnect.
	//
	// +optional
	ConfigPatches []ConfigPatch `json:"configPatches,omitempty"`

	// InstanceName names this plugin instance in Konnect.
	//
	// +optional
	InstanceName string `json:"instance_name,omitempty"`

	// PluginName is the Kong plugin, for example rate-limiting. It cannot
	// change after creation.
	//
	// +required
	PluginName string `json:"plugin"`

	// RunOn is a legacy service-mesh setting; it is not sent to Konnect.
	//
	// +kubebuilder:validation:Enum=first;second;all
	// +optional
	RunOn string `json:"run_on,omitempty"`

	// Protocols the plugin runs on. Absent means every protocol the plugin
	// supports.
	//
	// +optional
	Protocols []KongProtocol `json:"protocols,omitempty"`

	// Ordering changes when the plugin runs relative to others (Kong
	// Enterprise). It is not sent to Konnect.
	//
	// +optional
	Ordering *PluginOrdering `json:"ordering,omitempty"`

	// Tags are sent to Konnect on every plugin made from this KongPlugin,
	// with the tags of the binding.
	//
	// +optional
	Tags commonv1alpha1.Tags `json:"tags,omitempty"`

	// Status is maintained by an in-cluster Kong Ingress Controller; the
	// operator does not write it.
	//
	// +optional
	Status KongPluginStatus `json:"status,omitempty"`
}

// KongProtocol is a protocol a plugin can run on.
//
// +kubebuilder:validation:Enum=http;https;grpc;grpcs;tcp;tls;udp
type KongProtocol string

// PluginOrdering lists, per phase, the plugins this one runs before or
// after.
type PluginOrdering struct {
	// Before maps a phase (for example access) to the plugins this one runs
	// before.
	//
	// +optional
	Before map[string][]string `json:"before,omitempty"`

	// After maps a phase to the plugins this one runs after.
	//
	// +optional
	After map[string][]string `json:"after,omitempty"`
}

// ConfigSource takes a plugin's configuration from a Secret in the
// plugin's namespace.
type ConfigSource struct {
	// SecretValue names the Secret and its data key.
	//
	// +required
	SecretValue SecretValueFromSource `json:"secretKeyRef"`
}

// SecretValueFromSource names a data key of a Secret in the plugin's
// namespace.
type SecretValueFromSource struct {
	// Secret is the name of the Secret.
	//
	// +required
	Secret string `json:"name"`

	// Key is the data key holding the value.
	//
	// +required
	Key string `json:"key"`
}

// ConfigPatch sets one value of a plugin's configuration from a Secret.
type ConfigPatch struct {
	// Path is the JSON pointer of the value in config.
	//
	// +required
	Path string `json:"path"`

	// ValueFrom is where the value comes from.
	//
	// +required
	ValueFrom ConfigSource `json:"valueFrom"`
}

// KongPluginStatus is the observed state of a KongPlugin.
type KongPluginStatus struct {
	// Conditions are written by an in-cluster Kong Ingress Controller.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:default={{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// KongPluginList is a list of KongPlugins.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type KongPluginList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the KongPlugins.
	Items []KongPlugin `json:"items"`
}
