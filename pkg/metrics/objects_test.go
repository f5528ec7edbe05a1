package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// object is a cached object with conditions, as the informers hold them.
type object struct{ conditions []metav1.Condition }

func (o *object) GetConditions() []metav1.Condition { return o.conditions }

func withCondition(condition string, status metav1.ConditionStatus) *object {
	return &object{conditions: []metav1.Condition{
		{Type: "ControlPlaneRefValid", Status: metav1.ConditionTrue},
		{Type: condition, Status: status},
	}}
}

func TestObjectsCollectorCountsCachedObjectsByConditionStatus(t *testing.T) {
	services := []*object{
		withCondition("Programmed", metav1.ConditionTrue),
		withCondition("Programmed", metav1.ConditionTrue),
		withCondition("Programmed", metav1.ConditionFalse),
		{}, // not reconciled yet: no conditions
	}
	authConfigs := []*object{withCondition("APIAuthValid", metav1.ConditionFalse)}
	var routes []*object

	c := NewObjectsCollector()
	AddObjects(c, "KongService", "Programmed", func() []*object { return services })
	AddObjects(c, "KonnectAPIAuthConfiguration", "APIAuthValid", func() []*object { return authConfigs })
	AddObjects(c, "KongRoute", "Programmed", func() []*object { return routes })

	want := `
# HELP konnect_operator_objects Objects in the operator's caches, by kind and by the status (True, False, Unknown when not set yet) of the condition that says whether they are in Konnect: Programmed, or APIAuthValid for KonnectAPIAuthConfiguration.
# TYPE konnect_operator_objects gauge
konnect_operator_objects{condition="APIAuthValid",kind="KonnectAPIAuthConfiguration",status="False"} 1
konnect_operator_objects{condition="APIAuthValid",kind="KonnectAPIAuthConfiguration",status="True"} 0
konnect_operator_objects{condition="APIAuthValid",kind="KonnectAPIAuthConfiguration",status="Unknown"} 0
konnect_operator_objects{condition="Programmed",kind="KongRoute",status="False"} 0
konnect_operator_objects{condition="Programmed",kind="KongRoute",status="True"} 0
konnect_operator_objects{condition="Programmed",kind="KongRoute",status="Unknown"} 0
konnect_operator_objects{condition="Programmed",kind="KongService",status="False"} 1
konnect_operator_objects{condition="Programmed",kind="KongService",status="True"} 2
konnect_operator_objects{condition="Programmed",kind="KongService",status="Unknown"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Error(err)
	}

	// Counted at scrape time: what the caches hold now, not at registration.
	services = services[:1]
	routes = append(routes, withCondition("Programmed", metav1.ConditionFalse))
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	for _, tt := range []struct {
		kind, status string
		want         float64
	}{
		{"KongService", "True", 1},
		{"KongService", "False", 0},
		{"KongService", "Unknown", 0},
		{"KongRoute", "False", 1},
	} {
		got := gatheredValue(t, reg, MetricObjects, map[string]string{"kind": tt.kind, "status": tt.status})
		if got != tt.want {
			t.Errorf("%s{kind=%q,status=%q} = %v, want %v", MetricObjects, tt.kind, tt.status, got, tt.want)
		}
	}
}

func TestLeaderGaugeFollowsTheLease(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	leading := false
	RegisterLeader(reg, func() bool { return leading })
	if got := gatheredValue(t, reg, MetricLeader, nil); got != 0 {
		t.Errorf("%s while standing by = %v, want 0", MetricLeader, got)
	}
	leading = true
	if got := gatheredValue(t, reg, MetricLeader, nil); got != 1 {
		t.Errorf("%s while leading = %v, want 1", MetricLeader, got)
	}
}

func TestBuildInfoNamesTheVersion(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	RegisterBuildInfo(reg)
	if got := gatheredValue(t, reg, MetricBuildInfo, map[string]string{"version": "dev", "commit": "unknown"}); got != 1 {
		t.Errorf("%s{version=dev,commit=unknown} = %v, want 1 (the defaults of a build without -ldflags)", MetricBuildInfo, got)
	}
}

// gatheredValue is the sum of the gauge or counter samples of name whose
// labels include match.
func gatheredValue(t *testing.T, reg prometheus.Gatherer, name string, match map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total, found := 0.0, false
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range match {
				if labels[k] != v {
					continue next
				}
			}
			found = true
			total += m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	if !found {
		t.Fatalf("no %s%v gathered", name, match)
	}
	return total
}
