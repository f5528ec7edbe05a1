package integration

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"

	"github.com/konnect-operator/konnect-operator/pkg/operator"
)

// TestKubeClientRateFollowsTheAPIServer proves the automatic choice of
// --kube-api-qps 0: no client-side limit in front of an API server that
// runs Priority and Fairness (the real one of these tests does, as every
// kube-apiserver does by default), the fallback rate in front of one that
// does not, and explicit flags kept as given.
func TestKubeClientRateFollowsTheAPIServer(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	// An API server with Priority and Fairness turned off answers without
	// its headers; this one answers every request so.
	withoutAPF := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"APIGroup","apiVersion":"v1","name":"flowcontrol.apiserver.k8s.io","versions":[]}`))
	}))
	defer withoutAPF.Close()
	unreachable := httptest.NewServer(http.NotFoundHandler())
	unreachable.Close()

	tests := []struct {
		name      string
		config    *rest.Config
		qps       float64
		burst     int
		wantQPS   float32
		wantBurst int
		// limited says whether the clients built from the configuration
		// have a client-side rate limiter.
		limited bool
	}{
		{name: "automatic, the API server runs Priority and Fairness: no client-side limit", config: rest.CopyConfig(cluster.Config), wantQPS: -1},
		{name: "automatic, the API server does not: the fallback", config: &rest.Config{Host: withoutAPF.URL},
			wantQPS: operator.FallbackKubeAPIQPS, wantBurst: operator.FallbackKubeAPIBurst, limited: true},
		{name: "automatic, the API server cannot be asked: the fallback", config: &rest.Config{Host: unreachable.URL},
			wantQPS: operator.FallbackKubeAPIQPS, wantBurst: operator.FallbackKubeAPIBurst, limited: true},
		{name: "explicit rate and burst are kept", config: rest.CopyConfig(cluster.Config), qps: 30, burst: 45, wantQPS: 30, wantBurst: 45, limited: true},
		{name: "explicit rate, burst 0: twice the rate", config: rest.CopyConfig(cluster.Config), qps: 30, wantQPS: 30, wantBurst: 60, limited: true},
		{name: "explicit rate below 0: no limit, even against a server without Priority and Fairness", config: &rest.Config{Host: withoutAPF.URL}, qps: -1, burst: 50, wantQPS: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rate := operator.SetKubeClientRate(ctx, tt.config, tt.qps, tt.burst)
			if rate.QPS != tt.wantQPS || rate.Burst != tt.wantBurst {
				t.Errorf("chose %v/s burst %d (%s), want %v/s burst %d", rate.QPS, rate.Burst, rate.Reason, tt.wantQPS, tt.wantBurst)
			}
			if tt.config.QPS != rate.QPS || tt.config.Burst != rate.Burst {
				t.Errorf("the configuration says %v/s burst %d, the choice %v/s burst %d", tt.config.QPS, tt.config.Burst, rate.QPS, rate.Burst)
			}
			if rate.Reason == "" {
				t.Error("no reason given for the choice")
			}
			kube, err := kubernetes.NewForConfig(tt.config)
			if err != nil {
				t.Fatal(err)
			}
			limiter := kube.CoreV1().RESTClient().GetRateLimiter()
			if limited := limiter != nil && limiter.QPS() > 0; limited != tt.limited {
				t.Errorf("the client has a rate limiter: %v, want %v", limited, tt.limited)
			}
		})
	}
}
