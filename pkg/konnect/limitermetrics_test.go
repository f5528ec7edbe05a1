package konnect

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/konnect-operator/konnect-operator/pkg/konnectsim"
)

// TestMetricsRecord429sAndTheLimiterRateByOrganisation: 429s are counted
// by organisation (unknown before Me) and by whether they named a delay;
// the rate gauge follows the budget the simulator states.
func TestMetricsRecord429sAndTheLimiterRateByOrganisation(t *testing.T) {
	reg := prometheus.NewRegistry()
	metrics := NewMetrics(reg)
	sim, factory := startSim(t, konnectsim.Options{RateLimitPerMinute: 600}, Options{Metrics: metrics, RequestsPerSecond: 100, Burst: 100})
	c := simClient(t, sim, factory, testToken)
	ctx := context.Background()

	sim.Faults().Set("get-organizations-me", konnectsim.Fault{Status: http.StatusTooManyRequests, Times: 1})
	if _, err := c.Me(ctx); err == nil {
		t.Fatal("Me answered with a bare 429 succeeded")
	}
	org := must[Organization](t, "me")(c.Me(ctx))
	if got := gaugeValue(t, metrics.limiter.rate.WithLabelValues(org.ID)); got != 100 {
		t.Errorf("%s before Konnect stated a budget = %v, want the ceiling 100", MetricLimiterRate, got)
	}
	calls := sdkCalls(c)
	cp := must[string](t, "create control plane")(calls.createControlPlane(ctx, "metrics"))
	if got, want := gaugeValue(t, metrics.limiter.rate.WithLabelValues(org.ID)), budgetShare*600/60; got != want {
		t.Errorf("%s once Konnect stated 600/minute = %v, want %v", MetricLimiterRate, got, want)
	}
	sim.Faults().Force429(1, time.Second)
	if err := calls.getControlPlane(ctx, cp); err == nil {
		t.Fatal("a forced 429 succeeded")
	}

	for _, tt := range []struct {
		organization, headers string
		want                  float64
	}{
		{unknownOrganization, "false", 1},
		{unknownOrganization, "true", 0},
		{org.ID, "true", 1},
		{org.ID, "false", 0},
	} {
		if got := counterValue(t, metrics.limiter.responses.WithLabelValues(tt.organization, tt.headers)); got != tt.want {
			t.Errorf("%s{organization=%q,headers=%q} = %v, want %v", MetricRateLimitResponses, tt.organization, tt.headers, got, tt.want)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, mf := range families {
		registered[mf.GetName()] = true
	}
	for _, name := range []string{MetricRateLimitResponses, MetricLimiterRate} {
		if !registered[name] {
			t.Errorf("%s is not registered", name)
		}
	}
}
