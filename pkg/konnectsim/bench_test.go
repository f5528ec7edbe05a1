package konnectsim

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// The benchmarks report requests per second ("req/s"); they do not pass or
// fail on time. Handler benchmarks call ServeHTTP directly (the simulator's
// own cost); HTTPS benchmarks go through a TLS server and a keep-alive client.

const benchEntities = 5000

// benchServer returns a simulator with one control plane holding
// benchEntities tagged services.
func benchServer(b *testing.B, validate bool) (*Server, string) {
	b.Helper()
	s, err := New(Options{Tokens: map[string]string{testToken: "bench"}, NoValidation: !validate})
	if err != nil {
		b.Fatal(err)
	}
	if ok, _ := s.Validating(); validate && !ok {
		b.Skip("OpenAPI document not found")
	}
	cp := serve(b, s, "POST", "/v2/control-planes", `{"name":"bench"}`, 201)["id"].(string)
	for i := range benchEntities {
		body := fmt.Sprintf(`{"name":"svc-%d","host":"h%d.example","tags":["all","shard-%d","k8s-uid:%d"]}`, i, i, i%50, i)
		serve(b, s, "POST", coreURL(cp, "services"), body, 201)
	}
	return s, cp
}

func serve(b *testing.B, s *Server, method, path, body string, want int) map[string]any {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	s.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s = %d, want %d: %s", method, path, rec.Code, want, rec.Body.String())
	}
	var out map[string]any
	if rec.Body.Len() > 0 && rec.Body.Bytes()[0] == '{' {
		_ = jsonUnmarshal(rec.Body.Bytes(), &out)
	}
	return out
}

func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// BenchmarkHandler measures single operations against a control plane of
// 5000 services, with and without OpenAPI validation.
func BenchmarkHandler(b *testing.B) {
	for _, validate := range []bool{true, false} {
		s, cp := benchServer(b, validate)
		svc := serve(b, s, "GET", coreURL(cp, "services/svc-42"), "", 200)["id"].(string)
		var n atomic.Int64
		ops := []struct {
			name, method string
			path         func() string
			body         func() string
			status       int
		}{
			{"create-service", "POST", func() string { return coreURL(cp, "services") },
				func() string { return fmt.Sprintf(`{"name":"new-%d","host":"x","tags":["new"]}`, n.Add(1)) }, 201},
			{"get-service", "GET", func() string { return coreURL(cp, "services/"+svc) }, func() string { return "" }, 200},
			{"upsert-service", "PUT", func() string { return coreURL(cp, "services/"+svc) },
				func() string { return `{"name":"svc-42","host":"h.example","tags":["all"]}` }, 200},
			{"list-services-page-100", "GET", func() string { return coreURL(cp, "services?size=100") }, func() string { return "" }, 200},
			{"list-services-by-rare-tag", "GET", func() string { return coreURL(cp, "services?tags=shard-7,all") }, func() string { return "" }, 200},
			{"create-control-plane", "POST", func() string { return "/v2/control-planes" },
				func() string { return fmt.Sprintf(`{"name":"cp-%d","labels":{"k8s-uid":"x"}}`, n.Add(1)) }, 201},
		}
		for _, op := range ops {
			b.Run(fmt.Sprintf("validate=%v/%s", validate, op.name), func(b *testing.B) {
				for b.Loop() {
					serve(b, s, op.method, op.path(), op.body(), op.status)
				}
				reportRate(b)
			})
		}
	}
}

// BenchmarkHTTPSParallel measures the operator's kind of traffic from
// parallel clients over HTTPS with validation on: reads, upserts, look-ups
// by k8s-uid tag and control-plane reads, in equal parts.
func BenchmarkHTTPSParallel(b *testing.B) {
	s, cp := benchServer(b, true)
	srv := httptest.NewTLSServer(s)
	defer srv.Close()
	client := srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	var n atomic.Int64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			var req *http.Request
			switch i % 4 {
			case 0:
				req, _ = http.NewRequest("GET", srv.URL+coreURL(cp, fmt.Sprintf("services/svc-%d", i%benchEntities)), nil)
			case 1:
				req, _ = http.NewRequest("PUT", srv.URL+coreURL(cp, fmt.Sprintf("services/svc-%d", i%benchEntities)),
					bytes.NewBufferString(`{"host":"h.example","tags":["all"]}`))
				req.Header.Set("Content-Type", "application/json")
			case 2:
				req, _ = http.NewRequest("GET", srv.URL+coreURL(cp, fmt.Sprintf("services?tags=k8s-uid:%d", i%benchEntities)), nil)
			default:
				req, _ = http.NewRequest("GET", srv.URL+"/v2/control-planes/"+cp, nil)
			}
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			// Drain the body so the connection is reused (no TLS handshake per request).
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode >= 300 {
				b.Errorf("%s %s = %d", req.Method, req.URL.Path, resp.StatusCode)
				return
			}
		}
	})
	reportRate(b)
	if v := s.Violations(); len(v) > 0 {
		b.Errorf("%d violations, first: %v", len(v), v[0])
	}
}
