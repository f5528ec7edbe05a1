package entities

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// A certificate and a CA certificate that one service uses are deleted at
// the same time: each detaches itself by writing back the service as it
// read it, so the second write names the certificate the first one let go.
func TestDetachingFromAServiceThatChangedMeanwhile(t *testing.T) {
	const token = "kpat_certdelete0123456789"
	sim := konnectsim.Start(t, konnectsim.Options{Tokens: map[string]string{token: "acme"}})
	c, err := konnect.NewClientFactory(konnect.Options{RootCAs: sim.CAPool, RequestsPerSecond: 1000, Burst: 1000}).Client(sim.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pair, certPEM, err := konnectsim.SelfSignedCertificate("client.example.com")
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(pair.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})

	cp, err := c.CreateControlPlane(ctx, konnect.ControlPlane{Name: "cp"})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := c.CreateCertificate(ctx, cp.ID, konnect.Certificate{Cert: string(certPEM), Key: string(keyPEM)})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := c.CreateCACertificate(ctx, cp.ID, konnect.CACertificate{Cert: string(certPEM)})
	if err != nil {
		t.Fatal(err)
	}
	read, err := c.CreateService(ctx, cp.ID, konnect.Service{
		Name: "svc", Host: "svc.example.com", Protocol: "https",
		ClientCertificateID: cert.ID, CACertificates: []string{ca.ID},
	})
	if err != nil {
		t.Fatal(err)
	}

	// The CA certificate's delete read the service (read); meanwhile the
	// certificate's delete detached it and went.
	if err := deleteCertificate(ctx, c, cp.ID, cert.ID); err != nil {
		t.Fatalf("deleting the certificate: %v", err)
	}
	if err := detachService(ctx, c, cp.ID, read, withoutCACertificate(ca.ID)); err != nil {
		t.Fatalf("detaching the CA certificate from what was read before: %v", err)
	}
	got, err := c.GetService(ctx, cp.ID, read.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ClientCertificateID != "" || len(got.CACertificates) != 0 {
		t.Fatalf("service uses client certificate %q and CA certificates %v, want neither", got.ClientCertificateID, got.CACertificates)
	}
	if err := deleteCACertificate(ctx, c, cp.ID, ca.ID); err != nil {
		t.Fatalf("deleting the CA certificate: %v", err)
	}
}
