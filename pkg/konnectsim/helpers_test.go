package konnectsim

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

const (
	testToken  = "kpat_testTokenOrgA0000000000000000000000000000000"
	otherToken = "spat_testTokenOrgB0000000000000000000000000000000"
)

// apiClient speaks plain HTTP to a test simulator.
type apiClient struct {
	t     testing.TB
	base  string
	token string
	http  *http.Client
}

// reply is one answer: status, headers and the decoded JSON body (nil for none).
type reply struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func newClient(t testing.TB, ts *TestServer, token string) *apiClient {
	return &apiClient{t: t, base: ts.URL, token: token, http: &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ts.CAPool, MinVersion: tls.VersionTLS12}},
	}}
}

func (c *apiClient) do(method, path string, body any) reply {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	out := reply{status: resp.StatusCode, header: resp.Header, raw: raw}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			c.t.Fatalf("%s %s: body is not a JSON object: %v: %s", method, path, err, raw)
		}
	}
	return out
}

// must asserts the status and returns the body.
func (r reply) must(t testing.TB, status int) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body: %s", r.status, status, r.raw)
	}
	return r.body
}

func startSim(t *testing.T, opts Options) (*TestServer, *apiClient) {
	t.Helper()
	if opts.Tokens == nil {
		opts.Tokens = map[string]string{testToken: "org-a", otherToken: "org-b"}
	}
	ts := Start(t, opts)
	return ts, newClient(t, ts, testToken)
}

// newCP creates a control plane and returns its id.
func (c *apiClient) newCP(name string, extra map[string]any) string {
	c.t.Helper()
	body := map[string]any{"name": name}
	for k, v := range extra {
		body[k] = v
	}
	return c.do("POST", "/v2/control-planes", body).must(c.t, 201)["id"].(string)
}

func coreURL(cp, rest string) string {
	return "/v2/control-planes/" + cp + "/core-entities/" + rest
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
