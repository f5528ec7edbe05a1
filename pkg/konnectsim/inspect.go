package konnectsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
)

// inspectPrefix is the simulator's own API, outside Konnect's: counters,
// served faults, request log, violations and faults. It is neither
// validated nor rate limited, and needs no token.
const inspectPrefix = "/_sim/"

// faultJSON is a Fault on the wire; durations are Go duration strings.
type faultJSON struct {
	ErrorRate   float64 `json:"errorRate,omitempty"`
	Status      int     `json:"status,omitempty"`
	Latency     string  `json:"latency,omitempty"`
	Hang        bool    `json:"hang,omitempty"`
	HangFor     string  `json:"hangFor,omitempty"`
	AfterEffect bool    `json:"afterEffect,omitempty"`
	Times       int     `json:"times,omitempty"`
	// Organization limits the fault to one organisation's requests (its id).
	Organization string `json:"organization,omitempty"`
}

func (f faultJSON) fault() (Fault, error) {
	out := Fault{ErrorRate: f.ErrorRate, Status: f.Status, Hang: f.Hang, AfterEffect: f.AfterEffect, Times: f.Times, Organization: f.Organization}
	var err error
	if f.Latency != "" {
		if out.Latency, err = time.ParseDuration(f.Latency); err != nil {
			return out, fmt.Errorf("latency: %w", err)
		}
	}
	if f.HangFor != "" {
		if out.HangFor, err = time.ParseDuration(f.HangFor); err != nil {
			return out, fmt.Errorf("hangFor: %w", err)
		}
	}
	if out.ErrorRate < 0 || out.ErrorRate > 1 {
		return out, errors.New("errorRate must be within 0..1")
	}
	return out, nil
}

func toFaultJSON(f Fault) faultJSON {
	out := faultJSON{ErrorRate: f.ErrorRate, Status: f.Status, Hang: f.Hang, AfterEffect: f.AfterEffect, Times: f.Times, Organization: f.Organization}
	if f.Latency > 0 {
		out.Latency = f.Latency.String()
	}
	if f.HangFor > 0 {
		out.HangFor = f.HangFor.String()
	}
	return out
}

// orgSummary is an organisation as /_sim/orgs shows it (never its tokens).
type orgSummary struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Entities int    `json:"entities"`
	// Requests and RateLimited count the authenticated requests the
	// organisation's budget allowed and refused (429) since the start,
	// when the simulator enforces a budget.
	Requests    int `json:"requests"`
	RateLimited int `json:"rateLimited"`
}

func (s *Server) serveInspect(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, inspectPrefix)
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", contentJSON)
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	fail := func(status int, err error) { reply(status, map[string]string{"message": err.Error()}) }
	switch {
	case path == "healthz":
		reply(http.StatusOK, map[string]string{"status": "ok"})
	case path == "calls" && r.Method == http.MethodGet:
		reply(http.StatusOK, s.Calls())
	case path == "calls" && r.Method == http.MethodDelete:
		s.ResetCalls()
		w.WriteHeader(http.StatusNoContent)
	case path == "served" && r.Method == http.MethodGet:
		reply(http.StatusOK, s.Served())
	case path == "requests" && r.Method == http.MethodGet:
		records := s.Requests()
		if since := r.URL.Query().Get("since"); since != "" {
			// Only the requests after a moment, so that a client following
			// the log does not read all of it every time.
			at, err := time.Parse(time.RFC3339Nano, since)
			if err != nil {
				fail(http.StatusBadRequest, fmt.Errorf("since: %w", err))
				return
			}
			// Requests are logged as they end, each with the moment it
			// began: the log is not quite in that order.
			records = slices.DeleteFunc(records, func(r RequestRecord) bool { return !r.Time.After(at) })
		}
		reply(http.StatusOK, records)
	case path == "violations" && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
		errs := s.Violations()
		if r.Method == http.MethodDelete {
			errs = s.TakeViolations()
		}
		msgs := make([]string, 0, len(errs))
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		reply(http.StatusOK, msgs)
	case path == "orgs" && r.Method == http.MethodGet:
		reply(http.StatusOK, s.orgSummaries())
	case path == "hostile" && r.Method == http.MethodGet:
		reply(http.StatusOK, map[string]any{"hostile": s.hostility(), "served": s.HostileServed()})
	case path == "hostile" && r.Method == http.MethodPut:
		var in Hostile
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		s.SetHostile(in)
		w.WriteHeader(http.StatusNoContent)
	case path == "hostile" && r.Method == http.MethodDelete:
		s.SetHostile(Hostile{})
		w.WriteHeader(http.StatusNoContent)
	case path == "faults" && r.Method == http.MethodGet:
		out := map[string]faultJSON{}
		for op, f := range s.faults.List() {
			out[op] = toFaultJSON(f)
		}
		reply(http.StatusOK, out)
	case path == "faults" && r.Method == http.MethodDelete:
		s.faults.Clear()
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "faults/") && r.Method == http.MethodPut:
		var in faultJSON
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		f, err := in.fault()
		if err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		s.faults.Set(strings.TrimPrefix(path, "faults/"), f)
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "faults/") && r.Method == http.MethodDelete:
		s.faults.Remove(strings.TrimPrefix(path, "faults/"))
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "provisioning-failures/") && r.Method == http.MethodPut:
		var in struct {
			Reason string `json:"reason"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Reason == "" {
			fail(http.StatusBadRequest, errors.New(`body must be {"reason": "why provisioning fails"}`))
			return
		}
		s.faults.FailProvisioning(strings.TrimPrefix(path, "provisioning-failures/"), in.Reason)
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "provisioning-failures/") && r.Method == http.MethodDelete:
		s.faults.RemoveProvisioningFailure(strings.TrimPrefix(path, "provisioning-failures/"))
		w.WriteHeader(http.StatusNoContent)
	case path == "tokens" && r.Method == http.MethodPost:
		// A token issued while clients run: {"token": …, "organization": id or name}.
		var in struct {
			Token        string `json:"token"`
			Organization string `json:"organization"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Token == "" || in.Organization == "" {
			fail(http.StatusBadRequest, errors.New(`body must be {"token": "…", "organization": "id or name"}`))
			return
		}
		reply(http.StatusOK, map[string]string{"organization": s.AddToken(in.Token, in.Organization)})
	case path == "revoked-tokens" && r.Method == http.MethodPost:
		// A token revoked while clients run: {"token": …}; it is answered 401 from now on.
		var in struct {
			Token string `json:"token"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Token == "" {
			fail(http.StatusBadRequest, errors.New(`body must be {"token": "…"}`))
			return
		}
		if !s.RevokeToken(in.Token) {
			fail(http.StatusNotFound, errors.New("no such token"))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case path == "force429" && r.Method == http.MethodPost:
		var in struct {
			Count      int    `json:"count"`
			RetryAfter string `json:"retryAfter"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		d, err := time.ParseDuration(orDefault(in.RetryAfter, "1s"))
		if err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		s.faults.Force429(in.Count, d)
		w.WriteHeader(http.StatusNoContent)
	default:
		fail(http.StatusNotFound, fmt.Errorf("no simulator endpoint %s %s", r.Method, r.URL.Path))
	}
}

func (s *Server) orgSummaries() []orgSummary {
	s.store.mu.RLock()
	var out []orgSummary
	for _, o := range s.store.orgs {
		out = append(out, orgSummary{ID: o.id, Name: o.name})
	}
	s.store.mu.RUnlock()
	for i := range out {
		out[i].Entities = s.Count(out[i].ID)
		spent := s.limiter.requestsOf(out[i].ID)
		out[i].Requests, out[i].RateLimited = spent.allowed, spent.refused
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
