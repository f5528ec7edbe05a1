package v1alpha1

// ObjectRefType says how an ObjectRef names a Konnect entity.
type ObjectRefType string

const (
	// ObjectRefKonnectID names the entity by its Konnect ID. Kong
	// Operator's manifests may use it; this operator needs the object
	// that stands for the entity (its credentials come from there), and
	// says so in the referrer's status.
	ObjectRefKonnectID ObjectRefType = "konnectID"
	// ObjectRefNamespacedRef names the object that stands for the entity.
	ObjectRefNamespacedRef ObjectRefType = "namespacedRef"
)

// ObjectRef names the Konnect entity an object belongs to or uses: the
// object of the cluster that stands for it (namespacedRef), or the entity
// itself by its Konnect ID (konnectID). The kind of the object is the one
// the field is about (a Portal for portalRef).
//
// +kubebuilder:validation:XValidation:rule="self.type == 'namespacedRef' ? has(self.namespacedRef) : true",message="when type is namespacedRef, namespacedRef must be set"
// +kubebuilder:validation:XValidation:rule="self.type == 'namespacedRef' ? !has(self.konnectID) : true",message="when type is namespacedRef, konnectID must not be set"
// +kubebuilder:validation:XValidation:rule="self.type == 'konnectID' ? has(self.konnectID) : true",message="when type is konnectID, konnectID must be set"
// +kubebuilder:validation:XValidation:rule="self.type == 'konnectID' ? !has(self.namespacedRef) : true",message="when type is konnectID, namespacedRef must not be set"
type ObjectRef struct {
	// Type is how the entity is named: namespacedRef (an object of the
	// cluster) or konnectID.
	//
	// +kubebuilder:validation:Enum=konnectID;namespacedRef
	// +required
	Type ObjectRefType `json:"type"`

	// KonnectID is the entity's Konnect ID; only with type konnectID.
	//
	// +kubebuilder:validation:MaxLength=36
	// +optional
	KonnectID *string `json:"konnectID,omitempty"`

	// NamespacedRef names the object; only with type namespacedRef.
	//
	// +optional
	NamespacedRef *NamespacedRef `json:"namespacedRef,omitempty"`
}

// Named returns the namespace and name of the object r names, with own as
// the namespace when it names none; ok is false when r names no object
// (type konnectID, or nil).
func (r *ObjectRef) Named(own string) (namespace, name string, ok bool) {
	if r == nil || r.Type != ObjectRefNamespacedRef || r.NamespacedRef == nil {
		return "", "", false
	}
	namespace = r.NamespacedRef.Namespace
	if namespace == "" {
		namespace = own
	}
	return namespace, r.NamespacedRef.Name, true
}

// KonnectEntityRef records the Konnect ID of an entity that another one
// belongs to (a page's portal, a config store's control plane), as Kong
// Operator's status writes it.
type KonnectEntityRef struct {
	// ID is the entity's Konnect ID.
	//
	// +kubebuilder:validation:MaxLength=256
	// +optional
	ID string `json:"id,omitempty"`
}

// GetID returns the recorded ID, "" for a nil reference.
func (r *KonnectEntityRef) GetID() string {
	if r == nil {
		return ""
	}
	return r.ID
}
