package konnect

import (
	"context"
	"encoding/pem"
	"errors"
	"github.com/Kong/sdk-konnect-go/models/components"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	clocktesting "k8s.io/utils/clock/testing"
)

const (
	orgA = "d99c041a-c7cf-46a2-bf3a-44bb5f75400e"
	orgB = "0f2b9d8c-0000-4000-8000-000000000000"
)

func TestClientFactoryReusesOneClientPerServerAndToken(t *testing.T) {
	f := NewClientFactory(Options{})
	get := func(server, token string) *Client {
		t.Helper()
		c, err := f.Client(server, token)
		if err != nil {
			t.Fatalf("Client(%q): %v", server, err)
		}
		return c
	}
	first := get("eu.api.konghq.com", "kpat_a")
	if again := get("https://EU.api.konghq.com/", "kpat_a"); again != first {
		t.Error("the same server (written differently) and token gave a second client")
	}
	if other := get("eu.api.konghq.com", "kpat_b"); other == first {
		t.Error("another token shares the client")
	}
	if other := get("us.api.konghq.com", "kpat_a"); other == first {
		t.Error("another server shares the client")
	}
	if first.ServerURL() != "https://eu.api.konghq.com" {
		t.Errorf("ServerURL() = %q", first.ServerURL())
	}
	f.Forget("https://eu.api.konghq.com", "kpat_a")
	if fresh := get("eu.api.konghq.com", "kpat_a"); fresh == first {
		t.Error("Forget kept the client")
	}
	if _, err := f.Client("http://eu.api.konghq.com", "kpat_a"); err == nil {
		t.Error("http server URL accepted")
	}
	if _, err := f.Client("eu.api.konghq.com", ""); err == nil {
		t.Error("empty token accepted")
	}
}

func meHandler(org string) func(request) reply {
	return func(r request) reply {
		if r.Path == "/v3/organizations/me" {
			return reply{Status: 200, Body: `{"id":"` + org + `","name":"org"}`}
		}
		return reply{Status: 200, Body: `{"id":"` + testID + `","host":"h"}`}
	}
}

func TestRequestsCarryTheTokenAndUserAgent(t *testing.T) {
	fake := newFakeKonnect(t, meHandler(orgA))
	c := fake.client(t, Options{UserAgent: "konnect-operator/test"})
	if _, err := c.Me(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := fake.received()[0].Header
	if auth := got.Get("Authorization"); auth != "Bearer "+testToken {
		t.Errorf("Authorization = %q, want the bearer token", auth)
	}
	if ua := got.Get("User-Agent"); ua != "konnect-operator/test" {
		t.Errorf("User-Agent = %q", ua)
	}
	if c.OrganizationID() != orgA {
		t.Errorf("OrganizationID() = %q, want %q", c.OrganizationID(), orgA)
	}
}

func TestClientsOfOneOrganizationShareItsLimiter(t *testing.T) {
	clk := clocktesting.NewFakeClock(epoch)
	fakeA := newFakeKonnect(t, meHandler(orgA))
	fakeB := newFakeKonnect(t, meHandler(orgB))
	pool := fakeA.pool()
	pool.AddCert(fakeB.srv.Certificate())
	f := NewClientFactory(Options{RootCAs: pool, Clock: clk, RequestsPerSecond: 1000, Burst: 1000})
	client := func(fake *fakeKonnect, token string) *Client {
		c, err := f.Client(fake.srv.URL, token)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a1, a2, b := client(fakeA, "kpat_1"), client(fakeA, "kpat_2"), client(fakeB, "kpat_3")
	if a1.limiter() == a2.limiter() {
		t.Fatal("two tokens share a limiter before their organisation is known")
	}
	for _, c := range []*Client{a1, a2, b} {
		if _, err := c.Me(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if a1.limiter() != a2.limiter() {
		t.Fatal("two tokens of one organisation do not share its limiter")
	}
	if a1.limiter() == b.limiter() {
		t.Fatal("two organisations share a limiter")
	}

	// A 429 answered to one client pauses the other.
	a1.limiter().observe(http.StatusTooManyRequests, http.Header{"Retry-After": {"30"}})
	sent := len(fakeA.received())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := sdkCalls(a2).getService(ctx, testCP, testID)
	if delay, limited := IsRateLimited(err); !limited || delay != 30*time.Second {
		t.Fatalf("call during another client's 429 = %v, want RateLimitedError with 30s", err)
	}
	if !strings.HasPrefix(err.Error(), "get service: ") {
		t.Errorf("limiter error %q does not name the operation", err)
	}
	if len(fakeA.received()) != sent {
		t.Fatal("a request went out during the pause")
	}
	done := make(chan error, 1)
	go func() {
		done <- sdkCalls(a2).getService(context.Background(), testCP, testID)
	}()
	waitUntil(t, "the call to wait for the pause", func() bool { return clk.Waiters() == 1 })
	clk.Step(30 * time.Second)
	if err := <-done; err != nil {
		t.Fatalf("call after the pause: %v", err)
	}
}

func TestErrorsThroughTheClient(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		header    http.Header
		body      string
		wantClass string
		wantDelay time.Duration
	}{
		{name: "404", status: 404, body: `{"message":"Not found"}`, wantClass: "NotFound"},
		{name: "409", status: 409, body: `{"status":409,"title":"Conflict","detail":"exists"}`, wantClass: "Conflict"},
		{name: "400 unique", status: 400, body: `{"code":3,"message":"data constraint error"}`, wantClass: "Conflict"},
		{name: "400 validation", status: 400, body: `{"code":3,"message":"validation error","details":[{"field":"host","messages":["required"]}]}`, wantClass: "InvalidInput"},
		{name: "401", status: 401, body: `{"message":"Unauthorized","status":401}`, wantClass: "Auth"},
		{name: "403", status: 403, body: `{"status":403,"title":"Forbidden","detail":"no"}`, wantClass: "Auth"},
		{name: "429", status: 429, header: http.Header{"Retry-After": {"3"}}, body: `{"message":"API rate limit exceeded"}`, wantClass: "RateLimited", wantDelay: 3 * time.Second},
		{name: "502", status: 502, body: `bad gateway`, wantClass: "Transient"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeKonnect(t, func(request) reply { return reply{Status: tt.status, Header: tt.header, Body: tt.body} })
			_, err := sdkCalls(fake.client(t, Options{Clock: clocktesting.NewFakeClock(epoch)})).createService(context.Background(), testCP, components.Service{Host: "h"})
			if got := errorClass(err); got != tt.wantClass {
				t.Fatalf("class = %s, want %s (%v)", got, tt.wantClass, err)
			}
			if delay, _ := IsRateLimited(err); delay != tt.wantDelay {
				t.Errorf("delay = %v, want %v", delay, tt.wantDelay)
			}
			if statusOf(err) != tt.status {
				t.Errorf("status = %d, want %d", statusOf(err), tt.status)
			}
		})
	}
}

func TestTransportFailures(t *testing.T) {
	hanging := newFakeKonnect(t, func(r request) reply {
		select {
		case <-r.Context.Done():
		case <-time.After(5 * time.Second):
		}
		return reply{Abort: true}
	})
	closedAddr := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		return addr
	}()
	untrusted := newFakeKonnect(t, nil)
	tests := []struct {
		name     string
		client   func() *Client
		ctx      func() (context.Context, context.CancelFunc)
		check    func(err error) bool
		wantText string
	}{
		{
			name:   "a request that outlasts the timeout is transient",
			client: func() *Client { return hanging.client(t, Options{Timeout: 100 * time.Millisecond}) },
			check:  IsTransient, wantText: "get service: transient error: request timed out",
		},
		{
			name: "a refused connection is transient",
			client: func() *Client {
				c, err := NewClientFactory(Options{}).Client(closedAddr, testToken)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			check: IsTransient, wantText: "get service: transient error: connection refused",
		},
		{
			name: "an untrusted certificate is not transient",
			client: func() *Client {
				c, err := NewClientFactory(Options{}).Client(untrusted.srv.URL, testToken)
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
			check:    func(err error) bool { return err != nil && !IsTransient(err) },
			wantText: "get service: TLS certificate of the server is not trusted",
		},
		{
			name:   "a cancelled context is reported as such",
			client: func() *Client { return hanging.client(t, Options{}) },
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, func() {}
			},
			check:    func(err error) bool { return errors.Is(err, context.Canceled) && !IsTransient(err) },
			wantText: "get service: context canceled",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.client()
			var texts []string
			for range 2 {
				ctx, cancel := context.WithCancel(context.Background())
				if tt.ctx != nil {
					ctx, cancel = tt.ctx()
				}
				err := sdkCalls(c).getService(ctx, testCP, testID)
				cancel()
				if !tt.check(err) {
					t.Fatalf("error %v (%T) is not classified as expected", err, err)
				}
				texts = append(texts, err.Error())
			}
			if !strings.HasPrefix(texts[0], tt.wantText) {
				t.Errorf("text = %q, want it to start with %q", texts[0], tt.wantText)
			}
			if texts[0] != texts[1] {
				t.Errorf("text changed between attempts: %q then %q", texts[0], texts[1])
			}
		})
	}
}

func TestMetricsRecordRequestsByOrganization(t *testing.T) {
	reg := prometheus.NewRegistry()
	metrics := NewMetrics(reg)
	fake := newFakeKonnect(t, func(r request) reply {
		switch {
		case r.Path == "/v3/organizations/me":
			return reply{Status: 200, Body: `{"id":"` + orgA + `","name":"org"}`}
		case r.Method == "POST":
			return reply{Status: 201, Header: http.Header{"Ratelimit-Remaining": {"41"}}, Body: `{"id":"` + testID + `","host":"h"}`}
		case r.Method == "DELETE":
			return reply{Status: 429, Header: http.Header{"Retry-After": {"1"}, "Ratelimit-Remaining": {"0"}}}
		default:
			return reply{Status: 404, Header: http.Header{"Ratelimit-Remaining": {"17"}}, Body: `{"message":"Not found"}`}
		}
	})
	c := fake.client(t, Options{Metrics: metrics, Clock: clocktesting.NewFakeClock(epoch)})
	ctx := context.Background()
	calls := sdkCalls(c)
	// Before Me the organisation is unknown, and so is Me's own request's.
	if _, err := calls.createService(ctx, testCP, components.Service{Host: "h"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Me(ctx); err != nil {
		t.Fatal(err)
	}
	if err := calls.getService(ctx, testCP, testID); !IsNotFound(err) {
		t.Fatalf("get = %v, want not found", err)
	}
	remainingAfterGet := gaugeValue(t, metrics.remaining.WithLabelValues(orgA))
	if err := calls.deleteService(ctx, testCP, testID); err == nil {
		t.Fatal("delete answered 429 succeeded")
	}
	counts := map[[4]string]float64{
		{OrganizationUnknown, "create", "service", "201"}:   1,
		{OrganizationUnknown, "get", "organization", "200"}: 1,
		{orgA, "get", "service", "404"}:                     1,
		{orgA, "delete", "service", "429"}:                  1,
		{orgA, "create", "service", "201"}:                  0,
	}
	for labels, want := range counts {
		if got := counterValue(t, metrics.requests.WithLabelValues(labels[:]...)); got != want {
			t.Errorf("%s%v = %v, want %v", MetricRequests, labels, got, want)
		}
	}
	if got := counterValue(t, metrics.rateLimited.WithLabelValues(orgA, "delete", "service")); got != 1 {
		t.Errorf("%s = %v, want 1", MetricRateLimited, got)
	}
	if remainingAfterGet != 17 {
		t.Errorf("%s{organization=%q} after the 404 = %v, want its header's 17", MetricRemaining, orgA, remainingAfterGet)
	}
	if got := gaugeValue(t, metrics.remaining.WithLabelValues(orgA)); got != 0 {
		t.Errorf("%s{organization=%q} after the 429 = %v, want its header's 0", MetricRemaining, orgA, got)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	samples := map[string]uint64{}
	organizations := map[string]map[string]bool{}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			if h := m.GetHistogram(); h != nil {
				samples[mf.GetName()] += h.GetSampleCount()
			} else {
				samples[mf.GetName()]++
			}
			for _, l := range m.GetLabel() {
				if l.GetName() == "organization" {
					if organizations[mf.GetName()] == nil {
						organizations[mf.GetName()] = map[string]bool{}
					}
					organizations[mf.GetName()][l.GetValue()] = true
				}
			}
		}
	}
	// Four requests: four limiter waits and four durations. Five request
	// series: the four answered, and the zero one the check above made.
	for name, want := range map[string]uint64{MetricDuration: 4, MetricLimiterWait: 4, MetricRequests: 5, MetricRateLimited: 1, MetricRemaining: 1} {
		if samples[name] != want {
			t.Errorf("%s has %d samples, want %d", name, samples[name], want)
		}
	}
	// The token never becomes a label value.
	for name, orgs := range organizations {
		for org := range orgs {
			if org != orgA && org != OrganizationUnknown {
				t.Errorf("%s has organization=%q, want only %q or %q", name, org, orgA, OrganizationUnknown)
			}
		}
	}
	if organizations[MetricRemaining][OrganizationUnknown] {
		t.Errorf("%s was set for the unknown organisation (the POST before Me)", MetricRemaining)
	}
}

func gaugeValue(t *testing.T, g prometheus.Gauge) float64 {
	t.Helper()
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

func TestLoadCAFile(t *testing.T) {
	fake := newFakeKonnect(t, meHandler(orgA))
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: fake.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool, err := LoadCAFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fake.client(t, Options{RootCAs: pool}).Me(context.Background()); err != nil {
		t.Fatalf("client trusting the CA file: %v", err)
	}
	if _, err := LoadCAFile(filepath.Join(dir, "missing.pem")); err == nil {
		t.Error("missing file accepted")
	}
	empty := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(empty, []byte("no certificates here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCAFile(empty); err == nil {
		t.Error("file without certificates accepted")
	}
}

// TestSSLCertFileIsHonoured runs itself again in a child process whose
// SSL_CERT_FILE names the fake server's CA (the system pool is read once per
// process, so the variable must be set before the process starts) and checks
// that both the default pool and a LoadCAFile pool trust it.
func TestSSLCertFileIsHonoured(t *testing.T) {
	if url := os.Getenv("KONNECT_TEST_SSL_CERT_FILE_URL"); url != "" {
		for _, tt := range []struct {
			name string
			opts func() Options
		}{
			{name: "system pool", opts: func() Options { return Options{} }},
			{name: "LoadCAFile pool", opts: func() Options {
				pool, err := LoadCAFile(os.Getenv("KONNECT_TEST_EXTRA_CA"))
				if err != nil {
					t.Fatal(err)
				}
				return Options{RootCAs: pool}
			}},
		} {
			c, err := NewClientFactory(tt.opts()).Client(url, testToken)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Me(context.Background()); err != nil {
				t.Errorf("%s does not trust SSL_CERT_FILE: %v", tt.name, err)
			}
		}
		return
	}
	fake := newFakeKonnect(t, meHandler(orgA))
	other := newFakeKonnect(t, nil)
	dir := t.TempDir()
	write := func(name string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSSLCertFileIsHonoured$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		"SSL_CERT_FILE="+write("system.pem", fake.srv.Certificate().Raw),
		"KONNECT_TEST_EXTRA_CA="+write("extra.pem", other.srv.Certificate().Raw),
		"KONNECT_TEST_SSL_CERT_FILE_URL="+fake.srv.URL)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
