package v1alpha1

import commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"

// NetworkRefType says how a NetworkRef names its network.
type NetworkRefType string

const (
	// NetworkRefNamespacedRef names a KonnectCloudGatewayNetwork object.
	NetworkRefNamespacedRef NetworkRefType = "namespacedRef"
	// NetworkRefKonnectID names a Konnect network by its ID.
	NetworkRefKonnectID NetworkRefType = "konnectID"
)

// NetworkRef names the Dedicated Cloud Gateway network something is
// deployed on or attached to.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'namespacedRef' || has(self.namespacedRef)",message="when type is namespacedRef, namespacedRef must be set"
// +kubebuilder:validation:XValidation:rule="self.type != 'namespacedRef' || !has(self.konnectID)",message="networkRef.konnectID must not be set when networkRef.type is namespacedRef: keep only namespacedRef"
// +kubebuilder:validation:XValidation:rule="self.type != 'konnectID' || has(self.konnectID)",message="when type is konnectID, konnectID must be set"
// +kubebuilder:validation:XValidation:rule="self.type != 'konnectID' || !has(self.namespacedRef)",message="networkRef.namespacedRef must not be set when networkRef.type is konnectID: keep only konnectID"
type NetworkRef struct {
	// Type is namespacedRef (a KonnectCloudGatewayNetwork in the cluster)
	// or konnectID (a network that exists in Konnect).
	//
	// +kubebuilder:validation:Enum=namespacedRef;konnectID
	// +required
	Type NetworkRefType `json:"type"`

	// NamespacedRef names the KonnectCloudGatewayNetwork when type is
	// namespacedRef. Its namespace must be the referring object's own
	// (or empty): Kong Operator does not support cross-namespace network
	// references either.
	//
	// +optional
	NamespacedRef *commonv1alpha1.NamespacedRef `json:"namespacedRef,omitempty"`

	// KonnectID is the Konnect ID of the network when type is konnectID.
	//
	// +kubebuilder:validation:MaxLength=36
	// +optional
	KonnectID *string `json:"konnectID,omitempty"`
}

// KonnectEntityStatusWithNetworkRef adds the Konnect ID of the network an
// entity belongs to.
type KonnectEntityStatusWithNetworkRef struct {
	commonv1alpha1.KonnectEntityStatus `json:",inline"`

	// NetworkID is the Konnect ID of the network the entity belongs to.
	//
	// +optional
	NetworkID string `json:"networkID,omitempty"`
}
