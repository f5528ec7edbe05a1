package konnect

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"time"

	"k8s.io/utils/clock"
)

const (
	// DefaultRequestsPerSecond is the request rate per organisation before
	// Konnect has stated its budget (RateLimit-Limit), when Options sets no
	// ceiling: a little under the 3,000 requests a minute (50/s) Konnect has
	// been seen to allow. Once Konnect states its budget, the limiter
	// follows that instead.
	DefaultRequestsPerSecond = 48
	// DefaultBurst is the token-bucket size when Options leaves it unset; the
	// limiter never lets more than a second's worth of its current rate out
	// at once, whatever the burst.
	DefaultBurst = 20
	// DefaultTimeout bounds one request (sending it and reading the answer)
	// when Options leaves it unset. Time spent waiting for the rate limiter
	// does not count.
	DefaultTimeout = 30 * time.Second
	// DefaultUserAgent is sent when Options leaves UserAgent empty.
	DefaultUserAgent = "konnect-operator"
	// DefaultMaxClients is how many clients (server URL and token pairs)
	// a factory keeps when Options leaves MaxClients unset: a client for
	// each auth configuration of a cluster of many teams, with room for
	// tokens being replaced.
	DefaultMaxClients = 1024
)

// Options configures a ClientFactory and every client it makes.
type Options struct {
	// RequestsPerSecond is a ceiling on the request rate per organisation
	// (before the organisation is known: per server URL and token). 0 means
	// none: the limiter follows the budget Konnect states in its
	// RateLimit-Limit header, and sends DefaultRequestsPerSecond until
	// Konnect has stated one. Either way the limiter slows down further as
	// Konnect's RateLimit-Remaining runs low and when Konnect answers 429.
	RequestsPerSecond float64
	// Burst is how many requests may go out at once after a quiet period.
	// 0 means DefaultBurst.
	Burst int
	// Timeout bounds each request. 0 means DefaultTimeout.
	Timeout time.Duration
	// RootCAs are the certificate authorities trusted for Konnect's TLS
	// certificate; nil means the system pool. See LoadCAFile.
	RootCAs *x509.CertPool
	// UserAgent is sent with every request. "" means DefaultUserAgent.
	UserAgent string
	// Metrics receives request counts, latencies, 429s and limiter waits;
	// nil records nothing.
	Metrics *Metrics
	// Clock drives the rate limiter; nil means the real clock. Tests pass a
	// fake clock to step through limiter delays without sleeping.
	Clock clock.Clock
	// DialContext, when set, opens the connections to Konnect instead of
	// the system's resolver and dialer; TLS still verifies the server URL's
	// host name. Tests use it to serve Konnect's own host names (manifests
	// that name us.api.konghq.com) from the simulator.
	DialContext func(ctx context.Context, network, address string) (net.Conn, error)
	// WrapTransport, when set, wraps each request as a client sends it:
	// the wrapped round trip waits for the rate limiter, sends the request
	// and lets the limiter read the answer's rate-limit headers before it
	// returns. As client-go's rest.Config.WrapTransport, it is for tracing
	// and tests (which record when each call began and ended on Clock).
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// MaxAnswerBytes bounds the body of every answer outside a listing's
	// pages; 0 means DefaultMaxAnswerBytes. A longer one fails its request
	// with a *ServerFaultError.
	MaxAnswerBytes int64
	// MaxPageBytes bounds the body of one page of a listing; 0 means
	// DefaultMaxPageBytes.
	MaxPageBytes int64
	// Listing bounds each listing; its unset fields take
	// DefaultListingLimits'.
	Listing ListingLimits
	// MaxClients bounds the clients the factory keeps (and so the rate
	// limiters: one per client at most); 0 means DefaultMaxClients.
	MaxClients int
	// AllowedHosts are the only servers a client is made for; the zero
	// value allows any. The operator sets it from --konnect-allowed-hosts,
	// so that no path can send a token elsewhere, whatever it was given.
	AllowedHosts AllowedHosts
	// WriteFence, when set, is asked right before each request that writes
	// to Konnect (POST, PUT, PATCH, DELETE) is sent, after its turn at the
	// rate limiter: an error refuses the write, which fails with a
	// *WriteRefusedError without being sent. The operator's says whether
	// the process still holds its leader-election Lease.
	WriteFence func() error
}

// withDefaults returns o with every unset field filled in.
func (o Options) withDefaults() Options {
	if o.RequestsPerSecond < 0 {
		o.RequestsPerSecond = 0
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.MaxAnswerBytes <= 0 {
		o.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if o.MaxPageBytes <= 0 {
		o.MaxPageBytes = DefaultMaxPageBytes
	}
	o.Listing = o.Listing.withDefaults()
	if o.MaxClients <= 0 {
		o.MaxClients = DefaultMaxClients
	}
	return o
}

// readLimits are what the clients read of their answers.
func (o Options) readLimits() readLimits {
	return readLimits{answerBytes: o.MaxAnswerBytes, pageBytes: o.MaxPageBytes, listing: o.Listing}
}
