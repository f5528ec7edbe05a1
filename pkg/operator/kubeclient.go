package operator

import (
	"context"
	"fmt"
	"net/http"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// The Kubernetes client must never be what limits Konnect work. A create
// costs two or three writes to the API server (the finalizer, the status,
// sometimes an Event) for one Konnect call, and Konnect allows about 50
// calls a second (3,000 a minute): an API server that queues requests
// itself (API Priority and Fairness, on by default since Kubernetes 1.20)
// is better left to do so, and without it the client allows four writes
// per Konnect call at that budget.
const (
	// FallbackKubeAPIQPS is the client's rate when the API server does not
	// run Priority and Fairness.
	FallbackKubeAPIQPS = 200
	// FallbackKubeAPIBurst is its burst.
	FallbackKubeAPIBurst = 2 * FallbackKubeAPIQPS
)

// probeTimeout bounds the one request that asks the API server whether it
// runs Priority and Fairness.
const probeTimeout = 10 * time.Second

// KubeClientRate is what SetKubeClientRate chose, and why.
type KubeClientRate struct {
	// QPS is rest.Config's: below 0, no client-side limit.
	QPS   float32
	Burst int
	// Reason says where the figures came from, for the start-up log.
	Reason string
}

// SetKubeClientRate sets cfg's client-side rate limit. An explicit qps
// (above 0: that rate; below 0: none) is kept, with burst or, when burst is
// 0, twice qps. qps 0 asks for the automatic choice: no client-side limit
// when the API server answers with Priority and Fairness's headers (it
// then queues and, if it must, answers 429 with Retry-After, which
// client-go waits out and retries), else FallbackKubeAPIQPS.
func SetKubeClientRate(ctx context.Context, cfg *rest.Config, qps float64, burst int) KubeClientRate {
	rate := KubeClientRate{QPS: float32(qps), Burst: burst, Reason: "--kube-api-qps"}
	if qps == 0 {
		apf, err := servesPriorityAndFairness(ctx, cfg)
		switch {
		case err != nil:
			rate = KubeClientRate{QPS: FallbackKubeAPIQPS, Burst: burst,
				Reason: fmt.Sprintf("could not ask the API server whether it runs Priority and Fairness (%v)", err)}
		case apf:
			rate = KubeClientRate{QPS: -1, Burst: burst, Reason: "the API server runs Priority and Fairness"}
		default:
			rate = KubeClientRate{QPS: FallbackKubeAPIQPS, Burst: burst, Reason: "the API server does not run Priority and Fairness"}
		}
	}
	switch {
	case rate.QPS < 0:
		// No limit, so no burst. A limiter that never waits rather than
		// none, which would replace any given with the configuration: the
		// client still measures its (zero) waits, so that
		// rest_client_rate_limiter_duration_seconds, which dashboards
		// query, is served and says the client never throttles.
		rate.Burst = 0
		cfg.RateLimiter = neverWaits{}
	case rate.Burst <= 0:
		rate.Burst = max(1, int(2*rate.QPS))
	}
	cfg.QPS, cfg.Burst = rate.QPS, rate.Burst
	return rate
}

// servesPriorityAndFairness asks the API server for the discovery document
// of the flowcontrol group and reports whether its answer was classified by
// Priority and Fairness: a server that runs it names the FlowSchema of
// every request it admits in a response header, whatever the answer (a
// server that serves the group's API with the feature turned off does
// not).
func servesPriorityAndFairness(ctx context.Context, cfg *rest.Config) (bool, error) {
	base, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return false, err
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.JoinPath("/apis", flowcontrolv1.GroupName).String(), nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	if cfg.UserAgent != "" {
		req.Header.Set("User-Agent", cfg.UserAgent)
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err
	}
	_ = resp.Body.Close()
	return resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID) != "", nil
}

// neverWaits is a client-side rate limiter without a limit.
type neverWaits struct{}

var _ flowcontrol.RateLimiter = neverWaits{}

func (neverWaits) TryAccept() bool            { return true }
func (neverWaits) Accept()                    {}
func (neverWaits) Stop()                      {}
func (neverWaits) QPS() float32               { return 0 }
func (neverWaits) Wait(context.Context) error { return nil }
