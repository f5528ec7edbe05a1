package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/yaml"
)

// alertRules is the part of a Prometheus rule file the tests read.
type alertRules struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert string `json:"alert"`
			Expr  string `json:"expr"`
		} `json:"rules"`
	} `json:"groups"`
}

// alertTests is the part of a promtool test file the tests read.
type alertTests struct {
	Tests []struct {
		AlertRuleTest []struct {
			Alertname string           `json:"alertname"`
			ExpAlerts []map[string]any `json:"exp_alerts"`
		} `json:"alert_rule_test"`
	} `json:"tests"`
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestAlertRules checks the shipped alerts with promtool and runs their unit
// tests, and checks that those tests show every alert both firing and
// staying quiet.
func TestAlertRules(t *testing.T) {
	needTools(t)
	dir := filepath.Join(suite.root, "manifests", "monitoring")
	if out, err := runTool(t.Context(), nil, nil, tools.promtool, "check", "rules", filepath.Join(dir, "alerts.yaml")); err != nil {
		t.Error(err)
	} else {
		t.Log(strings.TrimSpace(out))
	}
	if out, err := runTool(t.Context(), nil, nil, tools.promtool, "test", "rules", filepath.Join(dir, "alerts_test.yaml")); err != nil {
		t.Error(err)
	} else {
		t.Log(strings.TrimSpace(out))
	}

	var rules alertRules
	var tests alertTests
	readYAML(t, filepath.Join(dir, "alerts.yaml"), &rules)
	readYAML(t, filepath.Join(dir, "alerts_test.yaml"), &tests)
	fires, holds := map[string]bool{}, map[string]bool{}
	for _, tt := range tests.Tests {
		for _, a := range tt.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			} else {
				holds[a.Alertname] = true
			}
		}
	}
	alerts := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			if !fires[r.Alert] {
				t.Errorf("alerts_test.yaml never shows %s firing", r.Alert)
			}
			if !holds[r.Alert] {
				t.Errorf("alerts_test.yaml never shows %s not firing", r.Alert)
			}
		}
	}
	if alerts == 0 {
		t.Error("alerts.yaml has no alert")
	}
}

// checkServedMetrics checks what a replica serves on /metrics against what
// Prometheus and the shipped dashboard and alerts expect: `promtool check
// metrics` finds nothing to say, and every metric a panel, a variable or an
// alert queries is served. Nothing is skipped: a name another change has
// yet to add fails here until it is served.
func checkServedMetrics(t *testing.T, text []byte, families map[string]*dto.MetricFamily) {
	t.Helper()
	needTools(t)
	if out, err := runTool(t.Context(), text, nil, tools.promtool, "check", "metrics"); err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	var missing []string
	for _, m := range monitoredMetrics(t.Context(), t) {
		if !served(families, m.Metric) {
			missing = append(missing, m.Metric+" (used by "+strings.Join(m.Uses, "; ")+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("/metrics does not serve %s", m)
	}
}

// served reports whether /metrics has the series name: a family of that
// name, or a histogram's _bucket, _sum or _count.
func served(families map[string]*dto.MetricFamily, name string) bool {
	if _, ok := families[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f, ok := families[base]; ok && (f.GetType() == dto.MetricType_HISTOGRAM || suffix != "_bucket" && f.GetType() == dto.MetricType_SUMMARY) {
				return true
			}
		}
	}
	return false
}
