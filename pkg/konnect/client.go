package konnect

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Kong/sdk-konnect-go/models/operations"
)

// ClientFactory makes and caches Konnect clients: one per (server URL,
// token), each with its own HTTP client and connection pool, all sharing the
// rate limiter of their organisation and the metrics. It is safe for
// concurrent use; the operator makes one and hands it to every controller.
type ClientFactory struct {
	opts     Options
	limiters *limiters
	holds    *holds

	mu      sync.Mutex
	clients map[clientKey]*Client
}

// clientKey identifies a cached client without keeping the token itself as
// a map key.
type clientKey struct {
	serverURL string
	tokenHash string
}

// NewClientFactory returns a factory whose clients use opts (unset fields
// take the package defaults).
func NewClientFactory(opts Options) *ClientFactory {
	opts = opts.withDefaults()
	return &ClientFactory{
		opts: opts,
		limiters: &limiters{
			clock:             opts.Clock,
			requestsPerSecond: opts.RequestsPerSecond,
			burst:             opts.Burst,
			metrics:           opts.Metrics,
		},
		holds:   newHolds(opts.Clock, opts.Metrics),
		clients: map[clientKey]*Client{},
	}
}

// Client returns the cached client for (serverURL, token), making it on
// first use. serverURL may be in any form NormalizeServerURL accepts.
func (f *ClientFactory) Client(serverURL, token string) (*Client, error) {
	normalized, err := NormalizeServerURL(serverURL)
	if err != nil {
		return nil, &InvalidInputError{Operation: "connect", Message: err.Error()}
	}
	if token == "" {
		return nil, &InvalidInputError{Operation: "connect", Message: "the token for " + normalized + " is empty"}
	}
	key := clientKey{serverURL: normalized, tokenHash: hashToken(token)}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.clients[key]; ok {
		return c, nil
	}
	c, err := f.newClient(normalized, token, key)
	if err != nil {
		return nil, err
	}
	f.clients[key] = c
	return c, nil
}

// API returns Konnect's API through the cached client for (serverURL,
// token); see Client.
func (f *ClientFactory) API(serverURL, token string) (API, error) {
	c, err := f.Client(serverURL, token)
	if err != nil {
		return API{}, err
	}
	return c.API(), nil
}

// Forget drops the cached client for (serverURL, token) and closes its idle
// connections; the operator calls it when a token is replaced, so that old
// tokens do not stay in memory. The token's holds end (whoever waits on
// them comes back and reads the current token), and no probe uses it again.
func (f *ClientFactory) Forget(serverURL, token string) {
	normalized, err := NormalizeServerURL(serverURL)
	if err != nil {
		return
	}
	key := clientKey{serverURL: normalized, tokenHash: hashToken(token)}
	f.mu.Lock()
	c, ok := f.clients[key]
	delete(f.clients, key)
	f.mu.Unlock()
	f.holds.forgetToken(key.serverURL, key.tokenHash)
	if ok {
		f.probeWithAnother(c)
		c.httpClient.CloseIdleConnections()
	}
}

// probeWithAnother keeps the probes of c's organisation from using c's
// token, which is forgotten: another client of the organisation probes
// instead (none: the next request of the organisation will).
func (f *ClientFactory) probeWithAnother(c *Client) {
	reach := c.reach.Load()
	f.mu.Lock()
	var another *Client
	for _, other := range f.clients {
		if other.reach.Load() == reach && !other.auth.isHeld() {
			another = other
			break
		}
	}
	f.mu.Unlock()
	reach.replaceProber(c, another)
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func (f *ClientFactory) newClient(serverURL, token string, key clientKey) (*Client, error) {
	c := &Client{
		serverURL: serverURL,
		factory:   f,
		httpClient: &http.Client{
			Transport: newTransport(f.opts.RootCAs, f.opts.DialContext),
			Timeout:   f.opts.Timeout,
			// Konnect does not redirect; following one would resend the
			// token somewhere this package did not choose.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	// Until Me tells whose token this is, the token gets a limiter (and a
	// hold) of its own.
	c.limiter.Store(f.limiters.token(key.serverURL, key.tokenHash))
	c.reach.Store(f.holds.unplaced(key.serverURL, key.tokenHash))
	c.auth = f.holds.token(key.serverURL, key.tokenHash)
	server, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("konnect client for %s: %w", serverURL, err)
	}
	do := &doer{client: c, server: server, token: token, userAgent: f.opts.UserAgent, metrics: f.opts.Metrics, writeFence: f.opts.WriteFence}
	do.send = roundTripFunc(do.limitedRoundTrip)
	if f.opts.WrapTransport != nil {
		do.send = f.opts.WrapTransport(do.send)
	}
	c.sdk = newAPI(serverURL, do)
	return c, nil
}

// newTransport is a connection pool for one client: keep-alive on, bounded
// idle connections, TLS 1.2 or later against rootCAs (nil: system pool).
// dial, when set, replaces the dialer.
func newTransport(rootCAs *x509.CertPool, dial func(ctx context.Context, network, address string) (net.Conn, error)) *http.Transport {
	if dial == nil {
		dial = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dial,
		TLSClientConfig:       &tls.Config{RootCAs: rootCAs, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Client talks to one Konnect server with one token. Get one from
// ClientFactory.Client; it is safe for concurrent use.
type Client struct {
	serverURL  string
	factory    *ClientFactory
	httpClient *http.Client
	sdk        API
	limiter    atomic.Pointer[limiter]
	orgID      atomic.Pointer[string]
	// reach holds the organisation's requests while Konnect does not answer
	// them, auth the token's while Konnect rejects it (see hold.go).
	reach atomic.Pointer[hold]
	auth  *hold
}

// API is Konnect through Kong's SDK, with this client's token, rate limiter
// and metrics.
func (c *Client) API() API { return c.sdk }

// ServerURL is the normalised server URL this client talks to.
func (c *Client) ServerURL() string { return c.serverURL }

// OrganizationID is the organisation Me found for this client's token, or ""
// before Me has succeeded.
func (c *Client) OrganizationID() string {
	if id := c.orgID.Load(); id != nil {
		return *id
	}
	return ""
}

// Organization is the Konnect organisation a token belongs to.
type Organization struct {
	ID   string
	Name string
}

// Me asks Konnect whose token this client holds (GET /v3/organizations/me),
// which also proves the token valid. From then on the client shares the rate
// limiter of that organisation with every other client of it.
func (c *Client) Me(ctx context.Context) (Organization, error) {
	op := Operation{Verb: "get", Entity: "organization"}
	res, err := Call(ctx, op, func(ctx context.Context) (*operations.GetOrganizationsMeResponse, error) {
		return c.sdk.Me.GetOrganizationsMe(ctx)
	})
	if err != nil {
		return Organization{}, err
	}
	me := res.MeOrganization
	if me == nil || me.ID == nil || *me.ID == "" {
		return Organization{}, &TransientError{Operation: op.String(), StatusCode: res.StatusCode, Message: "answer has no organisation id"}
	}
	org := Organization{ID: *me.ID}
	if me.Name != nil {
		org.Name = *me.Name
	}
	// Rate limits are counted per organisation on each regional server.
	c.limiter.Store(c.factory.limiters.organization(c.serverURL, org.ID))
	c.reach.Store(c.factory.holds.organization(c.serverURL, org.ID))
	c.auth.setOrganization(org.ID)
	c.orgID.Store(&org.ID)
	return org, nil
}

// Organization asks Konnect whose token this is, through the cached client
// for (serverURL, token); see Client.Me.
func (f *ClientFactory) Organization(ctx context.Context, serverURL, token string) (Organization, error) {
	c, err := f.Client(serverURL, token)
	if err != nil {
		return Organization{}, err
	}
	org, err := c.Me(withCheck(ctx))
	if err == nil {
		f.replaced(c, org.ID)
	}
	return org, err
}

// replaced retires the holds of the tokens that c's valid token replaces:
// those Konnect rejected on the same server, of its organisation or of none
// known. A token is validated when its configuration (or its Secret) names
// it, so a token held for Konnect's refusal is no longer what is current:
// whoever waited on it comes back and reads the current token, and it is
// not probed any more. What still remembers it is refused without a
// request; a configuration that still names it checks it again.
func (f *ClientFactory) replaced(c *Client, orgID string) {
	f.mu.Lock()
	var others []*Client
	for _, other := range f.clients {
		if other != c && other.serverURL == c.serverURL {
			others = append(others, other)
		}
	}
	f.mu.Unlock()
	for _, other := range others {
		if org := other.auth.organizationID(); org == orgID || org == "" {
			other.auth.retire()
		}
	}
}

// doer is the generated client's HTTP layer: it waits for the rate limiter,
// authenticates, sends, records metrics and feeds the answer's rate-limit
// headers back to the limiter.
type doer struct {
	client    *Client
	server    *url.URL
	token     string
	userAgent string
	metrics   *Metrics
	// writeFence is Options.WriteFence.
	writeFence func() error
	// send is limitedRoundTrip, wrapped by Options.WrapTransport if set.
	send http.RoundTripper
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
	org := d.client.OrganizationID()
	lim := d.client.limiter.Load()
	inFlight, waited, err := lim.acquire(ctx)
	d.metrics.observeWait(org, waited)
	if err != nil {
		return nil, err
	}
	sent := false
	defer func() { inFlight.done(sent) }()
	// A round tripper leaves its caller's request alone (a wrapper may look
	// at it afterwards); the copy alone carries the token.
	req = req.Clone(ctx)
	keepOnServer(req, d.server)
	req.Header.Set("Authorization", "Bearer "+d.token)
	req.Header.Set("User-Agent", d.userAgent)
	req.Header.Set("Accept", "application/json, application/problem+json")
	// As late as it can be: a process that lost its lease while it waited
	// for its turn does not write.
	if err := d.fenced(req); err != nil {
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
	return resp, nil
}
