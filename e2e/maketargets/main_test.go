// Package maketargets tests the make targets a user runs on their own
// machine, `make image`, `make run` and `make verify-docs`, as that user
// would.
//
// They build binaries and start their own control plane and simulator (or
// work in a copy of the repository), so they share nothing with the e2e
// suite and run as a package of their own, beside it.
package maketargets

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konnect-operator/konnect-operator/pkg/localcluster"
)

// root is the repository root; workDir holds what the tests build.
var root, workDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if root, err = filepath.Abs(filepath.Join("..", "..")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if workDir, err = os.MkdirTemp("", "konnect-operator-maketargets-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		_ = os.RemoveAll(workDir)
	} else {
		fmt.Fprintf(os.Stderr, "maketargets: what the tests built is in %s\n", workDir)
	}
	return code
}

// runMake runs make with args in the repository root and returns its
// standard output; an error carries both outputs.
func runMake(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "make", args...)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("make %s: %w\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// kubectlBinary is the kubectl of the control plane make run starts.
func kubectlBinary(t *testing.T) string {
	t.Helper()
	path, err := localcluster.Kubectl(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return path
}
