package operator

import (
	"context"
	"crypto/x509"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestPlainHTTPMetricsAreServedOnLoopbackOnly(t *testing.T) {
	cases := []struct {
		addr, want string
		refused    bool
	}{
		{addr: ":8080", want: "127.0.0.1:8080"},
		{addr: "127.0.0.1:9090", want: "127.0.0.1:9090"},
		{addr: "localhost:8080", want: "localhost:8080"},
		{addr: "[::1]:8080", want: "[::1]:8080"},
		{addr: "0.0.0.0:8080", refused: true},
		{addr: "10.1.2.3:8080", refused: true},
		{addr: "metrics.example.com:8080", refused: true},
		{addr: "8080", refused: true},
	}
	for _, c := range cases {
		t.Run(c.addr, func(t *testing.T) {
			got, err := loopbackAddress(c.addr)
			if c.refused {
				if err == nil {
					t.Fatalf("plain HTTP on %q was accepted as %q", c.addr, got)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("loopbackAddress(%q) = %q, %v; want %q", c.addr, got, err, c.want)
			}
		})
	}
}

func TestTheSelfSignedMetricsCertificateServesLoopback(t *testing.T) {
	cert, err := servingCertificate("", "")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"localhost", "127.0.0.1"} {
		if err := leaf.VerifyHostname(host); err != nil {
			t.Errorf("the certificate does not serve %s: %v", host, err)
		}
	}
	if _, err := servingCertificate("cert.pem", ""); err == nil {
		t.Error("a certificate file without its key was accepted")
	}
}

func TestProfilesAreServedOnLoopbackOnly(t *testing.T) {
	if _, err := profilerServer("0.0.0.0:0"); err == nil {
		t.Fatal("profiles were served on every interface")
	}
	s, err := profilerServer("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.serve(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	res, err := http.Get("http://" + s.listener.Addr().String() + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile:") {
		t.Errorf("GET /debug/pprof/goroutine answered %s:\n%.200s", res.Status, body)
	}
}
