package konnect

import (
	"crypto/x509"
	"fmt"
	"os"
)

// LoadCAFile returns a certificate pool that trusts the system roots and, in
// addition, every certificate in the PEM file at path. It backs the
// operator's --konnect-ca-file flag (a proxy that re-signs TLS, or the
// Konnect simulator). Adding to the system pool rather than replacing it keeps
// Go's SSL_CERT_FILE and SSL_CERT_DIR working alongside the extra file.
func LoadCAFile(path string) (*x509.CertPool, error) {
	pemData, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		// No system roots (e.g. a scratch image): trust the file alone.
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pemData) {
		return nil, fmt.Errorf("CA file %s contains no PEM certificate", path)
	}
	return pool, nil
}
