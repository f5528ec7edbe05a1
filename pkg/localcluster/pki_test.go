package localcluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
)

func readPEM(t *testing.T, path, wantType string) []byte {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("%s has mode %o, want 600", path, perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != wantType {
		t.Fatalf("%s: want one PEM block of type %s", path, wantType)
	}
	return block.Bytes
}

func TestServingCertificateIsTrustedForLoopbackThroughTheCA(t *testing.T) {
	keys, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(keys.caPEM) {
		t.Fatal("CA PEM does not parse")
	}
	serving, err := x509.ParseCertificate(readPEM(t, keys.servingCertPath, "CERTIFICATE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "::1", "localhost"} {
		t.Run(host, func(t *testing.T) {
			if _, err := serving.Verify(x509.VerifyOptions{DNSName: host, Roots: roots}); err != nil {
				t.Fatalf("serving certificate not valid for %s: %v", host, err)
			}
		})
	}
	servingKey, err := x509.ParseECPrivateKey(readPEM(t, keys.servingKeyPath, "EC PRIVATE KEY"))
	if err != nil {
		t.Fatal(err)
	}
	if !servingKey.PublicKey.Equal(serving.PublicKey) {
		t.Fatal("serving key does not match the serving certificate")
	}
}

func TestServiceAccountKeyPairMatches(t *testing.T) {
	keys, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	private, err := x509.ParseECPrivateKey(readPEM(t, keys.saPrivateKeyPath, "EC PRIVATE KEY"))
	if err != nil {
		t.Fatal(err)
	}
	public, err := x509.ParsePKIXPublicKey(readPEM(t, keys.saPublicKeyPath, "PUBLIC KEY"))
	if err != nil {
		t.Fatal(err)
	}
	if !private.Public().(*ecdsa.PublicKey).Equal(public.(crypto.PublicKey)) {
		t.Fatal("service-account public key does not belong to the private key")
	}
}

func TestEveryClusterGetsItsOwnKeysAndToken(t *testing.T) {
	first, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	second, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if string(first.caPEM) == string(second.caPEM) {
		t.Fatal("two clusters share a CA")
	}
	tokenA, err := randomToken()
	if err != nil {
		t.Fatal(err)
	}
	tokenB, err := randomToken()
	if err != nil {
		t.Fatal(err)
	}
	if tokenA == tokenB || len(tokenA) != 64 {
		t.Fatalf("tokens %d characters long, equal=%v; want 64 hex characters, distinct", len(tokenA), tokenA == tokenB)
	}
}
