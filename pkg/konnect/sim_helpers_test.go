package konnect

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// simOrg is the organisation name the simulator tests give their token.
const simOrg = "acme"

// startSim serves a simulator for the test (it fails the test on any
// OpenAPI violation) and returns it with a client factory that trusts it.
func startSim(t *testing.T, simOpts konnectsim.Options, opts Options) (*konnectsim.TestServer, *ClientFactory) {
	t.Helper()
	if simOpts.Tokens == nil {
		simOpts.Tokens = map[string]string{testToken: simOrg}
	}
	sim := konnectsim.Start(t, simOpts)
	opts.RootCAs = sim.CAPool
	if opts.RequestsPerSecond == 0 {
		opts.RequestsPerSecond, opts.Burst = 1e6, 1e6
	}
	return sim, NewClientFactory(opts)
}

func simClient(t *testing.T, sim *konnectsim.TestServer, f *ClientFactory, token string) *Client {
	t.Helper()
	c, err := f.Client(sim.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// must fails the test on err and returns v.
func must[T any](t *testing.T, what string) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

// testPKI is a CA and a leaf certificate with their keys, in PEM.
type testPKI struct {
	caCert, leafCert, leafKey, publicKey, privateKey string
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leafTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "api.example.com"}, DNSNames: []string{"api.example.com"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTemplate, caTemplate, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leafKeyDER, err := x509.MarshalPKCS8PrivateKey(leafKey)
	if err != nil {
		t.Fatal(err)
	}
	publicDER, err := x509.MarshalPKIXPublicKey(&leafKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	encode := func(kind string, der []byte) string {
		return string(pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}))
	}
	return testPKI{
		caCert:     encode("CERTIFICATE", caDER),
		leafCert:   encode("CERTIFICATE", leafDER),
		leafKey:    encode("PRIVATE KEY", leafKeyDER),
		publicKey:  encode("PUBLIC KEY", publicDER),
		privateKey: encode("PRIVATE KEY", leafKeyDER),
	}
}
