package metrics

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/leaderelection"
	clientmetrics "k8s.io/client-go/tools/metrics"
)

// Names of client-go's metrics, as every Kubernetes component and
// controller-runtime serve them: the Kubernetes client's requests, their
// latency and the time they waited at its rate limiter (--kube-api-qps,
// --kube-api-burst), and the leader-election Lease.
const (
	MetricRESTRequests            = "rest_client_requests_total"
	MetricRESTRequestDuration     = "rest_client_request_duration_seconds"
	MetricRESTRateLimiterDuration = "rest_client_rate_limiter_duration_seconds"
	MetricRESTRetries             = "rest_client_request_retries_total"
	MetricLeaderElectionStatus    = "leader_election_master_status"
	MetricLeaderElectionSlowpath  = "leader_election_slowpath_total"
)

// ErrClientGoHooksTaken says that something else in the process installed
// client-go's metric hooks first, so that the rest_client_* metrics would
// stay empty.
var ErrClientGoHooksTaken = errors.New("client-go's metric hooks were installed by another package first")

// clientGo holds client-go's metrics. client-go reports them through
// process-wide hooks that can be set once, so they are the process's, not
// one operator's: each operator's registry serves the same collectors.
var clientGo = struct {
	once sync.Once
	err  error

	requests, retries, leaderSlowpath *prometheus.CounterVec
	latency, rateLimiterLatency       *prometheus.HistogramVec
	leaderStatus                      *prometheus.GaugeVec
}{
	requests: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricRESTRequests,
		Help: "Requests of the Kubernetes client, by status code, method and host.",
	}, []string{"code", "method", "host"}),
	retries: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricRESTRetries,
		Help: "Requests of the Kubernetes client retried, by status code, verb and host.",
	}, []string{"code", "verb", "host"}),
	latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    MetricRESTRequestDuration,
		Help:    "Latency of the Kubernetes client's requests, by verb and host.",
		Buckets: restBuckets,
	}, []string{"verb", "host"}),
	rateLimiterLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    MetricRESTRateLimiterDuration,
		Help:    "Time the Kubernetes client's requests waited at its own rate limiter (--kube-api-qps, --kube-api-burst), by verb and host.",
		Buckets: restBuckets,
	}, []string{"verb", "host"}),
	leaderStatus: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: MetricLeaderElectionStatus,
		Help: "1 while this process holds the leader-election Lease name, else 0.",
	}, []string{"name"}),
	leaderSlowpath: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricLeaderElectionSlowpath,
		Help: "Times the leader election of Lease name fell back to reading the Lease from the API server.",
	}, []string{"name"}),
}

// restBuckets are client-go's own (component-base's), up to a minute.
var restBuckets = []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60}

// RegisterClientGo installs client-go's metric hooks and its
// leader-election metrics provider (once per process) and serves their
// metrics on reg. It returns ErrClientGoHooksTaken when another package had
// installed the hooks before: the operator then serves those metrics empty.
func RegisterClientGo(reg prometheus.Registerer) error {
	clientGo.once.Do(func() {
		requests := resultHook{clientGo.requests}
		clientmetrics.Register(clientmetrics.RegisterOpts{
			RequestResult:      requests,
			RequestRetry:       retryHook{clientGo.retries},
			RequestLatency:     latencyHook{clientGo.latency},
			RateLimiterLatency: latencyHook{clientGo.rateLimiterLatency},
		})
		if clientmetrics.RequestResult != clientmetrics.ResultMetric(requests) {
			clientGo.err = ErrClientGoHooksTaken
		}
		leaderelection.SetProvider(leaderHooks{})
	})
	reg.MustRegister(clientGo.requests, clientGo.retries, clientGo.latency, clientGo.rateLimiterLatency,
		clientGo.leaderStatus, clientGo.leaderSlowpath)
	return clientGo.err
}

// resultHook counts the client's requests.
type resultHook struct{ counter *prometheus.CounterVec }

func (h resultHook) Increment(_ context.Context, code, method, host string) {
	h.counter.WithLabelValues(code, method, host).Inc()
}

// retryHook counts the client's retries.
type retryHook struct{ counter *prometheus.CounterVec }

func (h retryHook) IncrementRetry(_ context.Context, code, verb, host string) {
	h.counter.WithLabelValues(code, verb, host).Inc()
}

// latencyHook times the client's requests, or their wait at its limiter,
// labelled by host only: a label per URL would be one per object.
type latencyHook struct{ histogram *prometheus.HistogramVec }

func (h latencyHook) Observe(_ context.Context, verb string, u url.URL, latency time.Duration) {
	h.histogram.WithLabelValues(verb, u.Host).Observe(latency.Seconds())
}

// leaderHooks is client-go's leader-election metrics provider.
type leaderHooks struct{}

func (leaderHooks) NewLeaderMetric() leaderelection.LeaderMetric { return leaderHooks{} }

func (leaderHooks) On(name string)  { clientGo.leaderStatus.WithLabelValues(name).Set(1) }
func (leaderHooks) Off(name string) { clientGo.leaderStatus.WithLabelValues(name).Set(0) }
func (leaderHooks) SlowpathExercised(name string) {
	clientGo.leaderSlowpath.WithLabelValues(name).Inc()
}
