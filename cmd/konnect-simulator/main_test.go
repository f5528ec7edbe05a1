package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLoadTokens(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("# comment\nspat_file=acme\n\nkpat_shared=acme\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens, err := loadTokens([]string{"kpat_flag"}, file)
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 3 || tokens["spat_file"] != "acme" || tokens["kpat_shared"] != "acme" ||
		!strings.HasPrefix(tokens["kpat_flag"], "org-") {
		t.Errorf("tokens = %v", tokens)
	}
	if _, err := loadTokens([]string{"=org"}, ""); err == nil {
		t.Error("a token spec without a token was accepted")
	}
}

// TestServesHTTPSWithWrittenCA: the binary's run loop serves Konnect over
// HTTPS with a self-signed certificate whose PEM it writes to --ca-out, and
// never logs a token.
func TestServesHTTPSWithWrittenCA(t *testing.T) {
	const token = "kpat_secretValueThatMustNotBeLogged"
	cfg := config{listen: "127.0.0.1:0", caOut: filepath.Join(t.TempDir(), "ca.pem"), tokens: repeated{token + "=acme"}, rateLimit: 10, noValidation: true}
	var logs strings.Builder
	base, client, stop := serve(t, cfg, &logs)
	for _, host := range []string{base, strings.Replace(base, "127.0.0.1", "localhost", 1)} {
		status, header, body := get(t, client, host+"/v3/organizations/me", token)
		if status != 200 || !strings.Contains(body, `"name":"acme"`) || header.Get("RateLimit-Limit") != "10" {
			t.Errorf("GET %s = %d %s", host, status, body)
		}
	}
	stop()
	if strings.Contains(logs.String(), token) {
		t.Error("a token was logged")
	}
	if !strings.Contains(logs.String(), "get-organizations-me") {
		t.Errorf("requests were not logged: %s", logs.String())
	}
}

// TestLatencyDelaysEveryAnswerBesideTheFaults: --latency makes every
// Konnect answer that late, a failed one too, and a fault's latency comes
// on top of it.
func TestLatencyDelaysEveryAnswerBesideTheFaults(t *testing.T) {
	const token = "kpat_latency"
	const latency = 50 * time.Millisecond
	cfg := config{listen: "127.0.0.1:0", caOut: filepath.Join(t.TempDir(), "ca.pem"), tokens: repeated{token}, noValidation: true, quiet: true,
		latency: latency, faults: repeated{"get-organizations-me=latency:30ms", "list-control-planes=rate:1,status:503"}}
	base, client, stop := serve(t, cfg, io.Discard)
	defer stop()
	cases := []struct {
		path   string
		status int
		least  time.Duration
	}{
		{"/v3/organizations/me", http.StatusOK, latency + 30*time.Millisecond},
		{"/v2/control-planes", http.StatusServiceUnavailable, latency},
		{"/v2/control-planes/00000000-0000-0000-0000-000000000000", http.StatusNotFound, latency},
	}
	for _, tc := range cases {
		start := time.Now()
		status, _, body := get(t, client, base+tc.path, token)
		if took := time.Since(start); status != tc.status || took < tc.least {
			t.Errorf("GET %s = %d after %v (%s), want %d after at least %v", tc.path, status, took, body, tc.status, tc.least)
		}
	}
}

// serve runs the binary's run loop with cfg, logging to logs, until stop
// is called; it returns the base URL and a client that trusts its --ca-out.
func serve(t *testing.T, cfg config, logs io.Writer) (string, *http.Client, func()) {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(&syncWriter{w: logs}, nil))
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, logger, func(u string) { urls <- u }) }()
	var base string
	select {
	case base = <-urls:
	case err := <-done:
		cancel()
		t.Fatalf("run: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("simulator did not start")
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}
	t.Cleanup(stop)
	caPEM, err := os.ReadFile(cfg.caOut)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("--ca-out is not a PEM certificate")
	}
	return base, &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}, stop
}

// get GETs url with token and returns the answer's status, headers and
// body.
func get(t *testing.T, client *http.Client, url, token string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header, string(body)
}

// syncWriter serialises writes from the server's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
