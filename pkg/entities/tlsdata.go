package entities

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Konnect reads certificates and keys as PEM only; Secrets made by other
// tools (Kong Operator's own samples among them) may hold them DER-encoded.
// These functions turn DER into PEM and leave PEM, and any other text such
// as a vault reference, as it is for Konnect to judge.

var pemBegin = []byte("-----BEGIN ")

// certificatePEM returns data, one or more certificates, as PEM.
func certificatePEM(data []byte) (string, error) {
	if isText(data) {
		return string(data), nil
	}
	certs, err := x509.ParseCertificates(data)
	if err != nil {
		return "", fmt.Errorf("holds neither PEM nor a DER certificate: %w", err)
	}
	var out bytes.Buffer
	for _, c := range certs {
		if err := pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}); err != nil {
			return "", err
		}
	}
	return out.String(), nil
}

// privateKeyPEM returns data, a private key, as PEM, with the block type
// of its encoding: PKCS #1 (RSA), SEC 1 (EC) or PKCS #8 (any).
func privateKeyPEM(data []byte) (string, error) {
	if isText(data) {
		return string(data), nil
	}
	var blockType string
	switch {
	case parses(x509.ParsePKCS1PrivateKey, data):
		blockType = "RSA PRIVATE KEY"
	case parses(x509.ParseECPrivateKey, data):
		blockType = "EC PRIVATE KEY"
	case parses(x509.ParsePKCS8PrivateKey, data):
		blockType = "PRIVATE KEY"
	default:
		return "", errors.New("holds neither PEM nor a DER private key (PKCS #1, PKCS #8 or SEC 1)")
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: data})), nil
}

func parses[K any](parse func([]byte) (K, error), data []byte) bool {
	_, err := parse(data)
	return err == nil
}

// isText reports whether data is PEM or other text rather than DER, which
// is binary: it starts with an ASN.1 SEQUENCE tag and is rarely valid UTF-8.
func isText(data []byte) bool {
	if bytes.Contains(data, pemBegin) {
		return true
	}
	return len(data) > 0 && data[0] != 0x30 && utf8.Valid(data)
}
