package entities

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"
)

// derCertificate returns the DER of a certificate for key.
func derCertificate(t *testing.T, key crypto.Signer, cn string) []byte {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn}, DNSNames: []string{cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func must[V any](t *testing.T) func(V, error) V {
	return func(v V, err error) V {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestDERCertificatesAndKeysBecomePEM(t *testing.T) {
	rsaKey := must[*rsa.PrivateKey](t)(rsa.GenerateKey(rand.Reader, 2048))
	ecKey := must[*ecdsa.PrivateKey](t)(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name      string
		key       crypto.Signer
		keyDER    []byte
		blockType string
	}{
		{name: "RSA, PKCS #1", key: rsaKey, keyDER: x509.MarshalPKCS1PrivateKey(rsaKey), blockType: "RSA PRIVATE KEY"},
		{name: "RSA, PKCS #8", key: rsaKey, keyDER: must[[]byte](t)(x509.MarshalPKCS8PrivateKey(rsaKey)), blockType: "PRIVATE KEY"},
		{name: "EC, SEC 1", key: ecKey, keyDER: must[[]byte](t)(x509.MarshalECPrivateKey(ecKey)), blockType: "EC PRIVATE KEY"},
		{name: "EC, PKCS #8", key: ecKey, keyDER: must[[]byte](t)(x509.MarshalPKCS8PrivateKey(ecKey)), blockType: "PRIVATE KEY"},
		{name: "Ed25519, PKCS #8", key: edKey, keyDER: must[[]byte](t)(x509.MarshalPKCS8PrivateKey(edKey)), blockType: "PRIVATE KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			certDER := derCertificate(t, tc.key, "api.example.com")
			certPEM, err := certificatePEM(certDER)
			if err != nil {
				t.Fatalf("certificate: %v", err)
			}
			keyPEM, err := privateKeyPEM(tc.keyDER)
			if err != nil {
				t.Fatalf("key: %v", err)
			}
			block, rest := pem.Decode([]byte(keyPEM))
			if block == nil || block.Type != tc.blockType || string(block.Bytes) != string(tc.keyDER) || len(rest) != 0 {
				t.Fatalf("key PEM %q, want one %s block holding the DER unchanged", keyPEM, tc.blockType)
			}
			// What Konnect does with them: parse the pair.
			if _, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM)); err != nil {
				t.Fatalf("the converted pair does not load: %v", err)
			}
		})
	}
}

func TestDERCertificateChainBecomesOnePEMBlockEach(t *testing.T) {
	key := must[*ecdsa.PrivateKey](t)(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))
	leaf, ca := derCertificate(t, key, "leaf.example.com"), derCertificate(t, key, "ca.example.com")
	got, err := certificatePEM(append(append([]byte{}, leaf...), ca...))
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]byte
	for rest := []byte(got); ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		blocks = append(blocks, b.Bytes)
	}
	if len(blocks) != 2 || string(blocks[0]) != string(leaf) || string(blocks[1]) != string(ca) {
		t.Fatalf("%d PEM blocks, want the leaf then the CA", len(blocks))
	}
}

func TestPEMAndOtherTextPassUnchanged(t *testing.T) {
	key := must[*ecdsa.PrivateKey](t)(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))
	certPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: derCertificate(t, key, "a.example.com")}))
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: must[[]byte](t)(x509.MarshalPKCS8PrivateKey(key))}))
	for _, tc := range []struct {
		name, data string
		convert    func([]byte) (string, error)
	}{
		{name: "PEM certificate", data: certPEM, convert: certificatePEM},
		{name: "PEM key", data: keyPEM, convert: privateKeyPEM},
		{name: "vault reference", data: "{vault://env/tls-cert}", convert: certificatePEM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.convert([]byte(tc.data))
			if err != nil || got != tc.data {
				t.Fatalf("got %q, %v; want the input unchanged", got, err)
			}
		})
	}
}

func TestBinaryThatIsNotDERIsRefused(t *testing.T) {
	garbage := []byte{0x30, 0x82, 0x01, 0xff, 0x00, 0x13}
	if _, err := certificatePEM(garbage); err == nil || !strings.Contains(err.Error(), "neither PEM nor a DER certificate") {
		t.Fatalf("certificate error %v, want one saying it is neither PEM nor DER", err)
	}
	if _, err := privateKeyPEM(garbage); err == nil || !strings.Contains(err.Error(), "neither PEM nor a DER private key") {
		t.Fatalf("key error %v, want one saying it is neither PEM nor DER", err)
	}
}
