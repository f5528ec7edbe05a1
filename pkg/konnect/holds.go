package konnect

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"

	"k8s.io/utils/clock"
)

// holds hands out the hold of each organisation (on each regional server;
// of a token before its organisation is known) and of each token, as
// limiters hands out rate limiters.
type holds struct {
	clock   clock.Clock
	metrics *Metrics
	// random spreads probe delays (see probeJitter); tests fix it.
	random func() float64

	mu    sync.Mutex
	byKey map[string]*hold
}

func newHolds(clk clock.Clock, metrics *Metrics) *holds {
	hs := &holds{clock: clk, metrics: metrics, random: rand.Float64, byKey: map[string]*hold{}}
	metrics.trackHolds(hs)
	return hs
}

// organization returns the reachability hold of an organisation on a
// server.
func (hs *holds) organization(serverURL, orgID string) *hold {
	h := hs.get(reachKey("org:"+serverURL+"/"+orgID), HoldUnreachable, serverURL)
	h.setOrganization(orgID)
	return h
}

// unplaced returns the reachability hold of a token whose organisation is
// not known yet.
func (hs *holds) unplaced(serverURL, tokenHash string) *hold {
	return hs.get(reachKey("token:"+serverURL+"/"+tokenHash), HoldUnreachable, serverURL)
}

// reachKey is the key of the reachability hold that goes with the limiter
// registered under limiterKey (see registry.go).
func reachKey(limiterKey string) string { return "reach:" + limiterKey }

// drop ends and drops the hold under key, if there is one: the last client
// of its organisation (or token) went.
func (hs *holds) drop(key string) {
	hs.mu.Lock()
	h, ok := hs.byKey[key]
	delete(hs.byKey, key)
	hs.mu.Unlock()
	if ok {
		h.end()
	}
}

// token returns the hold of a token Konnect may reject.
func (hs *holds) token(serverURL, tokenHash string) *hold {
	return hs.get("auth:token:"+serverURL+"/"+tokenHash, HoldUnauthorized, serverURL)
}

// forgetToken ends and drops the holds of a token no longer used.
func (hs *holds) forgetToken(serverURL, tokenHash string) {
	hs.mu.Lock()
	var ended []*hold
	for _, key := range []string{"auth:token:" + serverURL + "/" + tokenHash, "reach:token:" + serverURL + "/" + tokenHash} {
		if h, ok := hs.byKey[key]; ok {
			ended = append(ended, h)
			delete(hs.byKey, key)
		}
	}
	hs.mu.Unlock()
	for _, h := range ended {
		h.end()
	}
}

func (hs *holds) get(key, reason, serverURL string) *hold {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if h, ok := hs.byKey[key]; ok {
		return h
	}
	h := newHold(reason, serverURL, hs.clock, hs.metrics)
	h.random = hs.random
	hs.byKey[key] = h
	return h
}

// all returns every hold, for the metrics.
func (hs *holds) all() []*hold {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	out := make([]*hold, 0, len(hs.byKey))
	for _, h := range hs.byKey {
		out = append(out, h)
	}
	return out
}

// observeAnswer feeds the outcome of req (the call op) to c's holds: resp
// is the answer, err the transport's error when none came.
func (c *Client) observeAnswer(req *http.Request, op operation, resp *http.Response, err error) {
	reach := c.reach.Load()
	target := req.Method + " " + req.URL.Path
	switch {
	case err != nil:
		if isCancellation(err) {
			return // the caller gave up: nothing is known of Konnect
		}
		reach.failed(c, target, transportError(op, err))
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestTimeout:
		reach.failed(c, target, answerError(op, resp))
	default:
		reach.answered()
		switch {
		case resp.StatusCode == http.StatusUnauthorized:
			c.auth.rejected(c, answerError(op, resp))
		case resp.StatusCode < 300:
			c.auth.answered()
		}
	}
}

// maxCauseBody is how much of a failed answer's body is read to tell what
// Konnect said: its error bodies are a few hundred bytes.
const maxCauseBody = 8 << 10

// answerError classifies a failed answer as Call would (with Konnect's
// message), reading the start of its body and leaving the body whole for
// the caller.
func answerError(op operation, resp *http.Response) error {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxCauseBody))
	resp.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(head), resp.Body), Closer: resp.Body}
	return classifyResponse(op, resp.StatusCode, resp.Header, head)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// refuseHeld returns the error of a request of c that its holds keep from
// being sent, nil when none does. A configuration's check of a retired
// token goes: the token is named again.
func (c *Client) refuseHeld(ctx context.Context) error {
	if isCheck(ctx) && c.auth.isRetired() {
		return c.reach.Load().refuseError(c)
	}
	if held := c.auth.refuse(c); held != nil {
		return held
	}
	return c.reach.Load().refuseError(c)
}

// refuseError is refuse as an error: nil when the hold is not in force.
func (h *hold) refuseError(c *Client) error {
	if held := h.refuse(c); held != nil {
		return held
	}
	return nil
}

type checkKey struct{}

// withCheck marks ctx's request as a configuration's check of its token.
func withCheck(ctx context.Context) context.Context {
	return context.WithValue(ctx, checkKey{}, true)
}

func isCheck(ctx context.Context) bool {
	check, _ := ctx.Value(checkKey{}).(bool)
	return check
}
