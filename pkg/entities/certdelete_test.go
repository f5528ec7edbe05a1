package entities

import (
	"slices"
	"testing"

	"github.com/Kong/sdk-konnect-go/models/components"

	"github.com/konnect-operator/konnect-operator/pkg/controller"
	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// refusals counts the requests of one operation (its OpenAPI operationId)
// that the simulator refused.
func refusals(s simulated, operationID string) int {
	n := 0
	for _, r := range s.sim.Requests() {
		if r.OperationID == operationID && r.Status >= 400 {
			n++
		}
	}
	return n
}

// created creates an entity through calls and returns its ID.
func created[D, A any](t *testing.T, s simulated, p controller.Placement, calls coreCalls[D, A], body D) string {
	t.Helper()
	a, err := calls.doCreate(t.Context(), s.api, p, body)
	if err != nil {
		t.Fatalf("create %s: %v", calls.entity, err)
	}
	return deref(calls.id(a))
}

// A certificate and a CA certificate that one service uses are deleted at
// the same time: each detaches itself by writing back the service as it
// read it, so the second write names the certificate the first one let go.
func TestDetachingFromAServiceThatChangedMeanwhile(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	cert, key := testKeyPair(t, "client.example.com")
	certID := created(t, s, p, certificateCalls, components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: cert, Key: key}))
	caID := created(t, s, p, caCertificateCalls, components.CACertificate{Cert: cert})
	read, err := serviceCalls.doCreate(t.Context(), s.api, p, components.Service{
		Name: ptr("svc"), Host: "svc.example.com", Protocol: components.ServiceProtocolHTTPS.ToPointer(),
		ClientCertificate: &components.ClientCertificate{ID: &certID}, CaCertificates: []string{caID},
	})
	if err != nil {
		t.Fatal(err)
	}

	// The CA certificate's delete read the service (read); meanwhile the
	// certificate's delete detached it and went.
	if err := deleteCertificate(t.Context(), s.api, p, certID); err != nil {
		t.Fatalf("deleting the certificate: %v", err)
	}
	if err := detachService(t.Context(), s.api, p, *read, withoutCACertificate(caID)); err != nil {
		t.Fatalf("detaching the CA certificate from what was read before: %v", err)
	}
	if n := refusals(s, "upsert-service"); n != 1 {
		t.Fatalf("Konnect refused %d writes of the service as read before, want 1", n)
	}
	got, err := serviceCalls.doGet(t.Context(), s.api, p, deref(read.ID))
	if err != nil {
		t.Fatal(err)
	}
	if got.ClientCertificate != nil || len(got.CaCertificates) != 0 {
		t.Fatalf("service uses client certificate %v and CA certificates %v, want neither", got.ClientCertificate, got.CaCertificates)
	}
	if deref(got.Name) != "svc" || got.Host != "svc.example.com" || deref(got.Protocol) != components.ServiceProtocolHTTPS {
		t.Fatalf("detaching changed the rest of the service: %+v", got)
	}
	if err := deleteCACertificate(t.Context(), s.api, p, caID); err != nil {
		t.Fatalf("deleting the CA certificate: %v", err)
	}
	if _, err := caCertificateCalls.doGet(t.Context(), s.api, p, caID); !konnect.IsNotFound(err) {
		t.Fatalf("the CA certificate is still there: %v", err)
	}
}

// A certificate in use is deleted once Konnect refused: its SNIs go with
// it, the services and upstreams that present it are detached and stay.
func TestDeletingACertificateInUseClearsTheWayFirst(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	cert, key := testKeyPair(t, "in-use.example.com")
	certID := created(t, s, p, certificateCalls, components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: cert, Key: key}))
	otherCert, otherKey := testKeyPair(t, "other.example.com")
	otherID := created(t, s, p, certificateCalls, components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: otherCert, Key: otherKey}))
	under := func(id string) controller.Placement {
		return controller.Placement{ControlPlaneID: p.ControlPlaneID, ParentID: id}
	}
	created(t, s, under(certID), sniCalls, components.SNIWithoutParents{Name: "a.example.com"})
	created(t, s, under(certID), sniCalls, components.SNIWithoutParents{Name: "b.example.com"})
	keptSNI := created(t, s, under(otherID), sniCalls, components.SNIWithoutParents{Name: "c.example.com"})
	serviceID := created(t, s, p, serviceCalls, components.Service{
		Name: ptr("svc"), Host: "svc.example.com", Protocol: components.ServiceProtocolHTTPS.ToPointer(), ClientCertificate: &components.ClientCertificate{ID: &certID},
	})
	upstreamID := created(t, s, p, upstreamCalls, components.Upstream{
		Name: "up", Algorithm: components.UpstreamAlgorithmLeastConnections.ToPointer(), ClientCertificate: &components.UpstreamClientCertificate{ID: &certID},
	})

	if err := deleteCertificate(t.Context(), s.api, p, certID); err != nil {
		t.Fatalf("deleting the certificate: %v", err)
	}
	if n := refusals(s, "delete-certificate"); n != 1 {
		t.Fatalf("Konnect refused %d deletes, want 1 (the certificate was in use)", n)
	}
	if _, err := certificateCalls.doGet(t.Context(), s.api, p, certID); !konnect.IsNotFound(err) {
		t.Fatalf("the certificate is still there: %v", err)
	}
	if left, err := sniCalls.doList(t.Context(), s.api, under(otherID)); err != nil || len(left) != 1 || deref(left[0].ID) != keptSNI {
		t.Fatalf("the other certificate's SNIs: %v, %v; want only %s", left, err, keptSNI)
	}
	svc, err := serviceCalls.doGet(t.Context(), s.api, p, serviceID)
	if err != nil || svc.ClientCertificate != nil || deref(svc.Name) != "svc" {
		t.Fatalf("service %+v, %v; want it kept without its client certificate", svc, err)
	}
	up, err := upstreamCalls.doGet(t.Context(), s.api, p, upstreamID)
	if err != nil || up.ClientCertificate != nil || deref(up.Algorithm) != components.UpstreamAlgorithmLeastConnections {
		t.Fatalf("upstream %+v, %v; want it kept without its client certificate", up, err)
	}
}

// A certificate nothing uses is deleted at the first attempt.
func TestDeletingAnUnusedCertificateTakesOneCall(t *testing.T) {
	s := startSimulator(t)
	p := s.controlPlane(t, "cp")
	cert, key := testKeyPair(t, "unused.example.com")
	certID := created(t, s, p, certificateCalls, components.CreateCertificateRequestCertificateRequest2(components.CertificateRequest2{Cert: cert, Key: key}))
	if err := deleteCertificate(t.Context(), s.api, p, certID); err != nil || refusals(s, "delete-certificate") != 0 {
		t.Fatalf("delete: %v, %d refusals", err, refusals(s, "delete-certificate"))
	}
	if _, err := certificateCalls.doGet(t.Context(), s.api, p, certID); !konnect.IsNotFound(err) {
		t.Fatalf("the certificate is still there: %v", err)
	}
}

func TestWithoutCACertificateKeepsTheOthers(t *testing.T) {
	s := components.Service{CaCertificates: []string{"a", "b", "c"}}
	if !withoutCACertificate("b")(&s) || !slices.Equal(s.CaCertificates, []string{"a", "c"}) {
		t.Fatalf("CA certificates %v", s.CaCertificates)
	}
	if withoutCACertificate("x")(&s) {
		t.Fatal("a service that does not trust the CA certificate is written")
	}
}
