package v1alpha1

// AdoptSource says where an entity to adopt lives.
type AdoptSource string

// AdoptSourceKonnect adopts an entity that already exists in Konnect.
const AdoptSourceKonnect AdoptSource = "konnect"

// AdoptMode says how an existing entity is taken over.
type AdoptMode string

const (
	// AdoptModeMatch adopts the entity only if it already equals the spec,
	// and never writes to it while adopting.
	AdoptModeMatch AdoptMode = "match"
	// AdoptModeOverride adopts the entity and overwrites it with the spec.
	AdoptModeOverride AdoptMode = "override"
)

// AdoptOptions asks the operator to take over an existing Konnect entity
// instead of creating a new one.
//
// +kubebuilder:validation:XValidation:rule="self.from != 'konnect' || has(self.konnect)",message="adopt.from is konnect but adopt.konnect is missing: add adopt.konnect.id with the ID of the entity to adopt"
// +kubebuilder:validation:XValidation:rule="self.from == oldSelf.from",message="adopt.from cannot be changed after creation"
// +kubebuilder:validation:XValidation:rule="!has(self.konnect) || (has(oldSelf.konnect) && self.konnect.id == oldSelf.konnect.id)",message="adopt.konnect.id cannot be changed after creation"
type AdoptOptions struct {
	// From is where the entity to adopt lives.
	//
	// +kubebuilder:validation:Enum=konnect
	// +required
	From AdoptSource `json:"from"`

	// Mode is match (adopt without writing, only if the entity equals the
	// spec) or override (adopt and overwrite with the spec). Absent means
	// override.
	//
	// +kubebuilder:validation:Enum=match;override
	// +optional
	Mode AdoptMode `json:"mode,omitempty"`

	// Konnect identifies the Konnect entity to adopt.
	//
	// +optional
	Konnect *AdoptKonnectOptions `json:"konnect,omitempty"`
}

// AdoptKonnectOptions identifies a Konnect entity to adopt.
type AdoptKonnectOptions struct {
	// ID of the Konnect entity to adopt.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=36
	// +required
	ID string `json:"id"`
}

// EffectiveMode returns the adoption mode, defaulting to override.
func (a *AdoptOptions) EffectiveMode() AdoptMode {
	if a == nil || a.Mode == "" {
		return AdoptModeOverride
	}
	return a.Mode
}
