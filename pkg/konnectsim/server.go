package konnectsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"k8s.io/utils/clock"
)

// Options configures a simulator.
type Options struct {
	// Tokens maps each accepted bearer token to its organisation. The value
	// is the organisation's id when it is a UUID, else its name (an id is
	// derived from it). Tokens sharing a value share an organisation.
	// Unknown tokens get 401.
	Tokens map[string]string
	// SpecPath is the OpenAPI document to validate against. "" means
	// $KONNECT_OPENAPI_SPEC, else the openapi.yaml of Kong's SDK module
	// that the project requires; New fails when there is none.
	SpecPath string
	// NoValidation turns validation off (only the simulator's own
	// benchmarks of its handlers do).
	NoValidation bool
	// RateLimitPerMinute is each organisation's request budget per minute
	// window; 0 means unlimited (and no RateLimit headers).
	RateLimitPerMinute int
	// OmitRetryAfter leaves Retry-After out of 429s, as Konnect sometimes
	// does, so clients must fall back to RateLimit-Reset.
	OmitRetryAfter bool
	// Logger receives one line per request (never a token); nil = silent.
	Logger *slog.Logger
	// Clock drives timestamps and rate-limit windows; nil = the real clock.
	Clock clock.PassiveClock
	// RequestLogSize bounds the in-memory request log; 0 = 10000.
	RequestLogSize int
	// CloudGateways configures the Dedicated Cloud Gateway API: how long
	// provisioning and termination take, and the provider accounts.
	CloudGateways CloudGatewayOptions
	// Latency delays every Konnect request before it is handled (never the
	// simulator's own /_sim/ API), as the way to Konnect and back does:
	// Konnect answers 100 ms and more after a request is sent. It is not a
	// fault, so that a test's own faults leave it: clearing or replacing
	// them does not remove it, and a fault's latency comes on top of it.
	Latency time.Duration
}

// Server is an in-memory Konnect. It is an http.Handler; serve it over TLS
// (httptest.NewTLSServer, or cmd/konnect-simulator).
type Server struct {
	opts      Options
	clock     clock.PassiveClock
	store     *store
	tokensMu  sync.RWMutex
	tokens    map[string]string // token -> organisation id
	mux       *http.ServeMux
	routes    []*route
	validator *validator
	limiter   *rateLimiter
	faults    *Faults
	hostile   hostility
	stats     *stats
	closeOnce sync.Once
	closed    chan struct{}
}

// New builds a simulator. It fails when the OpenAPI document cannot be found
// or loaded, unless validation is off.
func New(opts Options) (*Server, error) {
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	s := &Server{
		opts:   opts,
		clock:  clk,
		store:  newStore(),
		tokens: map[string]string{},
		mux:    http.NewServeMux(),
		faults: newFaults(),
		stats:  newStats(opts.RequestLogSize),
		closed: make(chan struct{}),
	}
	s.limiter = newRateLimiter(opts.RateLimitPerMinute, clk)
	for token, ref := range opts.Tokens {
		s.tokens[token] = s.store.addOrg(ref, clk.Now()).id
	}
	s.registerRoutes()
	if !opts.NoValidation {
		path, err := findSpec(opts.SpecPath)
		if err != nil {
			return nil, err
		}
		if s.validator, err = newValidator(path, s.servedOperations()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// servedOperations names the operations the simulator serves, "METHOD
// /template".
func (s *Server) servedOperations() map[string]bool {
	served := map[string]bool{}
	for _, rt := range s.routes {
		served[rt.key()] = true
	}
	return served
}

// Validating reports whether requests and responses are checked against
// the OpenAPI document, and which file it is.
func (s *Server) Validating() (bool, string) {
	if s.validator == nil {
		return false, ""
	}
	return true, s.validator.path
}

// Close releases requests that a fault keeps hanging, so that servers
// wrapping the simulator can shut down.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closed) })
}

// ServeHTTP serves Konnect's API, plus the simulator's own inspection API
// under /_sim/ (never validated nor rate limited).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, inspectPrefix) {
		s.serveInspect(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// reqCtx carries one request through the pipeline. Handlers write into a
// buffer so that the response can be validated before it is sent.
type reqCtx struct {
	s      *Server
	r      *http.Request
	route  *route
	body   []byte
	trace  string
	org    *organization
	status int
	header http.Header
	out    bytes.Buffer
	// validationInput is the request's operation in the OpenAPI document,
	// found once and used for both request and response validation.
	validationInput *openapi3filter.RequestValidationInput
	// hostile marks an answer of Hostile's, which is not validated;
	// stream, when set, writes its body instead of out.
	hostile bool
	stream  func(io.Writer)
}

func (rc *reqCtx) writeJSON(status int, contentType string, v any) {
	rc.status = status
	rc.header.Set("Content-Type", contentType)
	rc.out.Reset()
	if err := json.NewEncoder(&rc.out).Encode(v); err != nil {
		panic(fmt.Sprintf("konnectsim: cannot encode response: %v", err))
	}
}

func (rc *reqCtx) noContent() {
	rc.status = http.StatusNoContent
	rc.header.Del("Content-Type")
	rc.out.Reset()
}

// decodeBody parses a JSON object body; a failure has already been answered.
func (rc *reqCtx) decodeBody() (map[string]any, bool) {
	if len(bytes.TrimSpace(rc.body)) == 0 {
		rc.validationFailed([]fieldError{errEntity("request body is required")})
		return nil, false
	}
	var body map[string]any
	if err := json.Unmarshal(rc.body, &body); err != nil || body == nil {
		rc.validationFailed([]fieldError{errEntity("invalid JSON body: expected an object")})
		return nil, false
	}
	return body, true
}

// maxBody bounds request bodies; Konnect's own limit is of this order.
const maxBody = 8 << 20

// serveRoute runs one API request: faults, authentication, rate limit,
// request validation, the handler, response validation, then the write.
func (s *Server) serveRoute(rt *route, w http.ResponseWriter, r *http.Request) {
	start := s.clock.Now()
	rc := &reqCtx{s: s, r: r, route: rt, trace: newTraceID(), header: http.Header{}, status: http.StatusOK}
	s.stats.count(rt.key())
	defer func() {
		// A panic is a simulator bug: answer 500 and record it where tests look.
		if p := recover(); p != nil {
			s.stats.violation(fmt.Errorf("konnectsim: %s %s: handler panic: %v", r.Method, r.URL.Path, p))
			rc.injectedFailure(http.StatusInternalServerError)
		}
		s.finish(rc, w, start)
	}()

	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		rc.validationFailed([]fieldError{errEntity("cannot read request body")})
		return
	}
	rc.body = body

	orgID, known := s.organizationOf(bearerToken(r))
	fault := s.faults.pick(rt, orgID)
	latency := s.opts.Latency + fault.latency
	if !s.await(r, fault.until) || latency > 0 && !s.sleep(r, latency) {
		rc.status = 0 // the client is gone
		return
	}
	if fault.hang && !fault.afterEffect {
		s.hang(rc, fault.hangFor)
		return
	}

	if !known {
		rc.unauthorized()
		return
	}
	s.store.mu.RLock()
	rc.org = s.store.orgs[orgID]
	s.store.mu.RUnlock()

	if fault.status == http.StatusTooManyRequests && !fault.afterEffect {
		// Konnect's connection-level limiter: it answers before the
		// organisation's budget is counted, and names no delay.
		rc.rateLimited()
		return
	}
	if retryAfter, forced := s.faults.take429(); forced {
		if s.opts.RateLimitPerMinute > 0 {
			writeRateLimitHeaders(rc.header, s.opts.RateLimitPerMinute, 0, retryAfter)
		}
		s.writeRateLimited(rc, retryAfter)
		return
	}
	if ok, retryAfter := s.limiter.allow(orgID, rc.header); !ok {
		s.writeRateLimited(rc, retryAfter)
		return
	}
	if fault.status != 0 && !fault.afterEffect {
		rc.injectedFailure(fault.status)
		return
	}
	if s.validator != nil {
		if errs := s.validator.request(rc); len(errs) > 0 {
			rc.validationFailed(errs)
			return
		}
	}
	if h, unstall := s.hostilityAndUnstall(); h != (Hostile{}) && s.answerHostile(rc, h, unstall) {
		return
	}
	rt.handler(rc)
	if fault.afterEffect {
		if fault.hang {
			s.hang(rc, fault.hangFor)
			return
		}
		if fault.status != 0 {
			rc.injectedFailure(fault.status)
		}
	}
}

// bearerToken returns the token of an "Authorization: Bearer …" header.
func bearerToken(r *http.Request) string {
	scheme, token, found := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

func (s *Server) writeRateLimited(rc *reqCtx, retryAfter time.Duration) {
	if !s.opts.OmitRetryAfter {
		secs := int((retryAfter + time.Second - 1) / time.Second)
		rc.header.Set("Retry-After", fmt.Sprint(secs))
	}
	rc.rateLimited()
}

// finish validates the response, writes it and records the request.
func (s *Server) finish(rc *reqCtx, w http.ResponseWriter, start time.Time) {
	if rc.status != 0 {
		s.stats.countAnswer(rc.status, rc.header)
		if s.validator != nil && !rc.hostile {
			s.validator.response(rc)
		}
		for k, v := range rc.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rc.status)
		if rc.stream != nil {
			rc.stream(w)
		} else {
			_, _ = w.Write(rc.out.Bytes())
		}
	}
	elapsed := s.clock.Since(start)
	orgID := ""
	if rc.org != nil {
		orgID = rc.org.id
	}
	s.stats.record(RequestRecord{
		Time: start, Method: rc.r.Method, Path: rc.r.URL.Path, Query: rc.r.URL.RawQuery,
		Operation: rc.route.key(), OperationID: rc.route.operationID,
		Organization: orgID, Status: rc.status, Duration: elapsed, TraceID: rc.trace,
		Credential: CredentialOf(bearerToken(rc.r)), UserAgent: rc.r.UserAgent(),
	})
	if s.opts.Logger != nil {
		s.opts.Logger.Info("request", "method", rc.r.Method, "path", rc.r.URL.Path, "operation", rc.route.operationID,
			"org", orgID, "status", rc.status, "duration", elapsed, "trace", rc.trace)
	}
}

// sleep waits d unless the client gives up or the simulator closes first.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closed:
		return false
	}
}

// await waits until every channel of until is closed, unless the client
// gives up or the simulator closes first.
func (s *Server) await(r *http.Request, until []<-chan struct{}) bool {
	if len(until) > 0 {
		s.stats.countGated()
	}
	for _, ch := range until {
		select {
		case <-ch:
		case <-r.Context().Done():
			return false
		case <-s.closed:
			return false
		}
	}
	return true
}

// hang keeps a request unanswered until the client gives up (a timeout on its side),
// the simulator closes, or the optional limit passes; then the gateway
// answers 504. When the client is gone nothing is written.
func (s *Server) hang(rc *reqCtx, limit time.Duration) {
	s.stats.countHang()
	var timeout <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-rc.r.Context().Done():
		rc.status = 0
	case <-s.closed:
		rc.status = 0
	case <-timeout:
		rc.injectedFailure(http.StatusGatewayTimeout)
	}
}

// serveUnknown answers paths that are not part of the API.
func (s *Server) serveUnknown(w http.ResponseWriter, r *http.Request) {
	start := s.clock.Now()
	status := http.StatusNotFound
	if s.opts.Latency > 0 && !s.sleep(r, s.opts.Latency) {
		status = 0 // the client is gone
	}
	s.stats.record(RequestRecord{Time: start, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status,
		Duration: s.clock.Since(start), Credential: CredentialOf(bearerToken(r))})
	if status == 0 {
		return
	}
	w.Header().Set("Content-Type", contentJSON)
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, `{"message":"no Route matched with those values"}`+"\n")
}
