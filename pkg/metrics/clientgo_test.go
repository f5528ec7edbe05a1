package metrics

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// TestAThrottledKubernetesClientShows runs a Kubernetes client whose
// rate limiter delays every request after the first against a server of its
// own, and checks what client-go reported through the hooks: the requests
// by code, method and host, their latency, and the time they waited at the
// client's limiter.
func TestAThrottledKubernetesClientShows(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	if err := RegisterClientGo(reg); err != nil {
		t.Fatal(err)
	}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"},
		})
	}))
	defer server.Close()
	host := mustParseURL(t, server.URL).Host // labels every series of this test's client alone

	limiter := &delayingLimiter{delay: 100 * time.Millisecond}
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: server.URL, RateLimiter: limiter})
	if err != nil {
		t.Fatal(err)
	}
	const requests = 3
	begin := time.Now()
	for range requests {
		if _, err := kube.CoreV1().ConfigMaps("ns").Get(t.Context(), "cm", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(begin)

	if got := gatheredValue(t, reg, MetricRESTRequests, map[string]string{"code": "200", "method": "GET", "host": host}); got != requests {
		t.Errorf("%s{code=200,method=GET} = %v, want %d", MetricRESTRequests, got, requests)
	}
	if count, _ := histogramOf(t, reg, MetricRESTRequestDuration, map[string]string{"verb": "GET", "host": host}); count != requests {
		t.Errorf("%s count = %d, want %d", MetricRESTRequestDuration, count, requests)
	}
	// client-go times each wait around the limiter's own: the sum it
	// reports holds at least what the limiter measured of itself (which
	// includes its delays) and at most what the requests took in all.
	count, waited := histogramOf(t, reg, MetricRESTRateLimiterDuration, map[string]string{"verb": "GET", "host": host})
	if count != requests {
		t.Errorf("%s count = %d, want %d", MetricRESTRateLimiterDuration, count, requests)
	}
	delayed := limiter.waited()
	if delayed < (requests-1)*limiter.delay {
		t.Fatalf("the limiter waited %s in all, want at least its %d delays of %s", delayed, requests-1, limiter.delay)
	}
	if waited < delayed.Seconds() || waited > took.Seconds() {
		t.Errorf("%s sum = %.3fs, want at least the %.3fs the limiter waited and at most the %.3fs the requests took", MetricRESTRateLimiterDuration, waited, delayed.Seconds(), took.Seconds())
	}
}

// delayingLimiter is a client-go rate limiter that lets the first request go
// at once and delays each later one by delay, and measures how long its own
// waits took.
type delayingLimiter struct {
	delay time.Duration
	mu    sync.Mutex
	calls int
	spent time.Duration
}

func (l *delayingLimiter) Wait(ctx context.Context) error {
	begin := time.Now()
	l.mu.Lock()
	l.calls++
	first := l.calls == 1
	l.mu.Unlock()
	if !first {
		timer := time.NewTimer(l.delay)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
	}
	l.mu.Lock()
	l.spent += time.Since(begin)
	l.mu.Unlock()
	return nil
}

func (l *delayingLimiter) waited() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spent
}

func (l *delayingLimiter) TryAccept() bool { return true }
func (l *delayingLimiter) Accept()         {}
func (l *delayingLimiter) Stop()           {}
func (l *delayingLimiter) QPS() float32    { return 0 }

// TestLeaderElectionStatusFollowsTheLease runs client-go's leader election
// on a Lease of a fake clientset: leader_election_master_status{name} is 0
// before the Lease is held, 1 while it is, and 0 once it is lost (its
// renewals refused). (client-go reports nothing when a stopping process
// releases the Lease: the process ends then.)
func TestLeaderElectionStatusFollowsTheLease(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	if err := RegisterClientGo(reg); err != nil {
		t.Fatal(err)
	}
	const lease = "metrics-test-lease"
	client := fake.NewClientset()
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, "ns", lease, client.CoreV1(), client.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: "me"})
	if err != nil {
		t.Fatal(err)
	}
	leading, lost := make(chan struct{}), make(chan struct{})
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: lock, Name: lease,
		LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { close(leading) },
			OnStoppedLeading: func() { close(lost) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	status := func() float64 {
		return gatheredValue(t, reg, MetricLeaderElectionStatus, map[string]string{"name": lease})
	}
	if got := status(); got != 0 {
		t.Errorf("%s before running = %v, want 0", MetricLeaderElectionStatus, got)
	}
	go elector.Run(t.Context())
	select {
	case <-leading:
	case <-time.After(time.Minute):
		t.Fatal("never became the leader")
	}
	if got := status(); got != 1 {
		t.Errorf("%s while leading = %v, want 1", MetricLeaderElectionStatus, got)
	}
	// The API server refuses every renewal from now on.
	refused := make(chan struct{}, 1)
	client.PrependReactor("update", "leases", func(clienttesting.Action) (bool, runtime.Object, error) {
		select {
		case refused <- struct{}{}:
		default:
		}
		return true, nil, apierrors.NewServiceUnavailable("renewals refused by the test")
	})
	select {
	case <-lost:
	case <-time.After(time.Minute):
		t.Fatal("the Lease was never lost")
	}
	select {
	case <-refused:
	default:
		t.Fatal("the Lease was lost without a refused renewal")
	}
	if got := status(); got != 0 {
		t.Errorf("%s once the Lease is lost = %v, want 0", MetricLeaderElectionStatus, got)
	}
}

func mustParseURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// labelsInclude reports whether labels hold every pair of match.
func labelsInclude(labels []*dto.LabelPair, match map[string]string) bool {
	for k, v := range match {
		found := false
		for _, l := range labels {
			if l.GetName() == k && l.GetValue() == v {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
