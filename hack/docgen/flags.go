package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// operatorFlag is one flag as cmd/konnect-operator, built with the flagsjson
// tag, describes it.
type operatorFlag struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default string `json:"default"`
	Usage   string `json:"usage"`
	Klog    bool   `json:"klog"`
}

// operatorFlags builds the operator with the flagsjson tag and reads the
// flag set it prints. KUBECONFIG is left out of its environment: it is the
// default of --kubeconfig, and the page must not depend on who runs it.
// It is built as make build builds it (no cgo, -trimpath), so that its
// packages come from the build cache, wherever the repository lies.
func operatorFlags(root string) ([]operatorFlag, error) {
	cmd := exec.Command("go", "run", "-trimpath", "-tags", "flagsjson", "./cmd/konnect-operator")
	cmd.Dir = root
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "CGO_ENABLED=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go run -trimpath -tags flagsjson ./cmd/konnect-operator: %w\n%s", err, stderr.String())
	}
	var flags []operatorFlag
	if err := json.Unmarshal(out, &flags); err != nil {
		return nil, err
	}
	return flags, nil
}

func flagsPage(root string) (string, error) {
	flags, err := operatorFlags(root)
	if err != nil {
		return "", err
	}
	d := newDoc("konnect-operator's flags", "the flag set of cmd/konnect-operator")
	d.para("Every flag of the `konnect-operator` binary, as `konnect-operator -h` prints it. " +
		"The Deployment of `manifests/` and the chart set `--leader-elect=true`, the metrics and health addresses, " +
		"`--sync-period` and `--log-format=json`; the chart's values set the others (see [the chart's values](helm-values.md)). " +
		"Durations are Go durations (`30s`, `1m`).")
	var own, klog [][]string
	for _, f := range flags {
		def := code(f.Default)
		if f.Type == "bool" && f.Default == "false" {
			def = "`false`"
		}
		row := []string{code("--" + f.Name), f.Type, def, cell(f.Usage)}
		if f.Klog {
			klog = append(klog, row)
		} else {
			own = append(own, row)
		}
	}
	d.table([]string{"Flag", "Type", "Default", "Meaning"}, own)
	d.line("## Logging")
	d.line("")
	d.para("klog's own flags set the log's verbosity and destination (the operator logs to standard error; `--log-format` chooses text or JSON).")
	d.table([]string{"Flag", "Type", "Default", "Meaning"}, klog)
	return d.String(), nil
}
