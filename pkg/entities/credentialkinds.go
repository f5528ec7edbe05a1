package entities

import (
	"crypto/sha1" //nolint:gosec // Kong hashes basic-auth passwords with SHA-1
	"encoding/hex"
	"slices"
	"strings"

	"github.com/Kong/sdk-konnect-go/models/components"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
)

type (
	kongBasicAuth = *configurationv1alpha1.KongCredentialBasicAuth
	kongAPIKey    = *configurationv1alpha1.KongCredentialAPIKey
	kongACL       = *configurationv1alpha1.KongCredentialACL
	kongJWT       = *configurationv1alpha1.KongCredentialJWT
	kongHMAC      = *configurationv1alpha1.KongCredentialHMAC
)

// BasicAuthKind describes KongCredentialBasicAuths. Adopting in match mode
// compares the username only: Konnect stores the password hashed.
func BasicAuthKind(deps CredentialDeps[kongBasicAuth]) Credential[kongBasicAuth, components.BasicAuthWithoutParents] {
	return newCredential(deps, credentialTable[kongBasicAuth, components.BasicAuthWithoutParents, components.BasicAuth]{
		kind:        "KongCredentialBasicAuth",
		label:       "basic-auth",
		required:    []string{"username", "password"},
		newObject:   func() kongBasicAuth { return &configurationv1alpha1.KongCredentialBasicAuth{} },
		consumerRef: func(o kongBasicAuth) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongBasicAuth) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongBasicAuth) *adoptOptions { return o.Spec.Adopt },
		setAdopt:    func(o kongBasicAuth, a *adoptOptions) { o.Spec.Adopt = a },
		userTags:    func(o kongBasicAuth) []string { return o.Spec.Tags },
		spec:        func(o kongBasicAuth) any { return o.Spec },
		fromSecret: func(o kongBasicAuth, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name = consumer
			o.Spec.Username, o.Spec.Password = string(data["username"]), string(data["password"])
		},
		body: func(o kongBasicAuth, tags []string) components.BasicAuthWithoutParents {
			return components.BasicAuthWithoutParents{Username: o.Spec.Username, Password: o.Spec.Password, Tags: tags}
		},
		calls:        basicAuthCalls,
		uniqueKey:    func(body components.BasicAuthWithoutParents) string { return body.Username },
		secretValues: func(o kongBasicAuth) []string { return []string{o.Spec.Password} },
		matches: func(desired components.BasicAuthWithoutParents, actual *components.BasicAuth) []string {
			var d diff
			d.check("username", desired.Username == actual.Username)
			return d
		},
		secrets: BasicAuthPasswordDifference,
	})
}

// BasicAuthPasswordDifference names "password" when the password of the
// spec does not hash to the one Konnect keeps. An empty password is one
// the spec does not know (kubectl konnect export cannot read it back from
// the hash): it is not compared, so that a listing does not find an
// adopted credential drifted and overwrite its password with nothing.
func BasicAuthPasswordDifference(desired components.BasicAuthWithoutParents, actual *components.BasicAuth) []string {
	var d diff
	d.check("password", desired.Password == "" || basicAuthHash(desired.Password, deref(actual.GetConsumer().GetID())) == actual.Password)
	return d
}

// basicAuthHash is the password as Konnect keeps it, as Kong does: the hex
// SHA-1 of the password followed by the consumer's ID. A listed credential
// is compared with the spec by hashing the spec's password the same way.
func basicAuthHash(password, consumerID string) string {
	sum := sha1.Sum([]byte(password + consumerID)) //nolint:gosec // Kong's own scheme, compared, not chosen
	return hex.EncodeToString(sum[:])
}

// APIKeyKind describes KongCredentialAPIKeys. Konnect generates the key
// when the spec has none.
func APIKeyKind(deps CredentialDeps[kongAPIKey]) Credential[kongAPIKey, components.KeyAuthWithoutParents] {
	return newCredential(deps, credentialTable[kongAPIKey, components.KeyAuthWithoutParents, components.KeyAuth]{
		kind:        "KongCredentialAPIKey",
		label:       "key-auth",
		required:    []string{"key"},
		newObject:   func() kongAPIKey { return &configurationv1alpha1.KongCredentialAPIKey{} },
		consumerRef: func(o kongAPIKey) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongAPIKey) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongAPIKey) *adoptOptions { return o.Spec.Adopt },
		setAdopt:    func(o kongAPIKey, a *adoptOptions) { o.Spec.Adopt = a },
		userTags:    func(o kongAPIKey) []string { return o.Spec.Tags },
		spec:        func(o kongAPIKey) any { return o.Spec },
		fromSecret: func(o kongAPIKey, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name, o.Spec.Key = consumer, string(data["key"])
		},
		body: func(o kongAPIKey, tags []string) components.KeyAuthWithoutParents {
			return components.KeyAuthWithoutParents{Key: optional(o.Spec.Key), Tags: tags}
		},
		calls:        apiKeyCalls,
		uniqueKey:    func(body components.KeyAuthWithoutParents) string { return deref(body.Key) },
		secretValues: func(o kongAPIKey) []string { return []string{o.Spec.Key} },
		matches: func(desired components.KeyAuthWithoutParents, actual *components.KeyAuth) []string {
			var d diff
			d.check("key", deref(desired.Key) == deref(actual.Key))
			return d
		},
	})
}

// ACLKind describes KongCredentialACLs: a consumer's ACL group memberships.
func ACLKind(deps CredentialDeps[kongACL]) Credential[kongACL, components.ACLWithoutParents] {
	return newCredential(deps, credentialTable[kongACL, components.ACLWithoutParents, components.ACL]{
		kind:        "KongCredentialACL",
		label:       "acl",
		required:    []string{"group"},
		newObject:   func() kongACL { return &configurationv1alpha1.KongCredentialACL{} },
		consumerRef: func(o kongACL) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongACL) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongACL) *adoptOptions { return o.Spec.Adopt },
		setAdopt:    func(o kongACL, a *adoptOptions) { o.Spec.Adopt = a },
		userTags:    func(o kongACL) []string { return o.Spec.Tags },
		spec:        func(o kongACL) any { return o.Spec },
		fromSecret: func(o kongACL, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name, o.Spec.Group = consumer, string(data["group"])
		},
		body: func(o kongACL, tags []string) components.ACLWithoutParents {
			return components.ACLWithoutParents{Group: o.Spec.Group, Tags: tags}
		},
		calls: aclCalls,
		matches: func(desired components.ACLWithoutParents, actual *components.ACL) []string {
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

// JWTKind describes KongCredentialJWTs. spec.id is not sent: Konnect
// chooses the ID, and generates the key and the secret when the spec has
// none; those are compared in match mode only when the spec sets them.
func JWTKind(deps CredentialDeps[kongJWT]) Credential[kongJWT, components.JWTWithoutParents] {
	return newCredential(deps, credentialTable[kongJWT, components.JWTWithoutParents, components.Jwt]{
		kind:        "KongCredentialJWT",
		label:       "jwt",
		required:    []string{"key", "algorithm"},
		checkSecret: checkJWTSecret,
		newObject:   func() kongJWT { return &configurationv1alpha1.KongCredentialJWT{} },
		consumerRef: func(o kongJWT) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongJWT) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongJWT) *adoptOptions { return o.Spec.Adopt },
		setAdopt:    func(o kongJWT, a *adoptOptions) { o.Spec.Adopt = a },
		userTags:    func(o kongJWT) []string { return o.Spec.Tags },
		spec:        func(o kongJWT) any { return o.Spec },
		fromSecret: func(o kongJWT, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name = consumer
			o.Spec.Key, o.Spec.Algorithm = string(data["key"]), string(data["algorithm"])
			o.Spec.RSAPublicKey, o.Spec.Secret = string(data["rsa_public_key"]), string(data["secret"])
		},
		body: func(o kongJWT, tags []string) components.JWTWithoutParents {
			return components.JWTWithoutParents{
				Key:          optional(o.Spec.Key),
				Algorithm:    optional(components.JWTWithoutParentsAlgorithm(o.Spec.Algorithm)),
				RsaPublicKey: optional(o.Spec.RSAPublicKey),
				Secret:       optional(o.Spec.Secret),
				Tags:         tags,
			}
		},
		calls:        jwtCalls,
		uniqueKey:    func(body components.JWTWithoutParents) string { return deref(body.Key) },
		secretValues: func(o kongJWT) []string { return []string{o.Spec.Secret, o.Spec.RSAPublicKey} },
		matches: func(desired components.JWTWithoutParents, actual *components.Jwt) []string {
			var d diff
			d.check("key", desired.Key == nil || deref(desired.Key) == deref(actual.Key))
			d.check("algorithm", orDefault(string(deref(desired.Algorithm)), "HS256") == orDefault(string(deref(actual.Algorithm)), "HS256"))
			d.check("rsa_public_key", deref(desired.RsaPublicKey) == deref(actual.RsaPublicKey))
			d.check("secret", desired.Secret == nil || deref(desired.Secret) == deref(actual.Secret))
			return d
		},
	})
}

// HMACKind describes KongCredentialHMACs. spec.id is not sent: Konnect
// chooses the ID, and generates the secret when the spec has none.
func HMACKind(deps CredentialDeps[kongHMAC]) Credential[kongHMAC, components.HMACAuthWithoutParents] {
	return newCredential(deps, credentialTable[kongHMAC, components.HMACAuthWithoutParents, components.HMACAuth]{
		kind:        "KongCredentialHMAC",
		label:       "hmac",
		required:    []string{"username", "secret"},
		newObject:   func() kongHMAC { return &configurationv1alpha1.KongCredentialHMAC{} },
		consumerRef: func(o kongHMAC) string { return o.Spec.ConsumerRef.Name },
		status:      func(o kongHMAC) *configurationv1alpha1.KongCredentialStatus { return &o.Status },
		adopt:       func(o kongHMAC) *adoptOptions { return o.Spec.Adopt },
		setAdopt:    func(o kongHMAC, a *adoptOptions) { o.Spec.Adopt = a },
		userTags:    func(o kongHMAC) []string { return o.Spec.Tags },
		spec:        func(o kongHMAC) any { return o.Spec },
		fromSecret: func(o kongHMAC, consumer string, data map[string][]byte) {
			o.Spec.ConsumerRef.Name = consumer
			o.Spec.Username, o.Spec.Secret = string(data["username"]), string(data["secret"])
		},
		body: func(o kongHMAC, tags []string) components.HMACAuthWithoutParents {
			return components.HMACAuthWithoutParents{Username: o.Spec.Username, Secret: optional(o.Spec.Secret), Tags: tags}
		},
		calls:        hmacCalls,
		uniqueKey:    func(body components.HMACAuthWithoutParents) string { return body.Username },
		secretValues: func(o kongHMAC) []string { return []string{o.Spec.Secret} },
		matches: func(desired components.HMACAuthWithoutParents, actual *components.HMACAuth) []string {
			var d diff
			d.check("username", desired.Username == actual.Username)
			d.check("secret", desired.Secret == nil || deref(desired.Secret) == deref(actual.Secret))
			return d
		},
	})
}
