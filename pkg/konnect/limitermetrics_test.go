package konnect

import (
	"context"
	"maps"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clocktesting "k8s.io/utils/clock/testing"

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

// TestMetricsShowEachOrganisationsShare: with organisation B's limiter paused and
// organisation A sending, the metrics say, per organisation, how many
// requests are in flight (and the cap), how many calls wait for their turn,
// and how many were deferred and for how long.
func TestMetricsShowEachOrganisationsShare(t *testing.T) {
	reg := prometheus.NewRegistry()
	metrics := NewMetrics(reg)
	clk := clocktesting.NewFakeClock(epoch)
	const tokenB = "kpat_othertoken0123456789"
	sim, factory := startSim(t, konnectsim.Options{Tokens: map[string]string{testToken: "a", tokenB: "b"}},
		Options{Metrics: metrics, RequestsPerSecond: 100, Burst: 100, Clock: clk})
	ctx := context.Background()
	a, b := simClient(t, sim, factory, testToken), simClient(t, sim, factory, tokenB)
	orgA := must[Organization](t, "me of A")(a.Me(ctx))
	orgB := must[Organization](t, "me of B")(b.Me(ctx))
	cp := must[string](t, "create control plane")(sdkCalls(a).createControlPlane(ctx, "share"))

	sim.Faults().Force429(1, 30*time.Second)
	if err := sdkCalls(b).listControlPlanes(WithDeferral(ctx)); err == nil {
		t.Fatal("the forced 429 did not happen")
	}
	for range 2 {
		if _, deferred := IsDeferred(sdkCalls(b).listControlPlanes(WithDeferral(ctx))); !deferred {
			t.Fatal("B's call during its limiter's pause was not deferred")
		}
	}
	// One of A's requests kept in flight by Konnect until the test lets go.
	release := make(chan struct{})
	sim.Faults().Set("get-control-plane", konnectsim.Fault{Until: release})
	answered := make(chan error, 1)
	go func() { answered <- sdkCalls(a).getControlPlane(WithDeferral(ctx), cp) }()
	waitUntil(t, "A's request to be in flight", func() bool { return gathered(t, reg, MetricInFlight, orgA.ID) == 1 })
	close(release)
	if err := <-answered; err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name, organization string
		labels             map[string]string
		want               float64
	}{
		{MetricInFlight, orgA.ID, nil, 0},
		{MetricInFlight, orgB.ID, nil, 0},
		{MetricLimiterDeferred, orgB.ID, nil, 2},
		{MetricLimiterDeferred, orgA.ID, nil, 0},
		{MetricLimiterDeferrals, orgB.ID, map[string]string{"reason": "hold"}, 2},
		{MetricLimiterDeferrals, orgA.ID, map[string]string{"reason": "hold"}, 0},
		{MetricLimiterDeferral + "_count", orgB.ID, nil, 2},
		{MetricLimiterDeferral + "_sum", orgB.ID, nil, 30 + 30.01},
	} {
		if got := gathered(t, reg, tt.name, tt.organization, tt.labels); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s{organization=%q %v} = %v, want %v", tt.name, tt.organization, tt.labels, got, tt.want)
		}
	}
	if got := gathered(t, reg, MetricInFlightLimit, orgA.ID); got < minInFlight {
		t.Errorf("%s{organization=%q} = %v, want at least %d", MetricInFlightLimit, orgA.ID, got, minInFlight)
	}
}

// gathered reads one series from reg: name (a histogram's name with _count
// or _sum), organization and the other labels given.
func gathered(t *testing.T, reg *prometheus.Registry, name, organization string, labels ...map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"organization": organization}
	for _, l := range labels {
		maps.Copy(want, l)
	}
	base, suffix := name, ""
	for _, s := range []string{"_count", "_sum"} {
		if b, ok := strings.CutSuffix(name, s); ok {
			base, suffix = b, s
		}
	}
	for _, f := range families {
		if f.GetName() != base {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := want[l.GetName()]; ok && v != l.GetValue() {
					continue next
				}
			}
			switch {
			case suffix == "_count":
				return float64(m.GetHistogram().GetSampleCount())
			case suffix == "_sum":
				return m.GetHistogram().GetSampleSum()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			default:
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no series %s{organization=%q %v}", name, organization, labels)
	return 0
}
