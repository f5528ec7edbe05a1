// Command promqlnames lists the metric names that Grafana dashboards and
// Prometheus rule files query, with where each is used, as JSON:
//
//	promqlnames dashboard.json alerts.yaml
//	[{"metric":"konnect_operator_leader","uses":["alerts.yaml: alert KonnectOperatorNoLeader", …]}, …]
//
// Files ending in .json are Grafana dashboards (every panel target's expr
// and every query variable's label_values(…)); any other file is a Prometheus
// rule file. Expressions are parsed with Prometheus's own PromQL parser, so
// a name is found wherever PromQL allows it, and an expression that does not
// parse is an error.
package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: promqlnames FILE.json|FILE.yaml…")
		os.Exit(2)
	}
	uses := map[string][]string{}
	for _, path := range os.Args[1:] {
		var queries []query
		var err error
		if strings.HasSuffix(path, ".json") {
			queries, err = dashboardQueries(path)
		} else {
			queries, err = ruleQueries(path)
		}
		if err == nil {
			err = collectNames(queries, uses)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "promqlnames:", err)
			os.Exit(1)
		}
	}
	type metric struct {
		Metric string   `json:"metric"`
		Uses   []string `json:"uses"`
	}
	out := []metric{}
	for name, where := range uses {
		out = append(out, metric{Metric: name, Uses: where})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Metric < out[j].Metric })
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "promqlnames:", err)
		os.Exit(1)
	}
}

// query is one PromQL expression and where it was found.
type query struct {
	where, expr string
}

// collectNames parses each query and adds the metric names it selects.
func collectNames(queries []query, uses map[string][]string) error {
	promql := parser.NewParser(parser.Options{})
	for _, q := range queries {
		expr, err := promql.ParseExpr(q.expr)
		if err != nil {
			return fmt.Errorf("%s: %w\n%s", q.where, err, q.expr)
		}
		seen := map[string]bool{}
		parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
			if vs, ok := node.(*parser.VectorSelector); ok && vs.Name != "" && !seen[vs.Name] {
				seen[vs.Name] = true
				// Two queries of one panel are one use.
				if where := uses[vs.Name]; len(where) == 0 || where[len(where)-1] != q.where {
					uses[vs.Name] = append(where, q.where)
				}
			}
			return nil
		})
		if len(seen) == 0 {
			return fmt.Errorf("%s: selects no metric by name: %s", q.where, q.expr)
		}
	}
	return nil
}

// ruleQueries reads the expressions of a Prometheus rule file.
func ruleQueries(path string) ([]query, error) {
	groups, errs := rulefmt.ParseFile(path, false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.New(slog.DiscardHandler))
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %v", path, errs)
	}
	var out []query
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			what := "alert " + r.Alert
			if r.Record != "" {
				what = "record " + r.Record
			}
			out = append(out, query{where: filepath.Base(path) + ": " + what, expr: r.Expr})
		}
	}
	return out, nil
}

// dashboard is the part of a Grafana dashboard that holds queries.
type dashboard struct {
	Panels     []panel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	Title   string `json:"title"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	// Panels nests the panels of a collapsed row.
	Panels []panel `json:"panels"`
}

// grafanaDuration matches Grafana's interval variables, which stand where
// PromQL wants a duration.
var grafanaDuration = regexp.MustCompile(`\$(__rate_interval|__interval|__range)\b|\$\{(__rate_interval|__interval|__range)\}`)

// labelValues matches a query variable's label_values(selector, label).
var labelValues = regexp.MustCompile(`^\s*label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)\s*$`)

// dashboardQueries reads every panel expression and query variable of a
// Grafana dashboard. Other template variables ($namespace) only occur inside
// label matchers' strings, where PromQL takes them as they are.
func dashboardQueries(path string) ([]query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	base := filepath.Base(path)
	var out []query
	var walk func(panels []panel)
	walk = func(panels []panel) {
		for _, p := range panels {
			for _, t := range p.Targets {
				out = append(out, query{where: fmt.Sprintf("%s: panel %q", base, p.Title), expr: grafanaDuration.ReplaceAllString(t.Expr, "5m")})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		// The query is a string in old dashboards, an object in new ones.
		var text string
		if err := json.Unmarshal(v.Query, &text); err != nil {
			var q struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(v.Query, &q); err != nil {
				return nil, fmt.Errorf("%s: variable %s: %w", path, v.Name, err)
			}
			text = q.Query
		}
		m := labelValues.FindStringSubmatch(text)
		if m == nil {
			return nil, fmt.Errorf("%s: variable %s: want label_values(selector, label), got %q", path, v.Name, text)
		}
		out = append(out, query{where: fmt.Sprintf("%s: variable %s", base, v.Name), expr: m[1]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return out, nil
}
