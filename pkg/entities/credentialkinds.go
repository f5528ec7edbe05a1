package entities

import (
	"slices"
	"strings"

	commonv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/common/v1alpha1"
	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

type (
	kongBasicAuth = *configurationv1alpha1.KongCredentialBasicAuth
	kongAPIKey    = *configurationv1alpha1.KongCredentialAPIKey
	kongACL       = *configurationv1alpha1.KongCredentialACL
	kongJWT       = *configurationv1alpha1.KongCredentialJWT
	kongHMAC      = *configurationv1alpha1.KongCredentialHMAC
)

// NewBasicAuthAdapter returns the adapter of KongCredentialBasicAuth.
// Adopting in match mode compares the username only: Konnect stores the
// password hashed.
func NewBasicAuthAdapter(deps CredentialDeps[kongBasicAuth]) *CredentialAdapter[kongBasicAuth, konnect.BasicAuth] {
	return newCredentialAdapter(deps, credentialKind[kongBasicAuth, konnect.BasicAuth]{
		kind:        "KongCredentialBasicAuth",
		label:       "basic-auth",
		required:    []string{"username", "password"},
		newObject:   func() kongBasicAuth { return &configurationv1alpha1.KongCredentialBasicAuth{} },
		consumerRef: func(o kongBasicAuth) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongBasicAuth) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongBasicAuth) *commonv1alpha1.AdoptOptions { return o.Spec.Adopt },
		userTags:    func(o kongBasicAuth) []string { return o.Spec.Tags },
		spec:        func(o kongBasicAuth) any { return o.Spec },
		fromSecret: func(o kongBasicAuth, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name = consumer
			o.Spec.Username, o.Spec.Password = string(data["username"]), string(data["password"])
		},
		entity: func(o kongBasicAuth, tags []string, consumerID string) konnect.BasicAuth {
			return konnect.BasicAuth{Username: o.Spec.Username, Password: o.Spec.Password, Tags: tags, ConsumerID: consumerID}
		},
		create:     (*konnect.Client).CreateBasicAuth,
		upsert:     (*konnect.Client).UpsertBasicAuth,
		get:        (*konnect.Client).GetBasicAuth,
		remove:     (*konnect.Client).DeleteBasicAuth,
		list:       (*konnect.Client).ListBasicAuths,
		id:         func(e konnect.BasicAuth) string { return e.ID },
		tags:       func(e konnect.BasicAuth) []string { return e.Tags },
		consumerID: func(e konnect.BasicAuth) string { return e.ConsumerID },
		differences: func(desired, actual konnect.BasicAuth) []string {
			var d diff
			d.check("username", desired.Username == actual.Username)
			return d
		},
	})
}

// NewAPIKeyAdapter returns the adapter of KongCredentialAPIKey.
func NewAPIKeyAdapter(deps CredentialDeps[kongAPIKey]) *CredentialAdapter[kongAPIKey, konnect.KeyAuth] {
	return newCredentialAdapter(deps, credentialKind[kongAPIKey, konnect.KeyAuth]{
		kind:        "KongCredentialAPIKey",
		label:       "key-auth",
		required:    []string{"key"},
		newObject:   func() kongAPIKey { return &configurationv1alpha1.KongCredentialAPIKey{} },
		consumerRef: func(o kongAPIKey) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongAPIKey) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongAPIKey) *commonv1alpha1.AdoptOptions { return o.Spec.Adopt },
		userTags:    func(o kongAPIKey) []string { return o.Spec.Tags },
		spec:        func(o kongAPIKey) any { return o.Spec },
		fromSecret: func(o kongAPIKey, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name, o.Spec.Key = consumer, string(data["key"])
		},
		entity: func(o kongAPIKey, tags []string, consumerID string) konnect.KeyAuth {
			return konnect.KeyAuth{Key: o.Spec.Key, Tags: tags, ConsumerID: consumerID}
		},
		create:     (*konnect.Client).CreateKeyAuth,
		upsert:     (*konnect.Client).UpsertKeyAuth,
		get:        (*konnect.Client).GetKeyAuth,
		remove:     (*konnect.Client).DeleteKeyAuth,
		list:       (*konnect.Client).ListKeyAuths,
		id:         func(e konnect.KeyAuth) string { return e.ID },
		tags:       func(e konnect.KeyAuth) []string { return e.Tags },
		consumerID: func(e konnect.KeyAuth) string { return e.ConsumerID },
		differences: func(desired, actual konnect.KeyAuth) []string {
			var d diff
			d.check("key", desired.Key == actual.Key)
			return d
		},
	})
}

// NewACLAdapter returns the adapter of KongCredentialACL.
func NewACLAdapter(deps CredentialDeps[kongACL]) *CredentialAdapter[kongACL, konnect.ACL] {
	return newCredentialAdapter(deps, credentialKind[kongACL, konnect.ACL]{
		kind:        "KongCredentialACL",
		label:       "acl",
		required:    []string{"group"},
		newObject:   func() kongACL { return &configurationv1alpha1.KongCredentialACL{} },
		consumerRef: func(o kongACL) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongACL) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongACL) *commonv1alpha1.AdoptOptions { return o.Spec.Adopt },
		userTags:    func(o kongACL) []string { return o.Spec.Tags },
		spec:        func(o kongACL) any { return o.Spec },
		fromSecret: func(o kongACL, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name, o.Spec.Group = consumer, string(data["group"])
		},
		entity: func(o kongACL, tags []string, consumerID string) konnect.ACL {
			return konnect.ACL{Group: o.Spec.Group, Tags: tags, ConsumerID: consumerID}
		},
		create:     (*konnect.Client).CreateACL,
		upsert:     (*konnect.Client).UpsertACL,
		get:        (*konnect.Client).GetACL,
		remove:     (*konnect.Client).DeleteACL,
		list:       (*konnect.Client).ListACLs,
		id:         func(e konnect.ACL) string { return e.ID },
		tags:       func(e konnect.ACL) []string { return e.Tags },
		consumerID: func(e konnect.ACL) string { return e.ConsumerID },
		differences: func(desired, actual konnect.ACL) []string {
			var d diff
			d.check("group", desired.Group == actual.Group)
			return d
		},
	})
}

// jwtAlgorithms are the algorithms a KongCredentialJWT accepts.
var jwtAlgorithms = []string{"HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA"}

// jwtNeedsPublicKey reports whether tokens signed with algorithm are
// verified with a public key.
func jwtNeedsPublicKey(algorithm string) bool { return !strings.HasPrefix(algorithm, "HS") }

// checkJWTSecret checks the algorithm of a jwt credential Secret. It asks
// for rsa_public_key with every asymmetric algorithm, ES* included, because
// the KongCredentialJWT made from it would be refused without one.
func checkJWTSecret(data map[string][]byte) []string {
	algorithm, ok := data["algorithm"]
	if !ok {
		return nil // reported as a missing required key
	}
	if !slices.Contains(jwtAlgorithms, string(algorithm)) {
		return []string{`data key "algorithm" is not one of ` + strings.Join(jwtAlgorithms, ", ")}
	}
	if _, hasKey := data["rsa_public_key"]; jwtNeedsPublicKey(string(algorithm)) && !hasKey {
		return []string{`data key "rsa_public_key" is required with this algorithm`}
	}
	return nil
}

// NewJWTAdapter returns the adapter of KongCredentialJWT. spec.id is not
// sent: Konnect chooses the ID.
func NewJWTAdapter(deps CredentialDeps[kongJWT]) *CredentialAdapter[kongJWT, konnect.JWT] {
	return newCredentialAdapter(deps, credentialKind[kongJWT, konnect.JWT]{
		kind:        "KongCredentialJWT",
		label:       "jwt",
		required:    []string{"key", "algorithm"},
		checkSecret: checkJWTSecret,
		newObject:   func() kongJWT { return &configurationv1alpha1.KongCredentialJWT{} },
		consumerRef: func(o kongJWT) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongJWT) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongJWT) *commonv1alpha1.AdoptOptions { return o.Spec.Adopt },
		userTags:    func(o kongJWT) []string { return o.Spec.Tags },
		spec:        func(o kongJWT) any { return o.Spec },
		fromSecret: func(o kongJWT, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name = consumer
			o.Spec.Key, o.Spec.Algorithm = string(data["key"]), string(data["algorithm"])
			o.Spec.RSAPublicKey, o.Spec.Secret = string(data["rsa_public_key"]), string(data["secret"])
		},
		entity: func(o kongJWT, tags []string, consumerID string) konnect.JWT {
			return konnect.JWT{
				Key: o.Spec.Key, Algorithm: o.Spec.Algorithm, RSAPublicKey: o.Spec.RSAPublicKey, Secret: o.Spec.Secret,
				Tags: tags, ConsumerID: consumerID,
			}
		},
		create:     (*konnect.Client).CreateJWT,
		upsert:     (*konnect.Client).UpsertJWT,
		get:        (*konnect.Client).GetJWT,
		remove:     (*konnect.Client).DeleteJWT,
		list:       (*konnect.Client).ListJWTs,
		id:         func(e konnect.JWT) string { return e.ID },
		tags:       func(e konnect.JWT) []string { return e.Tags },
		consumerID: func(e konnect.JWT) string { return e.ConsumerID },
		// Konnect generates the key and the secret when the spec has none:
		// those are compared only when the spec sets them.
		differences: func(desired, actual konnect.JWT) []string {
			var d diff
			d.check("key", desired.Key == "" || desired.Key == actual.Key)
			d.check("algorithm", orDefault(desired.Algorithm, "HS256") == orDefault(actual.Algorithm, "HS256"))
			d.check("rsa_public_key", desired.RSAPublicKey == actual.RSAPublicKey)
			d.check("secret", desired.Secret == "" || desired.Secret == actual.Secret)
			return d
		},
	})
}

// NewHMACAdapter returns the adapter of KongCredentialHMAC. spec.id is not
// sent: Konnect chooses the ID.
func NewHMACAdapter(deps CredentialDeps[kongHMAC]) *CredentialAdapter[kongHMAC, konnect.HMACAuth] {
	return newCredentialAdapter(deps, credentialKind[kongHMAC, konnect.HMACAuth]{
		kind:        "KongCredentialHMAC",
		label:       "hmac",
		required:    []string{"username", "secret"},
		newObject:   func() kongHMAC { return &configurationv1alpha1.KongCredentialHMAC{} },
		consumerRef: func(o kongHMAC) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongHMAC) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongHMAC) *commonv1alpha1.AdoptOptions { return o.Spec.Adopt },
		userTags:    func(o kongHMAC) []string { return o.Spec.Tags },
		spec:        func(o kongHMAC) any { return o.Spec },
		fromSecret: func(o kongHMAC, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name = consumer
			o.Spec.Username, o.Spec.Secret = string(data["username"]), string(data["secret"])
		},
		entity: func(o kongHMAC, tags []string, consumerID string) konnect.HMACAuth {
			return konnect.HMACAuth{Username: o.Spec.Username, Secret: o.Spec.Secret, Tags: tags, ConsumerID: consumerID}
		},
		create:     (*konnect.Client).CreateHMACAuth,
		upsert:     (*konnect.Client).UpsertHMACAuth,
		get:        (*konnect.Client).GetHMACAuth,
		remove:     (*konnect.Client).DeleteHMACAuth,
		list:       (*konnect.Client).ListHMACAuths,
		id:         func(e konnect.HMACAuth) string { return e.ID },
		tags:       func(e konnect.HMACAuth) []string { return e.Tags },
		consumerID: func(e konnect.HMACAuth) string { return e.ConsumerID },
		differences: func(desired, actual konnect.HMACAuth) []string {
			var d diff
			d.check("username", desired.Username == actual.Username)
			d.check("secret", desired.Secret == "" || desired.Secret == actual.Secret)
			return d
		},
	})
}
