package integration

import (
	"net/http"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
)

// konnectCall is one request as the operator's Konnect client made it,
// timed on the operator's clock: from before the rate limiter's wait to
// after the limiter read the answer.
type konnectCall struct {
	method, path string
	began, ended time.Time
	// status is the answer's HTTP status (0: no answer).
	status int
	// retryAfter is the wait a 429 asked for.
	retryAfter time.Duration
	// deferred marks a call the rate limiter did not send but gave a later
	// turn (konnect.WithDeferral): it returned at once, without a request.
	deferred bool
}

// callRecorder keeps every call the operator's Konnect clients make, in the
// order they began. It is the client's side of the simulator's request log:
// what the client knew when it sent something, where the simulator only
// knows when it arrived.
type callRecorder struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	calls []konnectCall
}

// wrap is a konnect.Options.WrapTransport.
func (r *callRecorder) wrap(next http.RoundTripper) http.RoundTripper {
	return recordingTransport{recorder: r, next: next}
}

type recordingTransport struct {
	recorder *callRecorder
	next     http.RoundTripper
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	call := konnectCall{method: req.Method, path: req.URL.Path, began: t.recorder.clock.Now()}
	resp, err := t.next.RoundTrip(req)
	call.ended = t.recorder.clock.Now()
	_, call.deferred = konnect.IsDeferred(err)
	if err == nil {
		call.status = resp.StatusCode
		if seconds, convErr := time.ParseDuration(resp.Header.Get("Retry-After") + "s"); convErr == nil {
			call.retryAfter = seconds
		}
	}
	t.recorder.mu.Lock()
	t.recorder.calls = append(t.recorder.calls, call)
	t.recorder.mu.Unlock()
	return resp, err
}

// all returns the calls recorded so far, in the order they began.
func (r *callRecorder) all() []konnectCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := slices.Clone(r.calls)
	slices.SortStableFunc(calls, func(a, b konnectCall) int { return a.began.Compare(b.began) })
	return calls
}

// retryAfterIgnored lists, for each 429 among calls that asked for a wait,
// the calls that disobeyed it: calls sent that began after the 429's call
// had ended (so after the rate limiter had read the 429) and yet ended
// before the wait, counted from when the 429's call began, was over. A
// client that holds its requests while a 429's wait lasts cannot produce
// one, however slow the machine: each such call either waits at the
// limiter until at least the 429's own beginning plus its wait, or is not
// sent at all (deferred to its turn, which returns at once). It also
// returns how many 429s asked for a wait.
func retryAfterIgnored(calls []konnectCall) (asked int, ignored [][2]konnectCall) {
	for _, limited := range calls {
		if limited.status != http.StatusTooManyRequests || limited.retryAfter <= 0 {
			continue
		}
		asked++
		pausedUntil := limited.began.Add(limited.retryAfter)
		for _, c := range calls {
			if !c.deferred && c.began.After(limited.ended) && c.ended.Before(pausedUntil) {
				ignored = append(ignored, [2]konnectCall{limited, c})
			}
		}
	}
	return asked, ignored
}
