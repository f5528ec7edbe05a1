package v1alpha1

// ControlPlaneRefType says which kind of control plane a ControlPlaneRef
// points at.
type ControlPlaneRefType string

const (
	// ControlPlaneRefKonnectNamespacedRef points at a
	// KonnectGatewayControlPlane object. It is the only type that
	// konnect-operator acts on.
	ControlPlaneRefKonnectNamespacedRef ControlPlaneRefType = "konnectNamespacedRef"
	// ControlPlaneRefKIC marks an object that belongs to an in-cluster Kong
	// Ingress Controller. konnect-operator ignores such objects.
	ControlPlaneRefKIC ControlPlaneRefType = "kic"
)

// ControlPlaneRef names the control plane an entity belongs to.
//
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'konnectID'",message="controlPlaneRef.type konnectID is not supported: set type to konnectNamespacedRef and name the KonnectGatewayControlPlane in konnectNamespacedRef"
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'konnectNamespacedRef' || has(self.konnectNamespacedRef)",message="when type is konnectNamespacedRef, konnectNamespacedRef must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'kic' || !has(self.konnectNamespacedRef)",message="when type is kic, konnectNamespacedRef must not be set"
// +kubebuilder:validation:XValidation:rule="has(self.type) || !has(self.konnectNamespacedRef)",message="when type is unset, konnectNamespacedRef must not be set"
type ControlPlaneRef struct {
	// Type is the kind of control plane referenced: konnectNamespacedRef for a
	// KonnectGatewayControlPlane, or kic for an in-cluster Kong Ingress
	// Controller (ignored by konnect-operator).
	//
	// +kubebuilder:validation:Enum=konnectNamespacedRef;kic
	// +kubebuilder:default=kic
	// +optional
	Type ControlPlaneRefType `json:"type,omitempty"`

	// KonnectNamespacedRef names the KonnectGatewayControlPlane. Required when
	// type is konnectNamespacedRef, forbidden otherwise.
	//
	// +optional
	KonnectNamespacedRef *KonnectNamespacedRef `json:"konnectNamespacedRef,omitempty"`
}

// IsKonnect reports whether the reference points at a
// KonnectGatewayControlPlane.
func (r *ControlPlaneRef) IsKonnect() bool {
	return r != nil && r.Type == ControlPlaneRefKonnectNamespacedRef && r.KonnectNamespacedRef != nil
}

// KonnectNamespacedRef names a KonnectGatewayControlPlane.
type KonnectNamespacedRef struct {
	// Name of the KonnectGatewayControlPlane.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// Namespace of the KonnectGatewayControlPlane. Empty means the namespace
	// of the referring object. Another namespace needs a KongReferenceGrant
	// in that namespace.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// NamespacedRef names an object, optionally in another namespace.
type NamespacedRef struct {
	// Name of the referenced object.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// Namespace of the referenced object. Empty means the namespace of the
	// referring object. Another namespace needs a KongReferenceGrant in that
	// namespace.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// NameRef names an object in the same namespace.
type NameRef struct {
	// Name of the referenced object.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`
}
