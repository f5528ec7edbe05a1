package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// requestEntry is one entry of the simulator's request log, as the
// outage tests read it.
type requestEntry struct {
	Time        time.Time     `json:"time"`
	Method      string        `json:"method"`
	Path        string        `json:"path"`
	Query       string        `json:"query"`
	OperationID string        `json:"operationId"`
	Status      int           `json:"status"`
	Duration    time.Duration `json:"duration"`
	UserAgent   string        `json:"userAgent"`
	Credential  string        `json:"credential"`
}

// ended is when the simulator finished with the request.
func (r requestEntry) ended() time.Time { return r.Time.Add(r.Duration) }

// writes reports whether the request changes what Konnect holds.
func (r requestEntry) writes() bool { return r.Method != http.MethodGet }

// answered reports whether Konnect answered it, below 500: what tells that
// Konnect is back.
func (r requestEntry) answered() bool { return r.Status > 0 && r.Status < 500 }

// succeeded reports a 2xx answer.
func (r requestEntry) succeeded() bool { return r.Status >= 200 && r.Status < 300 }

// by reports whether the request came from the operator process whose
// Lease identity is identity (its User-Agent names it).
func (r requestEntry) by(identity string) bool {
	return strings.Contains(r.UserAgent, "("+identity+")")
}

// withToken reports whether the request carried token.
func (r requestEntry) withToken(token string) bool {
	return r.Credential == konnectsim.CredentialOf(token)
}

// requestLog is the simulator's request log.
type requestLog []requestEntry

func (s *simulator) requestLog(ctx context.Context) (requestLog, error) {
	var out requestLog
	err := s.get(ctx, "/_sim/requests", false, &out)
	return out, err
}

// between keeps the requests that began in [from, to).
func (l requestLog) between(from, to time.Time) requestLog {
	var out requestLog
	for _, r := range l {
		if !r.Time.Before(from) && r.Time.Before(to) {
			out = append(out, r)
		}
	}
	return out
}

// where keeps the requests keep says.
func (l requestLog) where(keep func(requestEntry) bool) requestLog {
	var out requestLog
	for _, r := range l {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// mostInAMinute is the largest number of requests that began within any
// minute.
func (l requestLog) mostInAMinute() int {
	most := 0
	for _, start := range l {
		n := 0
		for _, r := range l {
			if !r.Time.Before(start.Time) && r.Time.Before(start.Time.Add(time.Minute)) {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// firstAnswered returns the first request Konnect answered (below 500)
// that began at or after from, by when it ended.
func (l requestLog) firstAnswered(from time.Time) (requestEntry, bool) {
	var found requestEntry
	ok := false
	for _, r := range l {
		if r.Time.Before(from) || !r.answered() {
			continue
		}
		if !ok || r.ended().Before(found.ended()) {
			found, ok = r, true
		}
	}
	return found, ok
}

// lastWrite returns the write that ended last.
func (l requestLog) lastWrite() (requestEntry, bool) {
	var found requestEntry
	ok := false
	for _, r := range l {
		if r.writes() && r.succeeded() && (!ok || r.ended().After(found.ended())) {
			found, ok = r, true
		}
	}
	return found, ok
}

// timeline lists the requests in the order they began, each with when it
// began after from, what it asked and Konnect's answer (0: none before
// the client gave up).
func (l requestLog) timeline(from time.Time) string {
	sorted := slices.SortedFunc(slices.Values(l), func(a, b requestEntry) int { return a.Time.Compare(b.Time) })
	var b strings.Builder
	for _, r := range sorted {
		target := r.Path
		if r.Query != "" {
			target += "?" + r.Query
		}
		fmt.Fprintf(&b, "\n  +%6.1fs %-6s %s (%d)", r.Time.Sub(from).Seconds(), r.Method, target, r.Status)
	}
	return b.String()
}

// count counts the requests.
func (l requestLog) count() int { return len(l) }
