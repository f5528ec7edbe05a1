package v1alpha1

// How clients authenticate to a virtual cluster: each entry of the
// virtual cluster's authentication is one way, the member its type names.

// EventGatewayVirtualClusterAuthentication is one way clients may
// authenticate to a virtual cluster.
//
// +kubebuilder:validation:XValidation:rule="self.type != 'saslPlain' || has(self.saslPlain)",message="type saslPlain needs saslPlain"
// +kubebuilder:validation:XValidation:rule="self.type != 'saslScram' || has(self.saslScram)",message="type saslScram needs saslScram"
// +kubebuilder:validation:XValidation:rule="self.type != 'oauthBearer' || has(self.oauthBearer)",message="type oauthBearer needs oauthBearer"
// +kubebuilder:validation:XValidation:rule="self.type == 'anonymous' || !has(self.anonymous)",message="anonymous is only for type anonymous: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'clientCertificate' || !has(self.clientCertificate)",message="clientCertificate is only for type clientCertificate: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'oauthBearer' || !has(self.oauthBearer)",message="oauthBearer is only for type oauthBearer: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'saslPlain' || !has(self.saslPlain)",message="saslPlain is only for type saslPlain: remove it or change the type"
// +kubebuilder:validation:XValidation:rule="self.type == 'saslScram' || !has(self.saslScram)",message="saslScram is only for type saslScram: remove it or change the type"
type EventGatewayVirtualClusterAuthentication struct {
	// Type is anonymous, clientCertificate, oauthBearer, saslPlain or
	// saslScram.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Enum=anonymous;clientCertificate;oauthBearer;saslPlain;saslScram
	// +required
	Type string `json:"type"`

	// Anonymous accepts clients without credentials (nothing to
	// configure; the backend cluster must allow it).
	//
	// +optional
	Anonymous *EventGatewayEmpty `json:"anonymous,omitempty"`

	// ClientCertificate authenticates clients by their TLS certificates.
	//
	// +optional
	ClientCertificate *EventGatewayClientCertificateAuth `json:"clientCertificate,omitempty"`

	// OauthBearer authenticates clients with OAuth bearer tokens.
	//
	// +optional
	OauthBearer *EventGatewayOauthBearerAuth `json:"oauthBearer,omitempty"`

	// SaslPlain authenticates clients with SASL/PLAIN.
	//
	// +optional
	SaslPlain *EventGatewaySaslPlainAuth `json:"saslPlain,omitempty"`

	// SaslScram authenticates clients with SASL/SCRAM.
	//
	// +optional
	SaslScram *EventGatewaySaslScramAuth `json:"saslScram,omitempty"`
}

// EventGatewayClientCertificateAuth authenticates clients by their TLS
// certificates.
type EventGatewayClientCertificateAuth struct {
	// FetchKongIdentityPrincipal looks the principal up in a Kong Identity
	// directory.
	//
	// +optional
	FetchKongIdentityPrincipal *EventGatewayFetchPrincipal `json:"fetchKongIdentityPrincipal,omitempty"`
}

// EventGatewaySaslPlainAuth authenticates clients with SASL/PLAIN.
type EventGatewaySaslPlainAuth struct {
	// Mediation is passthrough (the backend cluster authenticates) or
	// terminate (the gateway does).
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=passthrough;terminate
	// +required
	Mediation string `json:"mediation"`

	// Principals are the users the gateway accepts when it terminates.
	//
	// +kubebuilder:validation:MinItems=1
	// +optional
	Principals []EventGatewayPrincipal `json:"principals,omitempty"`

	// FetchKongIdentityPrincipal looks the principal up in a Kong Identity
	// directory.
	//
	// +optional
	FetchKongIdentityPrincipal *EventGatewayFetchPrincipal `json:"fetchKongIdentityPrincipal,omitempty"`
}

// EventGatewayPrincipal is a user name and password. Either may be a
// reference to a vault secret (${vault://…}).
type EventGatewayPrincipal struct {
	// Username is the user name.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Username string `json:"username"`

	// Password is the password.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Password string `json:"password"`
}

// EventGatewaySaslScramAuth authenticates clients with SASL/SCRAM.
type EventGatewaySaslScramAuth struct {
	// Algorithm is sha256 or sha512.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=sha256;sha512
	// +required
	Algorithm string `json:"algorithm"`

	// FetchKongIdentityPrincipal looks the principal up in a Kong Identity
	// directory.
	//
	// +optional
	FetchKongIdentityPrincipal *EventGatewayFetchPrincipal `json:"fetchKongIdentityPrincipal,omitempty"`
}

// EventGatewayOauthBearerAuth authenticates clients with OAuth bearer
// tokens.
type EventGatewayOauthBearerAuth struct {
	// Mediation is passthrough, validate_forward or terminate.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=passthrough;validate_forward;terminate
	// +required
	Mediation string `json:"mediation"`

	// ClaimsMapping names the claims that hold the subject and the scope.
	//
	// +optional
	ClaimsMapping *EventGatewayClaimsMapping `json:"claimsMapping,omitempty"`

	// Jwks is where the tokens' signing keys are read.
	//
	// +optional
	Jwks *EventGatewayJWKS `json:"jwks,omitempty"`

	// Validate says what tokens must hold.
	//
	// +optional
	Validate *EventGatewayTokenValidation `json:"validate,omitempty"`

	// FetchKongIdentityPrincipal looks the principal up in a Kong Identity
	// directory.
	//
	// +optional
	FetchKongIdentityPrincipal *EventGatewayFetchBearerPrincipal `json:"fetchKongIdentityPrincipal,omitempty"`
}

// EventGatewayClaimsMapping names the claims that hold a token's subject
// and scope.
type EventGatewayClaimsMapping struct {
	// Sub is the claim that holds the subject.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Sub string `json:"sub,omitempty"`

	// Scope is the claim that holds the scope.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Scope string `json:"scope,omitempty"`
}

// EventGatewayJWKS is where tokens' signing keys are read.
type EventGatewayJWKS struct {
	// Endpoint is the URL of the key set.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Endpoint string `json:"endpoint"`

	// Timeout of a read of the key set (Konnect's default: 10s).
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Timeout string `json:"timeout,omitempty"`

	// CacheExpiration is how long the key set is kept (Konnect's default:
	// 1h).
	//
	// +kubebuilder:validation:MaxLength=253
	// +optional
	CacheExpiration string `json:"cacheExpiration,omitempty"`
}

// EventGatewayTokenValidation says what tokens must hold.
type EventGatewayTokenValidation struct {
	// Audiences a token must be for (one of them).
	//
	// +kubebuilder:validation:MinItems=1
	// +optional
	Audiences []EventGatewayAudience `json:"audiences,omitempty"`

	// Issuer a token must come from.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Issuer string `json:"issuer,omitempty"`
}

// EventGatewayAudience is an audience of tokens.
type EventGatewayAudience struct {
	// Name of the audience.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`
}

// EventGatewayFetchPrincipal looks a principal up in a Kong Identity
// directory by a key.
type EventGatewayFetchPrincipal struct {
	// Directory is the Kong Identity directory.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Directory string `json:"directory"`

	// FetchBy is the key the principal is looked up by.
	//
	// +required
	FetchBy EventGatewayFetchBy `json:"fetchBy"`

	// FailureMode is error (refuse the client) or ignore, when the
	// principal is not found.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=error;ignore
	// +required
	FailureMode string `json:"failureMode"`
}

// EventGatewayFetchBy is the key a principal is looked up by.
type EventGatewayFetchBy struct {
	// Key is the key.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Key string `json:"key"`
}

// EventGatewayFetchBearerPrincipal looks a token's principal up in a Kong
// Identity directory.
type EventGatewayFetchBearerPrincipal struct {
	// Directory is the Kong Identity directory.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Directory string `json:"directory"`

	// FailureMode is error (refuse the client) or ignore, when the
	// principal is not found.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Enum=error;ignore
	// +required
	FailureMode string `json:"failureMode"`
}
