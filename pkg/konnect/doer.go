package konnect

import (
	"net/http"
	"net/url"
	"sync"
	"time"
)

// doer is the generated client's HTTP layer: it waits for the rate limiter,
// authenticates, sends, records metrics, feeds the answer's rate-limit
// headers back to the limiter and reads the answer's body through its
// limit.
type doer struct {
	client    *Client
	server    *url.URL
	token     string
	userAgent string
	metrics   *Metrics
	limits    readLimits
	// writeFence is Options.WriteFence.
	writeFence func() error
	// send is limitedRoundTrip, wrapped by Options.WrapTransport if set.
	send http.RoundTripper
}

// readLimits are what a client reads of its answers (see Options).
type readLimits struct {
	answerBytes, pageBytes int64
	listing                ListingLimits
}

// Do sends one request of the SDK.
func (d *doer) Do(req *http.Request) (*http.Response, error) { return d.send.RoundTrip(req) }

// roundTripFunc is a function that is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// limitedRoundTrip refuses the request while its organisation or token is
// held (see hold.go), takes its turn at the rate limiter (waiting for it,
// or, for a deferrable context, refusing the call with its turn: see
// WithDeferral), refuses a write the fence forbids, sends req and feeds
// the answer back to the limiter and the holds.
func (d *doer) limitedRoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	op := operationFrom(ctx)
	if !isProbe(ctx) {
		if err := d.client.refuseHeld(ctx); err != nil {
			return nil, err
		}
	}
	listing := listingReadFrom(ctx)
	if listing != nil {
		listing.sentBy(d.limits.listing, d.server.Host)
	}
	org := d.client.OrganizationID()
	lim := d.client.limiter()
	inFlight, waited, err := lim.acquire(ctx)
	d.metrics.observeWait(org, waited)
	if err != nil {
		return nil, err
	}
	// The request is in flight until its answer is read (or given up on):
	// a server that sends its headers and then trickles the body uses up
	// the organisation's in-flight cap, not every worker that calls it.
	sent, handedOver := false, false
	finished := sync.OnceFunc(func() { inFlight.done(sent) })
	defer func() {
		if !handedOver {
			finished()
		}
	}()
	// A round tripper leaves its caller's request alone (a wrapper may look
	// at it afterwards); the copy alone carries the token.
	req = req.Clone(ctx)
	keepOnServer(req, d.server)
	req.Header.Set("Authorization", "Bearer "+d.token)
	req.Header.Set("User-Agent", d.userAgent)
	req.Header.Set("Accept", "application/json, application/problem+json")
	// As late as it can be: a process that lost its lease while it waited
	// for its turn does not write, and a client forgotten meanwhile (its
	// token replaced) sends nothing more with it.
	if err := d.fenced(req); err != nil {
		return nil, err
	}
	if err := d.client.refuseRetired(op); err != nil {
		return nil, err
	}
	start := time.Now()
	sent = true
	answered := d.client.reach.Load().sending()
	resp, err := d.client.httpClient.Do(req)
	answered()
	if err != nil {
		d.metrics.observeRequest(op, org, 0, time.Since(start))
		d.client.observeAnswer(req, op, nil, err)
		return nil, err
	}
	d.client.observeAnswer(req, op, resp, nil)
	d.metrics.observeRequest(op, org, resp.StatusCode, time.Since(start))
	d.metrics.observeRemaining(org, resp.Header)
	lim.observe(resp.StatusCode, resp.Header)
	if err := d.limitBody(resp, listing, finished); err != nil {
		return nil, err
	}
	handedOver = true
	return resp, nil
}
