package konnectsim

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/http"
	"sync"
	"time"
)

// RequestRecord is one entry of the request log. It never holds a token:
// Credential tells requests apart by the token they carried, as a hash.
type RequestRecord struct {
	Time         time.Time     `json:"time"`
	Method       string        `json:"method"`
	Path         string        `json:"path"`
	Query        string        `json:"query,omitempty"`
	Operation    string        `json:"operation,omitempty"`   // "METHOD /template"; "" for unknown paths
	OperationID  string        `json:"operationId,omitempty"` // e.g. "create-service"
	Organization string        `json:"organization,omitempty"`
	Status       int           `json:"status"` // 0 when the client gave up first
	Duration     time.Duration `json:"duration"`
	TraceID      string        `json:"traceId,omitempty"`
	// Credential is CredentialOf the request's bearer token, "" when it
	// carried none: which token reached the server, whether the simulator
	// knows it or not.
	Credential string `json:"credential,omitempty"`
	// UserAgent is the client's, which names the operator process that
	// sent the request.
	UserAgent string `json:"userAgent,omitempty"`
}

// CredentialOf is how the request log names a token: the first 16 hex
// digits of its SHA-256.
func CredentialOf(token string) string {
	if token == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:8])
}

// Served counts the answers that faults and limits are there to provoke,
// so that a test can check that what it injected really happened.
type Served struct {
	// RateLimited are 429s that named a delay (Retry-After or
	// RateLimit-Reset): the organisation's budget, or Force429.
	RateLimited int `json:"rateLimited"`
	// RateLimitedWithoutDelay are 429s with neither header, as Konnect's
	// connection-level limiter answers (a Fault with Status 429).
	RateLimitedWithoutDelay int `json:"rateLimitedWithoutDelay"`
	// ServerErrors are answers with a 5xx status.
	ServerErrors int `json:"serverErrors"`
	// Hangs are requests a fault kept without answering.
	Hangs int `json:"hangs"`
	// Gated are requests a fault kept waiting until a test released them
	// (Fault.Until), counted when the wait began.
	Gated int `json:"gated"`
}

// stats holds call counters, the request log and validation violations.
type stats struct {
	mu         sync.Mutex
	calls      map[string]int
	served     Served
	log        []RequestRecord // ring buffer
	next       int
	full       bool
	violations []error
}

// countAnswer adds one answer to the served counters.
func (st *stats) countAnswer(status int, header http.Header) {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case status == http.StatusTooManyRequests && (header.Get("Retry-After") != "" || header.Get("RateLimit-Reset") != ""):
		st.served.RateLimited++
	case status == http.StatusTooManyRequests:
		st.served.RateLimitedWithoutDelay++
	case status >= 500:
		st.served.ServerErrors++
	}
}

func (st *stats) countGated() {
	st.mu.Lock()
	st.served.Gated++
	st.mu.Unlock()
}

func (st *stats) countHang() {
	st.mu.Lock()
	st.served.Hangs++
	st.mu.Unlock()
}

// Served returns what the simulator has served of 429s, 5xx and hangs
// since it started or ResetCalls.
func (s *Server) Served() Served {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	return s.stats.served
}

func newStats(logSize int) *stats {
	if logSize <= 0 {
		logSize = 10000
	}
	return &stats{calls: map[string]int{}, log: make([]RequestRecord, logSize)}
}

func (st *stats) count(key string) {
	st.mu.Lock()
	st.calls[key]++
	st.mu.Unlock()
}

func (st *stats) record(r RequestRecord) {
	st.mu.Lock()
	st.log[st.next] = r
	st.next = (st.next + 1) % len(st.log)
	if st.next == 0 {
		st.full = true
	}
	st.mu.Unlock()
}

func (st *stats) violation(err error) {
	st.mu.Lock()
	st.violations = append(st.violations, err)
	st.mu.Unlock()
}

// Calls returns the number of requests per operation, keyed
// "METHOD /path/template" as in the OpenAPI document, e.g.
// "POST /v2/control-planes/{controlPlaneId}/core-entities/services".
func (s *Server) Calls() map[string]int {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	return maps.Clone(s.stats.calls)
}

// CallCount returns the number of requests to one operation.
func (s *Server) CallCount(method, pathTemplate string) int {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	return s.stats.calls[method+" "+pathTemplate]
}

// ResetCalls zeroes the call counters and Served, and empties the request
// log.
func (s *Server) ResetCalls() {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	s.stats.calls = map[string]int{}
	s.stats.served = Served{}
	clear(s.stats.log)
	s.stats.next, s.stats.full = 0, false
}

// Requests returns the request log, oldest first.
func (s *Server) Requests() []RequestRecord {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	if !s.stats.full {
		return append([]RequestRecord(nil), s.stats.log[:s.stats.next]...)
	}
	return append(append([]RequestRecord(nil), s.stats.log[s.stats.next:]...), s.stats.log[:s.stats.next]...)
}

// Violations returns the OpenAPI violations seen so far, in requests and
// responses alike.
func (s *Server) Violations() []error {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	return append([]error(nil), s.stats.violations...)
}

// TakeViolations returns the violations seen so far and forgets them; tests
// that send invalid requests on purpose use it to claim what they caused.
func (s *Server) TakeViolations() []error {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	out := s.stats.violations
	s.stats.violations = nil
	return out
}

// Faults returns the fault injector.
func (s *Server) Faults() *Faults { return s.faults }
