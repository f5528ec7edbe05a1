package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// PortalCustomDomain is the host name a Portal is served on besides Konnect's
// own domain. A portal has at most one; Konnect keys it on its host name,
// which cannot change: a new host name replaces the domain.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="The custom domain's host name, which Konnect keys it on"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the custom domain is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.portalRef == oldSelf.spec.portalRef",message="spec.portalRef is immutable when an entity is already Programmed: create a new object for another portal"
type PortalCustomDomain struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired custom domain.
	//
	// +required
	Spec PortalCustomDomainSpec `json:"spec"`

	// Status is the custom domain as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status PortalEntityStatus `json:"status,omitempty"`
}

// PortalCustomDomainSpec is the desired state of a PortalCustomDomain.
type PortalCustomDomainSpec struct {
	// PortalRef names the Portal the custom domain belongs to.
	//
	// +required
	PortalRef commonv1alpha1.ObjectRef `json:"portalRef,omitzero"`

	// APISpec is the custom domain as Konnect's API describes it.
	//
	// +optional
	APISpec PortalCustomDomainAPISpec `json:"apiSpec,omitzero"`
}

// PortalCustomDomainList is a list of PortalCustomDomains.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PortalCustomDomainList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the PortalCustomDomains.
	Items []PortalCustomDomain `json:"items"`
}

// PortalCustomDomainAPISpec is a custom domain as Konnect's API describes
// it, with Kong Operator's field names.
type PortalCustomDomainAPISpec struct {
	// Hostname is the domain's host name, such as developer.example.com.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Hostname string `json:"hostname"`

	// Enabled serves the portal on the domain.
	//
	// +required
	Enabled Toggle `json:"enabled"`

	// SSL says how the domain's certificate is obtained.
	//
	// +required
	SSL *PortalCustomDomainSSL `json:"ssl"`
}

// PortalCustomDomainSSLType says how a custom domain's certificate is
// obtained.
type PortalCustomDomainSSLType string

const (
	// SSLStandard has Konnect obtain a certificate, verifying the domain
	// over HTTP.
	SSLStandard PortalCustomDomainSSLType = "standard"
	// SSLWithCustomCertificate serves the certificate the spec gives.
	SSLWithCustomCertificate PortalCustomDomainSSLType = "withCustomCertificate"
)

// PortalCustomDomainSSL is one of the ways a custom domain's certificate
// is obtained; the member that type names is set.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'standard' || has(self.standard)",message="ssl.type standard needs ssl.standard"
// +kubebuilder:validation:XValidation:rule="self.type != 'withCustomCertificate' || has(self.withCustomCertificate)",message="ssl.type withCustomCertificate needs ssl.withCustomCertificate"
// +kubebuilder:validation:XValidation:rule="self.type == 'standard' || !has(self.standard)",message="ssl.standard is only for ssl.type standard: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'withCustomCertificate' || !has(self.withCustomCertificate)",message="ssl.withCustomCertificate is only for ssl.type withCustomCertificate: remove it or change the type"
type PortalCustomDomainSSL struct {
	// Type is standard or withCustomCertificate.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=withCustomCertificate;standard
	// +required
	Type PortalCustomDomainSSLType `json:"type"`

	// Standard has Konnect obtain the certificate.
	//
	// +optional
	Standard *PortalCustomDomainSSLStandard `json:"standard,omitempty"`

	// WithCustomCertificate serves the given certificate.
	//
	// +optional
	WithCustomCertificate *PortalCustomDomainSSLWithCustomCertificate `json:"withCustomCertificate,omitempty"`
}

// PortalCustomDomainSSLStandard has Konnect obtain a certificate for the
// domain.
type PortalCustomDomainSSLStandard struct {
	// DomainVerificationMethod is http: Konnect verifies the domain over
	// HTTP.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=http
	// +required
	DomainVerificationMethod string `json:"domainVerificationMethod"`
}

// PortalCustomDomainSSLWithCustomCertificate serves a certificate of the
// user's.
type PortalCustomDomainSSLWithCustomCertificate struct {
	// CustomCertificate is the PEM certificate chain.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +required
	CustomCertificate string `json:"customCertificate"`

	// CustomPrivateKey is the certificate's PEM private key.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +required
	CustomPrivateKey string `json:"customPrivateKey"`

	// DomainVerificationMethod is custom_certificate.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=custom_certificate
	// +required
	DomainVerificationMethod string `json:"domainVerificationMethod"`

	// SkipCaCheck serves the chain as given, without bundling it against a
	// public trust store: needed for a private CA's certificate.
	//
	// +optional
	SkipCaCheck Toggle `json:"skipCaCheck,omitempty"`
}
