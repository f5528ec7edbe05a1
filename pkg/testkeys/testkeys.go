// Package testkeys makes the keys and certificates that tests and
// benchmarks hand to Konnect: self-signed certificates and EC JSON Web
// Keys, fresh each call. Nothing in the operator uses it.
package testkeys

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"time"
)

// Pair is a certificate and its private key, in PEM.
type Pair struct{ Cert, Key string }

// SelfSigned makes a certificate for cn (also its DNS name), valid from an
// hour ago for a year, signed by its own P-256 key; ca marks it a
// certificate authority.
func SelfSigned(cn string, ca bool) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return Pair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn}, DNSNames: []string{cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
		BasicConstraintsValid: true, IsCA: ca,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return Pair{}, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return Pair{}, err
	}
	return Pair{
		Cert: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		Key:  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})),
	}, nil
}

// JWK makes a public P-256 JSON Web Key with the given kid.
func JWK(kid string) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	ecdh, err := key.PublicKey.ECDH()
	if err != nil {
		return "", err
	}
	raw := ecdh.Bytes() // 0x04 || X || Y
	jwk, err := json.Marshal(map[string]string{
		"kty": "EC", "crv": "P-256", "kid": kid,
		"x": base64.RawURLEncoding.EncodeToString(raw[1:33]),
		"y": base64.RawURLEncoding.EncodeToString(raw[33:]),
	})
	return string(jwk), err
}
