package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"

	"github.com/konnect-operator/konnect-operator/pkg/konnect"
	"github.com/konnect-operator/konnect-operator/pkg/metrics"
	"github.com/konnect-operator/konnect-operator/pkg/operator"
)

// servedMetric is one metric family as /metrics serves it.
type servedMetric struct {
	name, kind, help string
	labels           []string
}

// servedMetrics builds the operator as the binary does (nothing is started:
// New only registers), with a client for Konnect so that the limiter's
// per-organisation gauges exist, and gives every vector a series, so that
// Gather describes every metric, those no event has touched yet too.
func servedMetrics() ([]servedMetric, error) {
	reg := metrics.NewRegistry()
	konnectMetrics := konnect.NewMetrics(reg)
	_, err := operator.New(context.Background(), operator.Config{
		// Never dialled: New builds clients and informers without a request.
		RestConfig:      &rest.Config{Host: "https://127.0.0.1:1"},
		ClusterIdentity: "docs",
		Registry:        reg,
		Konnect:         konnect.Options{Metrics: konnectMetrics},
	})
	if err != nil {
		return nil, err
	}
	if _, err := konnect.NewClientFactory(konnect.Options{Metrics: konnectMetrics}).Client("https://konnect.invalid", "docs"); err != nil {
		return nil, err
	}
	for _, c := range reg.Collectors() {
		if err := touch(c); err != nil {
			return nil, err
		}
	}
	families, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	var out []servedMetric
	for _, f := range families {
		labels := map[string]bool{}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = true
			}
		}
		out = append(out, servedMetric{
			name:   f.GetName(),
			kind:   strings.ToLower(f.GetType().String()),
			help:   f.GetHelp(),
			labels: sortedKeys(labels),
		})
	}
	return out, nil
}

// labelled is what every metric vector has: a series for as many label
// values as it has labels, or an error.
type labelled interface {
	GetMetricWithLabelValues(values ...string) (prometheus.Metric, error)
}

// touch gives a metric vector one series, so that Gather names it; other
// collectors are left as they are.
func touch(c prometheus.Collector) error {
	var vec labelled
	switch v := c.(type) {
	case *prometheus.CounterVec:
		vec = v.MetricVec
	case *prometheus.GaugeVec:
		vec = v.MetricVec
	case *prometheus.HistogramVec:
		vec = v.MetricVec
	case *prometheus.SummaryVec:
		vec = v.MetricVec
	default:
		return nil
	}
	// A vector does not say how many labels it has; the right count is the
	// one it accepts.
	for n := 0; n <= 16; n++ {
		values := make([]string, n)
		for i := range values {
			values[i] = "x"
		}
		if _, err := vec.GetMetricWithLabelValues(values...); err == nil {
			return nil
		}
	}
	return fmt.Errorf("a %T accepts no label count up to 16", c)
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func metricsPage(string) (string, error) {
	served, err := servedMetrics()
	if err != nil {
		return "", err
	}
	d := newDoc("Metrics", "the registry the operator builds (pkg/operator's New)")
	d.para("Every metric `/metrics` serves, with its type, labels and help. " +
		"An operator started with `--shard NAME` adds the label `shard=\"NAME\"` to every series; the default shard's carry none. " +
		"`organization` is the ID of the Konnect organisation a token belongs to (`unknown` until Konnect has said which). " +
		"See [Monitoring](../monitoring.md) for how to scrape them and what the dashboard and alerts show.")
	var own, compat [][]string
	for _, m := range served {
		row := []string{code(m.name), m.kind, codes(m.labels), cell(m.help)}
		switch {
		case strings.HasPrefix(m.name, metrics.Namespace+"_"):
			own = append(own, row)
		case strings.HasPrefix(m.name, "go_") || strings.HasPrefix(m.name, "process_"):
			// The standard series, named as a group below.
		default:
			compat = append(compat, row)
		}
	}
	d.line("## The operator's own")
	d.line("")
	d.table([]string{"Metric", "Type", "Labels", "Help"}, own)
	d.line("## Under the names of controller-runtime and client-go")
	d.line("")
	d.para("The series that controllers built on controller-runtime (Kong Operator among them) and client-go programs serve, " +
		"under the same names and labels, so that dashboards and alerts written for those work unchanged. " +
		"`controller` and `name` are the kind (`KongService`). `rest_client_*` and `leader_election_*` count every Kubernetes client of the process.")
	d.table([]string{"Metric", "Type", "Labels", "Help"}, compat)
	d.line("## The Go runtime and the process")
	d.line("")
	d.para("The standard `go_*` and `process_*` series of Prometheus's Go client (`go_goroutines`, `go_memstats_*`, `process_resident_memory_bytes`, …).")
	return d.String(), nil
}
