package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// TestREADMEDocumentsEveryFlag compares the operator binary's flags (less
// klog's standard ones, which the README mentions as a group) with the
// README's flag table.
func TestREADMEDocumentsEveryFlag(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(suite.root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	out, err := exec.Command(filepath.Join(suite.binDir, "konnect-operator"), "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("konnect-operator -h: %v\n%s", err, out)
	}
	flags := regexp.MustCompile(`(?m)^  -([a-z0-9_-]+)`).FindAllStringSubmatch(string(out), -1)
	if len(flags) == 0 {
		t.Fatalf("no flags in konnect-operator -h:\n%s", out)
	}
	documented := 0
	for _, f := range flags {
		name := f[1]
		if klogFlags.Lookup(name) != nil {
			continue
		}
		documented++
		if !strings.Contains(string(readme), "| `--"+name+"` |") {
			t.Errorf("README.md has no row for --%s in its flag table", name)
		}
	}
	if documented == 0 {
		t.Error("found no operator flag besides klog's")
	}
}

// TestREADMEKindTableNamesEveryCRD compares the README's table of kinds
// with the CRDs manifests/crd installs: one row per kind, no more.
func TestREADMEKindTableNamesEveryCRD(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(suite.root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, found := strings.Cut(string(readme), "\n## Kinds\n")
	if !found {
		t.Fatal("README.md has no Kinds section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| (Kong\w+|Konnect\w+)[ |]`).FindAllStringSubmatch(table, -1) {
		if rows[m[1]] {
			t.Errorf("README.md lists %s twice", m[1])
		}
		rows[m[1]] = true
	}
	files, err := filepath.Glob(filepath.Join(suite.root, "manifests", "crd", "*_*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^    kind: (\w+)$`).FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s names no kind", file)
		}
		kinds[string(m[1])] = true
		if !rows[string(m[1])] {
			t.Errorf("README.md's Kinds table has no row for %s", m[1])
		}
	}
	for kind := range rows {
		if !kinds[kind] {
			t.Errorf("README.md's Kinds table lists %s, which no CRD serves", kind)
		}
	}
	if !strings.Contains(table, fmt.Sprintf("these %d kinds", len(kinds))) {
		t.Errorf("the Kinds section does not say that the operator serves %d kinds", len(kinds))
	}
}
