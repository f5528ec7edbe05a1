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
	dir := t.TempDir()
	const token = "kpat_secretValueThatMustNotBeLogged"
	cfg := config{listen: "127.0.0.1:0", caOut: filepath.Join(dir, "ca.pem"), tokens: repeated{token + "=acme"}, rateLimit: 10, noValidation: true}
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, logger, func(u string) { urls <- u }) }()
	var base string
	select {
	case base = <-urls:
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("simulator did not start")
	}
	caPEM, err := os.ReadFile(cfg.caOut)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("--ca-out is not a PEM certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	for _, host := range []string{base, strings.Replace(base, "127.0.0.1", "localhost", 1)} {
		req, _ := http.NewRequest("GET", host+"/v3/organizations/me", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", host, err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"name":"acme"`) || resp.Header.Get("RateLimit-Limit") != "10" {
			t.Errorf("GET %s = %d %s", host, resp.StatusCode, body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	if strings.Contains(logs.String(), token) {
		t.Error("a token was logged")
	}
	if !strings.Contains(logs.String(), "get-organizations-me") {
		t.Errorf("requests were not logged: %s", logs.String())
	}
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
