package e2e

import (
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// compatibleSeries are the series that dashboards and alerts built for
// controller-runtime and client-go query, with the labels they group by.
// Positive ones must have moved on the leader; on a standby, which
// reconciles nothing and sends only its own requests, a positive series of
// client-go need only be served under some labels.
var compatibleSeries = []struct {
	name     string
	labels   map[string]string
	positive bool
}{
	{"controller_runtime_reconcile_total", map[string]string{"controller": "KongService", "result": "requeue_after"}, true},
	{"controller_runtime_reconcile_total", map[string]string{"controller": "KongService", "result": "error"}, false},
	{"controller_runtime_reconcile_errors_total", map[string]string{"controller": "KongRoute"}, false},
	{"controller_runtime_terminal_reconcile_errors_total", map[string]string{"controller": "KongRoute"}, false},
	{"controller_runtime_reconcile_panics_total", map[string]string{"controller": "KongConsumer"}, false},
	{"controller_runtime_reconcile_time_seconds", map[string]string{"controller": "KonnectGatewayControlPlane"}, true},
	{"controller_runtime_max_concurrent_reconciles", map[string]string{"controller": "KongService"}, true},
	{"controller_runtime_active_workers", map[string]string{"controller": "KongService"}, false},
	{"konnect_operator_reconcile_panics_total", map[string]string{"kind": "KongService"}, false},
	{"workqueue_adds_total", map[string]string{"controller": "KongService", "name": "KongService"}, true},
	{"workqueue_depth", map[string]string{"controller": "KongRoute", "name": "KongRoute"}, false},
	{"workqueue_queue_duration_seconds", map[string]string{"controller": "KongRoute"}, true},
	{"workqueue_work_duration_seconds", map[string]string{"controller": "KongRoute"}, true},
	{"workqueue_retries_total", map[string]string{"controller": "KongRoute"}, false},
	{"workqueue_unfinished_work_seconds", map[string]string{"controller": "KongRoute"}, false},
	{"workqueue_longest_running_processor_seconds", map[string]string{"controller": "KongRoute"}, false},
	{"rest_client_requests_total", map[string]string{"method": "PUT", "code": "200"}, true},
	{"rest_client_request_duration_seconds", map[string]string{"verb": "GET"}, true},
	{"rest_client_rate_limiter_duration_seconds", map[string]string{"verb": "PUT"}, true},
	{"leader_election_master_status", map[string]string{"name": leaseName}, false},
}

// checkCompatibleMetrics checks a replica's scrape for the series of
// compatibleSeries, and its leader_election_master_status: 1 on the
// leader, 0 on a standby, which reconciles nothing (only its client's
// requests and the Lease show there).
func checkCompatibleMetrics(t *testing.T, name string, families map[string]*dto.MetricFamily, leading bool) {
	t.Helper()
	for _, s := range compatibleSeries {
		labels := s.labels
		if !leading && s.positive && strings.HasPrefix(s.name, "rest_client_") {
			labels = nil
		}
		if !hasSeries(families, s.name, labels) {
			t.Errorf("%s serves no %s%v", name, s.name, labels)
			continue
		}
		if got := sumMetric(families, s.name, s.labels); leading && s.positive && got <= 0 {
			t.Errorf("the leader %s serves %s%v = %v, want more than 0", name, s.name, s.labels, got)
		}
	}
	want := 0.0
	if leading {
		want = 1
	}
	if got := sumMetric(families, "leader_election_master_status", map[string]string{"name": leaseName}); got != want {
		t.Errorf("%s: leader_election_master_status{name=%q} = %v, want %v", name, leaseName, got, want)
	}
	if got := sumMetric(families, "controller_runtime_reconcile_panics_total", nil); got != 0 {
		t.Errorf("%s: %v reconciles panicked", name, got)
	}
	if !leading {
		if got := sumMetric(families, "controller_runtime_reconcile_total", nil); got != 0 {
			t.Errorf("the standby %s counts %v reconciles", name, got)
		}
	}
}

// hasSeries reports whether families hold a series of name whose labels
// include match.
func hasSeries(families map[string]*dto.MetricFamily, name string, match map[string]string) bool {
next:
	for _, m := range families[name].GetMetric() {
		for k, v := range match {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		return true
	}
	return false
}
