package konnectsim

import (
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // Kong hashes basic-auth passwords with SHA-1; the simulator mirrors it.
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"regexp"
)

// Preparers of certificates, keys, vaults and consumer credentials: they
// check the content Konnect parses and fill what it generates.

func prepareCertificate(e map[string]any) []fieldError {
	if !isEmpty(e["vault"]) {
		return nil
	}
	var errs []fieldError
	for _, f := range []string{"cert", "key"} {
		if isEmpty(e[f]) {
			errs = append(errs, errField(f, "required field missing"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	// cert, key, cert_alt and key_alt are referenceable: a vault reference
	// is resolved by the data planes, so a pair containing one is not parsed.
	if !isVaultReference(e["cert"]) && !isVaultReference(e["key"]) {
		if _, err := tls.X509KeyPair([]byte(str(e["cert"])), []byte(str(e["key"]))); err != nil {
			errs = append(errs, errField("cert", "invalid certificate or key: %v", err))
		}
	}
	if (!isEmpty(e["cert_alt"]) || !isEmpty(e["key_alt"])) && !isVaultReference(e["cert_alt"]) && !isVaultReference(e["key_alt"]) {
		if _, err := tls.X509KeyPair([]byte(str(e["cert_alt"])), []byte(str(e["key_alt"]))); err != nil {
			errs = append(errs, errField("cert_alt", "invalid certificate or key: %v", err))
		}
	}
	return errs
}

// vaultReference is the shape of a Kong vault reference: {vault://name/path}.
var vaultReference = regexp.MustCompile(`^\{vault://[\w.-]+/[^}]+\}\s*$`)

func isVaultReference(v any) bool { return vaultReference.MatchString(str(v)) }

func prepareCACertificate(e map[string]any) []fieldError {
	block, _ := pem.Decode([]byte(str(e["cert"])))
	if block == nil {
		return []fieldError{errField("cert", "invalid certificate: failed to decode PEM")}
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return []fieldError{errField("cert", "invalid certificate: %v", err)}
	}
	if !cert.IsCA {
		return []fieldError{errField("cert", "certificate does not appear to be a CA because it is missing the \"CA\" basic constraint")}
	}
	sum := sha256.Sum256(cert.Raw)
	e["cert_digest"] = hex.EncodeToString(sum[:])
	return nil
}

func prepareKey(e map[string]any) []fieldError {
	if isEmpty(e["jwk"]) && isEmpty(e["pem"]) {
		return []fieldError{errEntity("at least one of these fields must be non-empty: 'jwk', 'pem'")}
	}
	if raw, ok := e["jwk"].(string); ok && raw != "" {
		var jwk map[string]any
		if err := json.Unmarshal([]byte(raw), &jwk); err != nil {
			return []fieldError{errField("jwk", "could not parse JWK: %v", err)}
		}
		if kid, ok := jwk["kid"].(string); ok && kid != e["kid"] {
			return []fieldError{errEntity("kid in jwk.kid must be equal to keys.kid")}
		}
	}
	if p, ok := e["pem"].(map[string]any); ok {
		for _, f := range []string{"public_key", "private_key"} {
			if s, ok := p[f].(string); ok {
				if block, _ := pem.Decode([]byte(s)); block == nil {
					return []fieldError{errField("pem."+f, "could not parse PEM")}
				}
			}
		}
	}
	return nil
}

var vaultPrefix = regexp.MustCompile(`^[a-z][a-z\d-]*[a-z\d]+$`)

func prepareVault(e map[string]any) []fieldError {
	errs := checkEnum("name", e["name"], []string{"aws", "azure", "conjur", "env", "gcp", "hcv", "konnect"})
	if p, ok := e["prefix"].(string); ok && p != "" && !vaultPrefix.MatchString(p) {
		errs = append(errs, errField("prefix", "must match pattern %s", vaultPrefix))
	}
	return errs
}

func prepareKeyAuth(e map[string]any) []fieldError {
	if isEmpty(e["key"]) {
		e["key"] = randomKey()
	}
	return nil
}

func prepareJWT(e map[string]any) []fieldError {
	if isEmpty(e["key"]) {
		e["key"] = randomKey()
	}
	if isEmpty(e["secret"]) {
		e["secret"] = randomKey()
	}
	if isEmpty(e["algorithm"]) {
		e["algorithm"] = "HS256"
	}
	return checkEnum("algorithm", e["algorithm"], []string{
		"ES256", "ES256K", "ES384", "ES512", "ESB256", "ESB320", "ESB384", "ESB512", "ESP256", "ESP384", "ESP512",
		"Ed25519", "Ed448", "EdDSA", "HS256", "HS384", "HS512", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512",
	})
}

// prepareBasicAuth stores the password the way Kong does: as the SHA-1 of
// the password salted with the consumer id, so a read returns the hash.
func prepareBasicAuth(e map[string]any) []fieldError {
	consumer, _ := e["consumer"].(map[string]any)
	sum := sha1.Sum([]byte(str(e["password"]) + str(consumer["id"])))
	e["password"] = hex.EncodeToString(sum[:])
	return nil
}

func prepareHMAC(e map[string]any) []fieldError {
	if isEmpty(e["secret"]) {
		e["secret"] = randomKey()
	}
	return nil
}

// randomKey makes a credential key or secret the way Kong generates one
// when none is given.
func randomKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
