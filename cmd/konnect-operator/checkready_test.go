package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCheckReady: the helm test's check waits for a 200 from /readyz, and
// fails, saying what it last heard, when none comes in time.
func TestCheckReady(t *testing.T) {
	var asked atomic.Int32
	readyAfterTwo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if asked.Add(1) < 2 {
			http.Error(w, "caches have not synced yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer readyAfterTwo.Close()
	neverReady := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "caches have not synced yet", http.StatusServiceUnavailable)
	}))
	defer neverReady.Close()

	for _, tt := range []struct {
		name, url string
		timeout   time.Duration
		wantErr   bool
		wantOut   string
	}{
		{"ready on the second answer", readyAfterTwo.URL + "/readyz", 10 * time.Second, false, "200 ok"},
		{"never ready", neverReady.URL + "/readyz", time.Second, true, "503 caches have not synced yet"},
		{"nothing listening", "http://127.0.0.1:1/readyz", time.Second, true, "connection refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := checkReady(t.Context(), &out, tt.url, tt.timeout)
			if tt.wantErr != (err != nil) || (err != nil && !errors.Is(err, errNotReady)) {
				t.Errorf("checkReady = %v, want an error: %v (errNotReady)", err, tt.wantErr)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("checkReady printed %q, want it to say %q", out.String(), tt.wantOut)
			}
		})
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("the server that gets ready was asked %d times, want 2", n)
	}
}
