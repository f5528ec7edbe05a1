package main

import (
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// ruleFile is the part of a Prometheus rule file the page shows.
type ruleFile struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

const alertsFile = "manifests/monitoring/alerts.yaml"

func alertsPage(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, alertsFile))
	if err != nil {
		return "", err
	}
	var rules ruleFile
	if err := yaml.Unmarshal(data, &rules); err != nil {
		return "", err
	}
	d := newDoc("Alerts", alertsFile)
	d.para("The Prometheus alerts of `" + alertsFile + "` (the chart's `metrics.prometheusRule.enabled` ships them as a PrometheusRule). " +
		"`{{ $labels.… }}` and `{{ $value }}` are filled in by Prometheus. See [Monitoring](../monitoring.md).")
	var rows [][]string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			rows = append(rows, []string{"[" + r.Alert + "](" + anchor(r.Alert) + ")", code(r.Labels["severity"]), code(r.For), cell(r.Annotations["summary"])})
		}
	}
	d.table([]string{"Alert", "Severity", "For", "Summary"}, rows)
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			d.line("## " + r.Alert)
			d.line("")
			d.para(strings.Join(strings.Fields(r.Annotations["description"]), " "))
			d.line("```promql")
			d.line(strings.TrimRight(r.Expr, "\n"))
			d.line("```")
			d.line("")
		}
	}
	return d.String(), nil
}

// anchor is the link to a heading of the same page.
func anchor(heading string) string { return "#" + slug(heading) }
