package konnect

import (
	"context"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

const (
	testToken = "kpat_testtoken0123456789"
	// testCP and testID are a control plane's and an entity's IDs.
	testCP = "5f1a2b3c-0000-4000-8000-00000000c0de"
	testID = "5f1a2b3c-0000-4000-8000-0000000000e1"
)

// request is what the fake Konnect received.
type request struct {
	Context context.Context
	Method  string
	Path    string
	Query   map[string][]string
	Header  http.Header
	Body    []byte
}

// reply is what the fake Konnect answers.
type reply struct {
	// Abort drops the connection without an answer.
	Abort  bool
	Status int
	Header http.Header
	Body   string
}

// fakeKonnect is an HTTPS server that records requests and answers with
// whatever the test's handler says.
type fakeKonnect struct {
	srv    *httptest.Server
	handle func(request) reply

	mu       sync.Mutex
	requests []request
}

func newFakeKonnect(t *testing.T, handle func(request) reply) *fakeKonnect {
	t.Helper()
	f := &fakeKonnect{handle: handle}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := request{Context: r.Context(), Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
		f.mu.Lock()
		f.requests = append(f.requests, req)
		f.mu.Unlock()
		rep := reply{Status: http.StatusOK, Body: "{}"}
		if f.handle != nil {
			rep = f.handle(req)
		}
		if rep.Abort {
			panic(http.ErrAbortHandler)
		}
		for k, v := range rep.Header {
			w.Header()[k] = v
		}
		if rep.Body != "" && w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, rep.Body)
	}))
	// Handshakes refused by clients that do not trust the server are part
	// of some tests; keep them out of the test log.
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeKonnect) pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(f.srv.Certificate())
	return pool
}

// client returns a client of a new factory that trusts the fake.
func (f *fakeKonnect) client(t *testing.T, opts Options) *Client {
	t.Helper()
	if opts.RootCAs == nil {
		opts.RootCAs = f.pool()
	}
	if opts.RequestsPerSecond == 0 {
		opts.RequestsPerSecond = 1e6
		opts.Burst = 1e6
	}
	c, err := NewClientFactory(opts).Client(f.srv.URL, testToken)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fakeKonnect) received() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.requests...)
}
