package konnectsim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"
)

// Hostile makes the simulator answer as a server that only pretends to be
// Konnect would: a tenant who points an auth configuration at a server of
// its own can make it answer anything. It tells what such a server costs a
// client. /v3/organizations/me keeps answering (with OrganizationID, when
// set), so that tokens are still found valid; every other operation is
// answered as the fields say. Hostile answers are not validated: they are
// not Konnect's.
type Hostile struct {
	// EndlessPages answers every listing with full pages (of the size
	// asked for) of made-up entities, each page naming another after it,
	// without end: core-entity listings by their offset, control-plane
	// listings by a total that never runs out.
	EndlessPages bool `json:"endlessPages,omitempty"`
	// RepeatedCursor answers core-entity listings with pages that all name
	// the same next offset.
	RepeatedCursor bool `json:"repeatedCursor,omitempty"`
	// BodyBytes, when above zero, answers every operation with a body of
	// that many bytes (a page whose data never ends), streamed without
	// being kept in memory, until the client stops reading.
	BodyBytes int64 `json:"bodyBytes,omitempty"`
	// Stall keeps every request unanswered, until the client gives
	// up, the simulator closes or the simulator stops stalling (then it
	// answers 503, as a gateway whose backend came back would).
	Stall bool `json:"stall,omitempty"`
	// OrganizationID, when set, is the ID /v3/organizations/me answers,
	// whatever its shape.
	OrganizationID string `json:"organizationId,omitempty"`
}

// HostileServed counts what the hostile answers did, so that a test can
// check that they happened.
type HostileServed struct {
	// Pages are the listing pages made up by EndlessPages or
	// RepeatedCursor.
	Pages int `json:"pages"`
	// StreamedBytes are the bytes of BodyBytes answers written.
	StreamedBytes int64 `json:"streamedBytes"`
	// Stalls are the requests Stall kept unanswered.
	Stalls int `json:"stalls"`
}

// hostility is a simulator's Hostile and what it served.
type hostility struct {
	mu     sync.Mutex
	is     Hostile
	served HostileServed
	// next numbers the made-up offsets and entities.
	next int
	// unstall is closed when the stall in force ends.
	unstall chan struct{}
}

// SetHostile makes the simulator answer as h says from now on; the zero
// Hostile makes it Konnect again.
func (s *Server) SetHostile(h Hostile) {
	s.hostile.mu.Lock()
	defer s.hostile.mu.Unlock()
	if s.hostile.unstall != nil {
		close(s.hostile.unstall)
	}
	s.hostile.is, s.hostile.unstall = h, make(chan struct{})
}

// HostileServed returns what the hostile answers did since the start.
func (s *Server) HostileServed() HostileServed {
	s.hostile.mu.Lock()
	defer s.hostile.mu.Unlock()
	return s.hostile.served
}

func (s *Server) hostility() Hostile {
	h, _ := s.hostilityAndUnstall()
	return h
}

func (s *Server) hostilityAndUnstall() (Hostile, <-chan struct{}) {
	s.hostile.mu.Lock()
	defer s.hostile.mu.Unlock()
	return s.hostile.is, s.hostile.unstall
}

// meOperation is the operation a hostile server keeps answering.
const meOperation = "get-organizations-me"

// answerHostile answers rc as h says instead of the operation's handler,
// and reports whether it did; the handler's answer, when it ran, is in rc.
func (s *Server) answerHostile(rc *reqCtx, h Hostile, unstall <-chan struct{}) bool {
	rt := rc.route
	switch {
	case rt.operationID == meOperation:
		if h.OrganizationID != "" {
			rc.route.handler(rc)
			var me map[string]any
			if json.Unmarshal(rc.out.Bytes(), &me) == nil {
				me["id"] = h.OrganizationID
				rc.writeJSON(rc.status, contentJSON, me)
			}
			rc.hostile = true
			return true
		}
		return false
	case h.Stall:
		s.hostile.count(func(served *HostileServed) { served.Stalls++ })
		rc.hostile = true
		select {
		case <-rc.r.Context().Done():
		case <-s.closed:
		case <-unstall:
			rc.injectedFailure(http.StatusServiceUnavailable)
			return true
		}
		rc.status = 0
		return true
	case h.BodyBytes > 0:
		rc.hostile = true
		rc.status = http.StatusOK
		rc.header.Set("Content-Type", contentJSON)
		rc.stream = func(w io.Writer) { s.streamBody(w, h.BodyBytes) }
		return true
	case (h.EndlessPages || h.RepeatedCursor) && rt.method == http.MethodGet && strings.HasPrefix(rt.operationID, "list-"):
		asked := rc.r
		rc.r = firstPageOf(asked)
		rt.handler(rc)
		rc.r = asked
		if rc.status != http.StatusOK {
			return true
		}
		rc.hostile = true
		s.madeUpPage(rc, h)
		return true
	}
	return false
}

// firstPageOf is r asking for the first page of its listing, whose first
// entity the made-up ones copy: the offsets and page numbers a hostile
// server makes up mean nothing to the handler.
func firstPageOf(r *http.Request) *http.Request {
	first := r.Clone(r.Context())
	query := first.URL.Query()
	query.Del("offset")
	if query.Has("page[number]") {
		query.Set("page[number]", "1")
	}
	first.URL.RawQuery = query.Encode()
	return first
}

// streamBody writes n bytes of a page whose data never ends, from one
// chunk written again and again, and stops when the client does.
func (s *Server) streamBody(w io.Writer, n int64) {
	chunk := []byte(strings.Repeat(`{"id":"00000000-0000-4000-8000-000000000000","name":"x"},`, 256))
	written, err := io.WriteString(w, `{"data":[`)
	total := int64(written)
	for err == nil && total < n {
		written, err = w.Write(chunk[:min(int64(len(chunk)), n-total)])
		total += int64(written)
		s.hostile.count(func(served *HostileServed) { served.StreamedBytes += int64(written) })
	}
}

// madeUpPage replaces the listing in rc with a full page of entities made
// up after the first the handler listed (or a bare one, when it listed
// none), naming a next page.
func (s *Server) madeUpPage(rc *reqCtx, h Hostile) {
	var page map[string]any
	if err := json.Unmarshal(rc.out.Bytes(), &page); err != nil {
		return
	}
	data, _ := page["data"].([]any)
	template := map[string]any{}
	if len(data) > 0 {
		if first, ok := data[0].(map[string]any); ok {
			template = first
		}
	}
	query := rc.r.URL.Query()
	size, err := strconv.Atoi(query.Get("size"))
	if err != nil {
		size, _ = strconv.Atoi(query.Get("page[size]"))
	}
	size = max(1, min(size, 1000))
	s.hostile.mu.Lock()
	first := s.hostile.next
	s.hostile.next += size
	s.hostile.served.Pages++
	s.hostile.mu.Unlock()
	made := make([]any, size)
	for i := range made {
		entity := make(map[string]any, len(template)+2)
		for k, v := range template {
			entity[k] = v
		}
		entity["id"] = uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "hostile-%d", first+i)).String()
		entity["name"] = fmt.Sprintf("hostile-%d", first+i)
		made[i] = entity
	}
	page["data"] = made
	if meta, ok := page["meta"].(map[string]any); ok {
		// A control-plane listing: a total that never runs out.
		if p, ok := meta["page"].(map[string]any); ok {
			p["total"] = 1 << 40
		}
	} else {
		page["offset"] = fmt.Sprintf("hostile-%d", first)
		if h.RepeatedCursor {
			page["offset"] = "hostile-again"
		}
	}
	rc.writeJSON(http.StatusOK, contentJSON, page)
}

func (x *hostility) count(add func(*HostileServed)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	add(&x.served)
}
