package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
)

// PortalIdentityProviderRequest is an identity provider (OIDC or SAML) that developers
// of a Portal sign in with. Konnect keys a portal's identity providers on
// their type.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:categories=kong;konnect
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.id`,description="Konnect ID of the identity provider"
// +kubebuilder:printcolumn:name="Programmed",type=string,JSONPath=`.status.conditions[?(@.type=='Programmed')].status`,description="Whether the identity provider is in Konnect and equals the spec"
// +kubebuilder:printcolumn:name="OrgID",type=string,JSONPath=`.status.organizationID`,description="Konnect organization ID"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.conditions) || !oldSelf.status.conditions.exists(c, c.type == 'Programmed' && c.status == 'True') || self.spec.portalRef == oldSelf.spec.portalRef",message="spec.portalRef is immutable when an entity is already Programmed: create a new object for another portal"
type PortalIdentityProviderRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired identity provider.
	//
	// +required
	Spec PortalIdentityProviderRequestSpec `json:"spec"`

	// Status is the identity provider as last seen in Konnect.
	//
	// +kubebuilder:default={conditions: {{type: "Programmed", status: "Unknown", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}, {type: "Reconciling", status: "True", reason: "Pending", message: "Waiting for controller", lastTransitionTime: "1970-01-01T00:00:00Z"}}}
	// +optional
	Status PortalEntityStatus `json:"status,omitempty"`
}

// PortalIdentityProviderRequestSpec is the desired state of a PortalIdentityProviderRequest.
type PortalIdentityProviderRequestSpec struct {
	// PortalRef names the Portal the identity provider belongs to.
	//
	// +required
	PortalRef commonv1alpha1.ObjectRef `json:"portalRef,omitzero"`

	// APISpec is the identity provider as Konnect's API describes it.
	//
	// +optional
	APISpec PortalIdentityProviderRequestAPISpec `json:"apiSpec,omitzero"`
}

// PortalIdentityProviderRequestList is a list of PortalIdentityProviderRequests.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PortalIdentityProviderRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the PortalIdentityProviderRequests.
	Items []PortalIdentityProviderRequest `json:"items"`
}

// PortalIdentityProviderRequestAPISpec is an identity provider as Konnect's
// API describes it, with Kong Operator's field names.
//
// +kubebuilder:validation:XValidation:rule="!has(self.config) || !has(self.type) || (self.type == 'oidc') == (self.config.type == 'oIDC')",message="config.type oIDC goes with type oidc, and config.type portalSAML with type saml"
type PortalIdentityProviderRequestAPISpec struct {
	// Type is oidc or saml; a portal has at most one provider of each.
	//
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=oidc;saml
	// +optional
	Type string `json:"type,omitempty"`

	// Enabled lets developers sign in with the provider. Only one provider
	// of a portal can be enabled at a time.
	//
	// +optional
	Enabled Toggle `json:"enabled,omitempty"`

	// Config is the provider's configuration.
	//
	// +optional
	Config *PortalIdentityProviderConfig `json:"config,omitempty"`
}

// PortalIdentityProviderConfigType names the kind of an identity
// provider's configuration.
type PortalIdentityProviderConfigType string

const (
	// PortalIdentityProviderConfigOIDC configures an OIDC provider.
	PortalIdentityProviderConfigOIDC PortalIdentityProviderConfigType = "oIDC"
	// PortalIdentityProviderConfigSAML configures a SAML provider.
	PortalIdentityProviderConfigSAML PortalIdentityProviderConfigType = "portalSAML"
)

// PortalIdentityProviderConfig is an OIDC or a SAML configuration; the
// member that type names is set.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'oIDC' || has(self.oIDC)",message="config.type oIDC needs config.oIDC"
// +kubebuilder:validation:XValidation:rule="self.type != 'portalSAML' || has(self.portalSAML)",message="config.type portalSAML needs config.portalSAML"
// +kubebuilder:validation:XValidation:rule="self.type == 'oIDC' || !has(self.oIDC)",message="config.oIDC is only for config.type oIDC: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'portalSAML' || !has(self.portalSAML)",message="config.portalSAML is only for config.type portalSAML: remove it or change the type"
type PortalIdentityProviderConfig struct {
	// Type is oIDC or portalSAML.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=oIDC;portalSAML
	// +required
	Type PortalIdentityProviderConfigType `json:"type"`

	// OIDC configures an OpenID Connect provider.
	//
	// +optional
	OIDC *PortalOIDCConfig `json:"oIDC,omitempty"`

	// PortalSAML configures a SAML provider.
	//
	// +optional
	PortalSAML *PortalSAMLConfig `json:"portalSAML,omitempty"`
}

// PortalOIDCConfig configures an OpenID Connect identity provider.
type PortalOIDCConfig struct {
	// IssuerURL is where the provider's metadata is served.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	IssuerURL string `json:"issuerURL"`

	// ClientID is the portal's client ID at the provider.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	ClientID string `json:"clientID"`

	// ClientSecret is the portal's client secret at the provider.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	ClientSecret string `json:"clientSecret,omitempty"`

	// Scopes are requested when developers sign in.
	//
	// +optional
	Scopes []string `json:"scopes,omitempty"`

	// ClaimMappings map the provider's claims to a developer's name,
	// email and groups.
	//
	// +optional
	ClaimMappings *PortalOIDCClaimMappings `json:"claimMappings,omitempty"`
}

// PortalOIDCClaimMappings name the claims that hold a developer's name,
// email and groups (Konnect's defaults: name, email, groups).
type PortalOIDCClaimMappings struct {
	// Name is the claim of the developer's name.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`

	// Email is the claim of the developer's email address.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Email string `json:"email,omitempty"`

	// Groups is the claim of the developer's groups.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Groups string `json:"groups,omitempty"`
}

// PortalSAMLConfig configures a SAML identity provider, by its metadata's
// URL or the metadata itself.
type PortalSAMLConfig struct {
	// IdpMetadataURL is where the provider's metadata is served.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	IdpMetadataURL string `json:"idpMetadataURL,omitempty"`

	// IdpMetadataXML is the provider's metadata.
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	IdpMetadataXML string `json:"idpMetadataXML,omitempty"`
}
