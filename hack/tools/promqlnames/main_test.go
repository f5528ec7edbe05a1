package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestNamesAreFoundInDashboardsAndRules(t *testing.T) {
	dir := t.TempDir()
	dashboard := filepath.Join(dir, "dashboard.json")
	rules := filepath.Join(dir, "alerts.yaml")
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(dashboard, `{
	  "panels": [
	    {"title": "Rate", "targets": [{"expr": "sum by (kind) (rate(a_total{namespace=~\"$namespace\"}[$__rate_interval]))"}]},
	    {"type": "row", "title": "Collapsed", "panels": [
	      {"title": "Latency", "targets": [{"expr": "histogram_quantile(0.99, sum by (le) (rate(b_seconds_bucket[${__interval}])))"}]}
	    ]}
	  ],
	  "templating": {"list": [
	    {"name": "namespace", "type": "query", "query": {"query": "label_values(c_info, namespace)"}},
	    {"name": "old", "type": "query", "query": "label_values(d_info{job=\"x\"}, instance)"},
	    {"name": "datasource", "type": "datasource", "query": "prometheus"}
	  ]}
	}`)
	write(rules, `groups:
- name: g
  rules:
  - alert: A
    expr: a_total > 0 and on (job) e_up
  - record: job:a:rate5m
    expr: rate(a_total[5m])
`)
	queries, err := dashboardQueries(dashboard)
	if err != nil {
		t.Fatal(err)
	}
	more, err := ruleQueries(rules)
	if err != nil {
		t.Fatal(err)
	}
	uses := map[string][]string{}
	if err := collectNames(append(queries, more...), uses); err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range uses {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"a_total", "b_seconds_bucket", "c_info", "d_info", "e_up"}; !slices.Equal(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	if want := []string{`dashboard.json: panel "Rate"`, "alerts.yaml: alert A", "alerts.yaml: record job:a:rate5m"}; !slices.Equal(uses["a_total"], want) {
		t.Errorf("uses of a_total = %v, want %v", uses["a_total"], want)
	}
}

func TestABrokenExpressionIsAnError(t *testing.T) {
	for name, q := range map[string]query{
		"does not parse":  {where: "x", expr: "sum(rate(a_total[5m]"},
		"selects no name": {where: "x", expr: "vector(1)"},
	} {
		if err := collectNames([]query{q}, map[string][]string{}); err == nil {
			t.Errorf("%s: %q gave no error", name, q.expr)
		}
	}
}
