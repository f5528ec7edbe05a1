package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// What the kinds of Konnect's newer APIs share (Dev Portal, config
// stores): a switch written the way Kong Operator writes Konnect's
// booleans, and the status of an entity that belongs to a parent.

// Toggle is a Konnect boolean as Kong Operator's manifests write it:
// Enabled (true) or Disabled (false). Unset leaves Konnect's default.
//
// +kubebuilder:validation:Enum=Enabled;Disabled
type Toggle string

const (
	// Enabled is true.
	Enabled Toggle = "Enabled"
	// Disabled is false.
	Disabled Toggle = "Disabled"
)

// Bool returns the toggle as Konnect's boolean, nil when it is unset.
func (t Toggle) Bool() *bool {
	switch t {
	case Enabled:
		v := true
		return &v
	case Disabled:
		v := false
		return &v
	}
	return nil
}

// ToggleOf writes a Konnect boolean as a Toggle.
func ToggleOf(b bool) Toggle {
	if b {
		return Enabled
	}
	return Disabled
}

// PortalEntityStatus is the observed state of an entity of a Portal (a
// page, a team, its customization…).
type PortalEntityStatus struct {
	// ObservedGeneration is the generation of the spec that the operator
	// last reported on, read by kstatus and GitOps tools: a status older
	// than the spec says that the object is still being reconciled.
	//
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	commonv1alpha1.KonnectEntityStatus `json:",inline"`

	// PortalID is the Konnect ID of the portal the entity belongs to.
	//
	// +optional
	PortalID *commonv1alpha1.KonnectEntityRef `json:"portalID,omitempty"`

	// Conditions describe the entity's state: Programmed, PortalRefValid,
	// APIAuthResolvedRef, APIAuthValid and, for a portal in another
	// namespace, ResolvedRefs.
	//
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RecordedPortalID is the portal's Konnect ID the status records, "" when
// none.
func (s *PortalEntityStatus) RecordedPortalID() string { return s.PortalID.GetID() }

// RecordPortalID records the portal's Konnect ID.
func (s *PortalEntityStatus) RecordPortalID(id string) {
	s.PortalID = &commonv1alpha1.KonnectEntityRef{ID: id}
}
