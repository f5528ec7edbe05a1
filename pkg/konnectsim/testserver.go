package konnectsim

import (
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"testing"
)

// TestServer is a simulator served over HTTPS on loopback for one test.
type TestServer struct {
	*Server
	// URL is the https base URL, e.g. https://127.0.0.1:43121.
	URL string
	// CAPool and CAPEM are what a client must trust.
	CAPool *x509.CertPool
	CAPEM  []byte
}

// Start serves a simulator for the test: an httptest TLS server with a
// fresh self-signed certificate, closed at cleanup. At cleanup the test
// fails for every OpenAPI violation that no one claimed with
// TakeViolations. A simulator that cannot find the OpenAPI document fails
// the test.
func Start(t testing.TB, opts Options) *TestServer {
	t.Helper()
	return StartFor(t, opts)
}

// StartFor is Start with a certificate that also names hosts, so that a
// client that dials the simulator for them (Konnect's own host names, as
// published manifests name them) verifies it.
func StartFor(t testing.TB, opts Options, hosts ...string) *TestServer {
	t.Helper()
	sim, err := New(opts)
	if err != nil {
		t.Fatalf("konnectsim: %v", err)
	}
	cert, caPEM, err := SelfSignedCertificate(hosts...)
	if err != nil {
		t.Fatalf("konnectsim: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	srv := httptest.NewUnstartedServer(sim)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(func() {
		sim.Close()
		srv.Close()
		for _, v := range sim.TakeViolations() {
			t.Errorf("konnectsim: %v", v)
		}
	})
	return &TestServer{Server: sim, URL: srv.URL, CAPool: pool, CAPEM: caPEM}
}
