package e2e

import (
	"flag"
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
