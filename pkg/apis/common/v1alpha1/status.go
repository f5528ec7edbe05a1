package v1alpha1

// KonnectEntityStatus records where an entity lives in Konnect.
type KonnectEntityStatus struct {
	// ID is the Konnect ID of the entity; empty until it is created or
	// adopted.
	//
	// +kubebuilder:validation:MaxLength=256
	// +optional
	ID string `json:"id,omitempty"`

	// ServerURL is the normalised Konnect API URL the entity lives behind.
	//
	// +kubebuilder:validation:MaxLength=512
	// +optional
	ServerURL string `json:"serverURL,omitempty"`

	// OrgID is the ID of the Konnect organisation that owns the entity.
	//
	// +kubebuilder:validation:MaxLength=256
	// +optional
	OrgID string `json:"organizationID,omitempty"`
}

// GetKonnectID returns the Konnect ID, or "" for a nil status.
func (s *KonnectEntityStatus) GetKonnectID() string {
	if s == nil {
		return ""
	}
	return s.ID
}

// KonnectEntityStatusWithControlPlaneRef adds the control plane's Konnect ID.
// Every status variant of a gateway entity embeds it, so the reconciler can
// reach the fields it writes on every kind through one type.
type KonnectEntityStatusWithControlPlaneRef struct {
	KonnectEntityStatus `json:",inline"`

	// ControlPlaneID is the Konnect ID of the control plane the entity lives
	// in.
	//
	// +optional
	ControlPlaneID string `json:"controlPlaneID,omitempty"`
}

// KonnectEntityStatusWithControlPlaneAndServiceRefs adds the Konnect IDs of
// the control plane and of the parent service.
type KonnectEntityStatusWithControlPlaneAndServiceRefs struct {
	KonnectEntityStatusWithControlPlaneRef `json:",inline"`

	// ServiceID is the Konnect ID of the parent KongService; empty for a
	// route without a service.
	//
	// +optional
	ServiceID string `json:"serviceID,omitempty"`
}

// KonnectEntityStatusWithControlPlaneAndUpstreamRefs adds the Konnect IDs of
// the control plane and of the parent upstream.
type KonnectEntityStatusWithControlPlaneAndUpstreamRefs struct {
	KonnectEntityStatusWithControlPlaneRef `json:",inline"`

	// UpstreamID is the Konnect ID of the parent KongUpstream.
	//
	// +optional
	UpstreamID string `json:"upstreamID,omitempty"`
}

// KonnectEntityStatusWithControlPlaneAndCertificateRefs adds the Konnect IDs
// of the control plane and of a certificate.
type KonnectEntityStatusWithControlPlaneAndCertificateRefs struct {
	KonnectEntityStatusWithControlPlaneRef `json:",inline"`

	// CertificateID is the Konnect ID of the referenced KongCertificate.
	//
	// +optional
	CertificateID string `json:"certificateID,omitempty"`
}

// KonnectEntityStatusWithControlPlaneAndCertificateAndCACertificatesRefs
// adds the Konnect IDs of the control plane, the client certificate and the
// CA certificates.
type KonnectEntityStatusWithControlPlaneAndCertificateAndCACertificatesRefs struct {
	KonnectEntityStatusWithControlPlaneRef `json:",inline"`

	// CertificateID is the Konnect ID of the client certificate.
	//
	// +optional
	CertificateID string `json:"certificateID,omitempty"`

	// CACertificateIDs are the Konnect IDs of the CA certificates, in the
	// order of spec.caCertificateRefs.
	//
	// +listType=set
	// +optional
	CACertificateIDs []string `json:"caCertificateIDs,omitempty"`
}

// KonnectEntityStatusWithControlPlaneAndKeySetRef adds the Konnect IDs of the
// control plane and of the key set.
type KonnectEntityStatusWithControlPlaneAndKeySetRef struct {
	KonnectEntityStatusWithControlPlaneRef `json:",inline"`

	// KeySetID is the Konnect ID of the KongKeySet the key belongs to.
	//
	// +optional
	KeySetID string `json:"keySetID,omitempty"`
}

// KonnectEntityStatusWithControlPlaneAndConsumerRefs adds the Konnect IDs of
// the control plane and of the parent consumer.
type KonnectEntityStatusWithControlPlaneAndConsumerRefs struct {
	KonnectEntityStatusWithControlPlaneRef `json:",inline"`

	// ConsumerID is the Konnect ID of the parent KongConsumer.
	//
	// +optional
	ConsumerID string `json:"consumerID,omitempty"`
}
