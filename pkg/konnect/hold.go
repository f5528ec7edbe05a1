package konnect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Konnect's outage is one fact per organisation, noticed once. When the
// requests of an organisation keep failing for reasons of the organisation
// (5xx answers, timeouts, connections refused or reset: not an entity's
// 4xx), the organisation is held: its requests are not sent but refused at
// once with a *HeldError, whose Released channel the caller waits on
// instead of backing off per object. Meanwhile one probe, a cheap read,
// asks Konnect at a modest pace (a few seconds at first, then up to
// maxProbeDelay, jittered) whether it answers again; the first answer
// releases the hold, and every caller that waited on it comes back at
// once, paced by the organisation's rate limiter. A token Konnect rejects
// (401) is held the same way, its probe a token check, so that a revoked
// token costs a check every half minute instead of every object's
// request. Other organisations and tokens are never touched: a hold
// refuses on the caller's goroutine, before the rate limiter, and no
// worker waits on it.

// Why requests are held: the reason of a HeldError and the reason label
// of the hold metrics.
const (
	// HoldUnreachable: Konnect answered the organisation's requests with
	// 5xx, or not at all (timeouts, connections refused or reset).
	HoldUnreachable = "unreachable"
	// HoldUnauthorized: Konnect answered 401 to the token: it is not valid
	// (revoked, expired, mistyped).
	HoldUnauthorized = "unauthorized"
)

const (
	// holdAfterFailures is how many failures in a row, with no answer in
	// between, hold an organisation: as Envoy's outlier detection ejects a
	// host after 5 consecutive 5xx. A stray 5xx in a healthy stream never
	// holds it; an outage does within a few requests. The failures must
	// be of more than one request (method and path): one entity that
	// Konnect keeps failing, retried with its own backoff, is that
	// entity's trouble, not the organisation's.
	holdAfterFailures = 5
	// firstProbeDelay is the wait before the first probe of a hold; each
	// next probe waits twice as long, up to maxProbeDelay.
	firstProbeDelay = 2 * time.Second
	// firstTokenCheckDelay is firstProbeDelay for a token Konnect
	// rejected: a revoked or expired token seldom comes back by itself,
	// and its replacement ends the hold without a check.
	firstTokenCheckDelay = 10 * time.Second
	// maxProbeDelay is the longest wait between two probes: two requests a
	// minute while Konnect stays away.
	maxProbeDelay = 30 * time.Second
	// probeJitter spreads probe delays by up to this share either way, so
	// that replicas and organisations do not probe together.
	probeJitter = 0.2
	// probeTimeout bounds one probe: a read of one control plane that takes
	// longer is no sign of a Konnect that answers again.
	probeTimeout = 10 * time.Second
	// stallAfter is how long Konnect may leave requests of an organisation
	// unanswered, while answering none, before the organisation is held:
	// a Konnect that hangs is noticed well before the requests time out
	// (30s by default), and no more are sent into it meanwhile. It takes
	// two requests waiting that long: one slow request of an idle
	// organisation is no outage.
	stallAfter = 10 * time.Second
	// holdMemory is how soon after a release a new hold of the same
	// organisation goes on probing at the pace the last one had reached,
	// so that a Konnect that answers probes but fails everything else is
	// not flooded each time it seems back.
	holdMemory = 2 * time.Minute
)

// hold is the state of one organisation (or of one token) towards Konnect:
// whether its requests are held, why, since when, and the probe that
// releases it.
type hold struct {
	// reason is HoldUnreachable for the hold of an organisation (before its
	// organisation is known: of a token), HoldUnauthorized for the hold of a
	// token Konnect rejects.
	reason    string
	serverURL string
	clock     clock.Clock
	metrics   *Metrics
	random    func() float64
	// probe asks Konnect with c's token whether the hold can end; its
	// answer reaches the hold through the doer, as every answer does.
	probe func(ctx context.Context, c *Client) error

	mu sync.Mutex
	// organization labels the hold's metrics and errors ("" unknown).
	organization string
	// failures counts failed requests in a row (HoldUnreachable);
	// failedTarget is the method and path of the first of them, and
	// varied says whether another request failed since.
	failures     int
	failedTarget string
	varied       bool
	held         bool
	since        time.Time
	cause        error
	released     chan struct{}
	// retired marks the hold of a rejected token that a valid one
	// replaced: its requests stay refused, but it is not probed any more;
	// only a check of its configuration (ClientFactory.Organization) asks
	// Konnect about it again.
	retired bool
	// step is how many probes the current backoff has made.
	step       int
	releasedAt time.Time
	// prober is the client whose token the next probe uses: the one that
	// last asked (HoldUnreachable), or the held token's (HoldUnauthorized).
	prober    *Client
	stopProbe context.CancelFunc
	// sent holds when each request on its way was sent, by a number of
	// its own; lastAnswer is when Konnect last answered (HoldUnreachable).
	sent       map[uint64]time.Time
	sentSeq    uint64
	lastAnswer time.Time
}

func newHold(reason, serverURL string, clk clock.Clock, metrics *Metrics) *hold {
	h := &hold{reason: reason, serverURL: serverURL, clock: clk, metrics: metrics, random: rand.Float64}
	if reason == HoldUnauthorized {
		h.probe = checkToken
	} else {
		h.probe = probeOrganization
	}
	return h
}

// refuse returns the error that refuses a request of c while the hold is
// in force, nil when it is not. A Konnect that has left requests
// unanswered for stallAfter holds the organisation now.
func (h *hold) refuse(c *Client) *HeldError {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.held && h.reason == HoldUnreachable && h.stalledLocked() {
		h.startLocked(c, &TransientError{Message: fmt.Sprintf("no answer to the requests sent for %s", stallAfter)})
	}
	if !h.held {
		return nil
	}
	if h.reason == HoldUnreachable {
		// The latest caller's token is a current one: the probe uses it.
		h.prober = c
	}
	h.metrics.observeHeldRequest(organizationLabel(h.organization), h.reason)
	return h.errorLocked()
}

func (h *hold) errorLocked() *HeldError {
	return &HeldError{
		ServerURL: h.serverURL, Organization: h.organization, Reason: h.reason,
		Since: h.since, Cause: h.cause, released: h.released,
	}
}

// failed counts a request of c (target: its method and path) that got a
// 5xx or no answer; the holdAfterFailures-th in a row, of more than one
// request, holds the organisation.
func (h *hold) failed(c *Client, target string, cause error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held {
		return
	}
	switch {
	case h.failures == 0:
		h.failedTarget, h.varied = target, false
	case target != h.failedTarget:
		h.varied = true
	}
	h.failures++
	if h.failures >= holdAfterFailures && h.varied {
		h.startLocked(c, cause)
	}
}

// sending counts a request on its way until the function it returns is
// called, once it is answered or given up.
func (h *hold) sending() (done func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sent == nil {
		h.sent = map[uint64]time.Time{}
	}
	h.sentSeq++
	seq := h.sentSeq
	h.sent[seq] = h.clock.Now()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.sent, seq)
	}
}

// stalledLocked reports whether two requests or more have waited for
// stallAfter, and Konnect answered nothing meanwhile.
func (h *hold) stalledLocked() bool {
	now := h.clock.Now()
	if now.Sub(h.lastAnswer) < stallAfter {
		return false
	}
	waiting := 0
	for _, at := range h.sent {
		if now.Sub(at) >= stallAfter {
			waiting++
		}
	}
	return waiting >= 2
}

// answered notes that Konnect answered (below 500): a hold ends.
func (h *hold) answered() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures, h.lastAnswer = 0, h.clock.Now()
	if h.held {
		h.releaseLocked()
	}
}

// rejected holds c's token, which Konnect answered 401. A retired token
// that a configuration checked again is probed again.
func (h *hold) rejected(c *Client, cause error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !h.held:
		h.startLocked(c, cause)
	case h.retired:
		h.retired, h.cause = false, cause
		h.probeLocked()
	}
}

// retire ends the current hold of a rejected token (whoever waits on it
// comes back and finds the token that replaced it), stops its probes, and
// keeps refusing what still uses it (a listing that remembers it) without
// a request.
func (h *hold) retire() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.held || h.retired {
		return
	}
	close(h.released)
	h.released = make(chan struct{})
	h.stopProbe()
	h.retired = true
}

// isRetired reports whether the hold is of a replaced token.
func (h *hold) isRetired() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held && h.retired
}

// end lifts the hold without an answer from Konnect (its token was
// replaced): whoever waits on it comes back and finds what is current.
func (h *hold) end() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held {
		h.releaseLocked()
	}
	h.prober = nil
}

// replaceProber has the probes use another's token instead of c's.
func (h *hold) replaceProber(c, another *Client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.prober == c {
		h.prober = another
	}
}

// isHeld reports whether the hold is in force.
func (h *hold) isHeld() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held
}

// probing reports whether the hold is in force and probed: what the
// metrics call held (a retired token holds nothing of its organisation).
func (h *hold) probing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held && !h.retired
}

// setOrganization labels the hold with the organisation its token belongs
// to.
func (h *hold) setOrganization(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.organization = id
}

func (h *hold) organizationID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.organization
}

func (h *hold) startLocked(c *Client, cause error) {
	now := h.clock.Now()
	h.held, h.since, h.cause, h.prober = true, now, cause, c
	h.released = make(chan struct{})
	if h.releasedAt.IsZero() || now.Sub(h.releasedAt) > holdMemory {
		h.step = 0
	}
	h.metrics.observeHold(organizationLabel(h.organization), h.reason)
	h.probeLocked()
}

// probeLocked starts the probes of the hold.
func (h *hold) probeLocked() {
	ctx, cancel := context.WithCancel(context.Background())
	h.stopProbe = cancel
	go h.probeUntilReleased(ctx)
}

func (h *hold) releaseLocked() {
	h.held, h.failures, h.cause, h.retired = false, 0, nil, false
	h.releasedAt = h.clock.Now()
	close(h.released)
	h.stopProbe()
}
