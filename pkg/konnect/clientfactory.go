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
	"time"
)

// ClientFactory makes and caches Konnect clients: one per (server URL,
// token), each with its own HTTP client and connection pool, all sharing the
// rate limiter of their organisation and the metrics. It is safe for
// concurrent use; the operator makes one and hands it to every controller.
//
// It keeps at most Options.MaxClients clients. Past that, making one drops
// the client used least recently: whoever uses that one next gets a new one
// (a new connection, and a limiter of its token's own until the next Me),
// so that a tenant that makes ever more tokens costs the others a little
// pacing and never their clients for good.
type ClientFactory struct {
	opts     Options
	limiters *limiters
	holds    *holds

	mu      sync.Mutex
	clients map[clientKey]*Client
	// uses numbers the lookups, so that the client used least recently is
	// the one with the lowest lastUse.
	uses uint64
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
	hs := newHolds(opts.Clock, opts.Metrics)
	return &ClientFactory{
		opts: opts,
		limiters: &limiters{
			clock:             opts.Clock,
			requestsPerSecond: opts.RequestsPerSecond,
			burst:             opts.Burst,
			metrics:           opts.Metrics,
			// A reachability hold lives as long as the limiter of the same
			// organisation (or token): while a client uses it.
			dropped: func(key string) { hs.drop(reachKey(key)) },
		},
		holds:   hs,
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
	if !f.opts.AllowedHosts.Allows(normalized) {
		return nil, &InvalidInputError{Operation: "connect", Message: (&NotAllowedError{ServerURL: normalized, Allowed: f.opts.AllowedHosts, Setting: "the list of allowed hosts"}).Error()}
	}
	key := clientKey{serverURL: normalized, tokenHash: hashToken(token)}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.uses++
	if c, ok := f.clients[key]; ok {
		c.lastUse = f.uses
		return c, nil
	}
	c, err := f.newClient(normalized, token, key)
	if err != nil {
		return nil, err
	}
	if len(f.clients) >= f.opts.MaxClients {
		f.dropLeastRecentLocked()
	}
	c.lastUse = f.uses
	f.clients[key] = c
	return c, nil
}

// dropLeastRecentLocked drops the client used least recently; f.mu is
// locked.
func (f *ClientFactory) dropLeastRecentLocked() {
	var oldest clientKey
	var found *Client
	for key, c := range f.clients {
		if found == nil || c.lastUse < found.lastUse {
			oldest, found = key, c
		}
	}
	if found != nil {
		delete(f.clients, oldest)
		found.close()
	}
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

// Forget drops the cached client for (serverURL, token): its idle
// connections close, and its limiter goes once no other client uses it,
// with the metric series of its organisation when that was the
// organisation's last client. The operator calls it when a token is
// replaced or its configuration deleted, so that old tokens do not stay in
// memory. Requests in flight on the client finish. The token's holds end
// (whoever waits on them comes back and reads the current token), and no
// probe uses it again.
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
		c.retired.Store(true)
		f.probeWithAnother(c)
		c.close()
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

// Clients is how many clients the factory keeps.
func (f *ClientFactory) Clients() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.clients)
}

// Limiters is how many rate limiters (of organisations, and of tokens whose
// organisation is not known yet) the factory's clients use.
func (f *ClientFactory) Limiters() int { return f.limiters.count() }

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func (f *ClientFactory) newClient(serverURL, token string, key clientKey) (*Client, error) {
	server, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("konnect client for %s: %w", serverURL, err)
	}
	c := &Client{
		serverURL: serverURL,
		tokenHash: key.tokenHash,
		factory:   f,
		httpClient: &http.Client{
			Transport: newTransport(f.opts.RootCAs, f.opts.DialContext),
			// The whole exchange, the body's reading included: a server
			// that answers slowly is given up on like one that is silent.
			Timeout: f.opts.Timeout,
			// Konnect does not redirect; following one would resend the
			// token somewhere this package did not choose.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	// Until Me tells whose token this is, the token gets a limiter (and a
	// hold) of its own.
	c.reg.Store(f.limiters.token(key.serverURL, key.tokenHash))
	c.reach.Store(f.holds.unplaced(key.serverURL, key.tokenHash))
	c.auth = f.holds.token(key.serverURL, key.tokenHash)
	do := &doer{client: c, server: server, token: token, userAgent: f.opts.UserAgent, metrics: f.opts.Metrics, limits: f.opts.readLimits(), writeFence: f.opts.WriteFence}
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
		// Konnect's headers are a few hundred bytes; Go's default allows
		// 10 MiB.
		MaxResponseHeaderBytes: 64 << 10,
	}
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
