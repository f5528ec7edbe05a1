package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Tools the chart and monitoring tests run, each found or built once per
// run: helm and promtool from the module proxy (hack/build-tools.sh, which
// returns at once when the cache has them), promqlnames from hack/tools.
var tools struct {
	once                        sync.Once
	helm, promtool, promqlnames string
	err                         error
}

func needTools(t *testing.T) {
	t.Helper()
	tools.once.Do(func() {
		cmd := exec.Command("bash", filepath.Join(suite.root, "hack", "build-tools.sh"), "helm", "promtool")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			tools.err = fmt.Errorf("hack/build-tools.sh: %w\n%s", err, stderr.String())
			return
		}
		paths := strings.Fields(stdout.String())
		if len(paths) != 2 {
			tools.err = fmt.Errorf("hack/build-tools.sh printed %q, want the paths of helm and promtool", stdout.String())
			return
		}
		tools.helm, tools.promtool = paths[0], paths[1]
		tools.promqlnames = filepath.Join(suite.binDir, "promqlnames")
		build := exec.Command("go", "build", "-C", filepath.Join(suite.root, "hack", "tools"), "-o", tools.promqlnames, "./promqlnames")
		if out, err := build.CombinedOutput(); err != nil {
			tools.err = fmt.Errorf("building hack/tools/promqlnames: %w\n%s", err, out)
		}
	})
	if tools.err != nil {
		t.Fatal(tools.err)
	}
}

// runTool runs a tool and returns its standard output; the error carries
// standard error.
func runTool(ctx context.Context, stdin []byte, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = suite.root
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w\n%s%s", filepath.Base(name), strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// metricUse is a metric that the dashboard or the alerts query.
type metricUse struct {
	Metric string   `json:"metric"`
	Uses   []string `json:"uses"`
}

// monitoredMetrics lists the metrics the shipped dashboard and alerts query,
// as Prometheus's PromQL parser finds them.
func monitoredMetrics(ctx context.Context, t *testing.T) []metricUse {
	t.Helper()
	needTools(t)
	out, err := runTool(ctx, nil, nil, tools.promqlnames,
		filepath.Join(suite.root, "manifests", "monitoring", "dashboard.json"),
		filepath.Join(suite.root, "manifests", "monitoring", "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var uses []metricUse
	if err := json.Unmarshal([]byte(out), &uses); err != nil {
		t.Fatal(err)
	}
	if len(uses) == 0 {
		t.Fatal("promqlnames found no metric in the dashboard and the alerts")
	}
	return uses
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
