package operator

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// servingCertificate loads the certificate and key files, or makes a
// self-signed certificate for this host when both are empty.
func servingCertificate(certFile, keyFile string) (tls.Certificate, error) {
	switch {
	case certFile != "" && keyFile != "":
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("loading the metrics serving certificate: %w", err)
		}
		return cert, nil
	case certFile != "" || keyFile != "":
		return tls.Certificate{}, fmt.Errorf("the metrics certificate needs both a certificate file and a key file")
	}
	return selfSignedCertificate()
}

// selfSignedCertificate makes a one-year certificate for the host name,
// localhost and the loopback addresses. Scrapers cannot verify it and are
// told so (insecure_skip_verify); the bearer token is what protects the
// endpoint.
func selfSignedCertificate() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		return tls.Certificate{}, err
	}
	host, err := os.Hostname()
	if err != nil {
		host = "konnect-operator"
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: host + "@" + fmt.Sprint(now.Unix())},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{host, "localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
