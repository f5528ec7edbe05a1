package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// The Prometheus Operator's kinds the chart can create, as minimal CRDs: the
// test checks what the chart writes into them, not the Prometheus Operator.
const monitoringCRDs = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: servicemonitors.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: ServiceMonitor, plural: servicemonitors, singular: servicemonitor, listKind: ServiceMonitorList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: prometheusrules.monitoring.coreos.com
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: PrometheusRule, plural: prometheusrules, singular: prometheusrule, listKind: PrometheusRuleList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// checkMonitoringObjects checks what the chart created for Prometheus and
// Grafana: the alerts and the dashboard as shipped in manifests/monitoring,
// and a ServiceMonitor that selects the metrics Service by its labels and
// port and scrapes it over HTTPS with a bearer token.
func checkMonitoringObjects(ctx context.Context, t *testing.T, c *clusterEnv) {
	t.Helper()
	rule, err := c.get(ctx, schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "PrometheusRule"}, operatorNamespace, "konnect-operator")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	data, err := os.ReadFile(filepath.Join(suite.root, "manifests", "monitoring", "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if got := rule.Object["spec"]; !jsonEqual(got, want) {
		t.Errorf("the PrometheusRule's spec is not manifests/monitoring/alerts.yaml")
	}

	cm, err := c.kube.CoreV1().ConfigMaps(operatorNamespace).Get(ctx, "konnect-operator-dashboard", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dashboard, err := os.ReadFile(filepath.Join(suite.root, "manifests", "monitoring", "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gotDashboard, wantDashboard any
	if err := json.Unmarshal([]byte(cm.Data["konnect-operator.json"]), &gotDashboard); err != nil {
		t.Errorf("the dashboard ConfigMap holds no JSON: %v", err)
	}
	if err := json.Unmarshal(dashboard, &wantDashboard); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotDashboard, wantDashboard) || cm.Labels["grafana_dashboard"] != "1" {
		t.Errorf("the dashboard ConfigMap (labels %v) does not hold manifests/monitoring/dashboard.json for Grafana's sidecar", cm.Labels)
	}

	monitor, err := c.get(ctx, schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "ServiceMonitor"}, operatorNamespace, "konnect-operator")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := c.kube.CoreV1().Services(operatorNamespace).Get(ctx, "konnect-operator-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	selector, _, _ := unstructured.NestedStringMap(monitor.Object, "spec", "selector", "matchLabels")
	endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
	if len(selector) == 0 {
		t.Fatal("the ServiceMonitor selects nothing")
	}
	for k, v := range selector {
		if svc.Labels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%s; the metrics Service has %v", k, v, svc.Labels)
		}
	}
	if len(endpoints) != 1 || endpoints[0].(map[string]any)["port"] != svc.Spec.Ports[0].Name || endpoints[0].(map[string]any)["path"] != "/metrics" {
		t.Errorf("the ServiceMonitor's endpoints %v do not scrape /metrics on the Service's port %q", endpoints, svc.Spec.Ports[0].Name)
	} else if e := endpoints[0].(map[string]any); e["scheme"] != "https" || e["bearerTokenFile"] == nil {
		t.Errorf("the ServiceMonitor's endpoint %v does not scrape over HTTPS with Prometheus's token", e)
	}
	if monitor.GetLabels()["release"] != "prometheus" {
		t.Errorf("the ServiceMonitor lacks the labels given in metrics.serviceMonitor.labels: %v", monitor.GetLabels())
	}
}

// jsonEqual compares two decoded documents as JSON would.
func jsonEqual(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var na, nb any
	return json.Unmarshal(ja, &na) == nil && json.Unmarshal(jb, &nb) == nil && reflect.DeepEqual(na, nb)
}
