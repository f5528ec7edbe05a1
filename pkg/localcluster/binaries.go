package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// Names of the binaries the cluster runs.
const (
	etcdBinary              = "etcd"
	apiServerBinary         = "kube-apiserver"
	controllerManagerBinary = "kube-controller-manager"
	kubectlBinary           = "kubectl"
)

var requiredBinaries = []string{etcdBinary, apiServerBinary, controllerManagerBinary, kubectlBinary}

// cacheEnv names the environment variable that points at the shared cache
// folder of built tools.
const cacheEnv = "KONNECT_OPERATOR_CACHE"

// buildScript is the repository path of the script that builds the binaries.
const buildScript = "hack/build-control-plane.sh"

// ModuleRoot walks up from dir to the folder holding go.mod: the
// repository root, for a test run from its package directory.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod found in the working directory or above")
		}
		dir = parent
	}
}

// binarySource says where the binaries come from.
type binarySource struct {
	binDir string
	// cacheDir and script are set when the binaries are the repository's
	// cached build, which the script creates or refreshes.
	cacheDir string
	script   string
}

// resolveBinarySource applies the Options.BinDir rules: an explicit folder is
// used as it is; otherwise the cache folder ($KONNECT_OPERATOR_CACHE, else
// <module root>/.cache) whose bin/ the build script fills.
func resolveBinarySource(binDir string) (binarySource, error) {
	if binDir != "" {
		return binarySource{binDir: binDir}, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return binarySource{}, err
	}
	root, rootErr := ModuleRoot(wd)
	cacheDir := os.Getenv(cacheEnv)
	if cacheDir == "" {
		if rootErr != nil {
			return binarySource{}, fmt.Errorf("find the control-plane binaries: $%s is not set and %w", cacheEnv, rootErr)
		}
		cacheDir = filepath.Join(root, ".cache")
	}
	src := binarySource{binDir: filepath.Join(cacheDir, "bin"), cacheDir: cacheDir}
	if rootErr == nil {
		if _, err := os.Stat(filepath.Join(root, buildScript)); err == nil {
			src.script = filepath.Join(root, buildScript)
		}
	}
	return src, nil
}

// missingBinaries lists the required binaries that are absent from dir or not
// executable.
func missingBinaries(dir string) []string {
	var missing []string
	for _, name := range requiredBinaries {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	return missing
}

// ensureBinaries returns the folder holding the binaries. For the repository
// cache it always runs the build script, which returns at once when its
// stamp matches the pinned versions, waits for a build another process is
// running, and builds otherwise; progress goes to out.
func ensureBinaries(ctx context.Context, binDir string, out io.Writer) (string, error) {
	src, err := resolveBinarySource(binDir)
	if err != nil {
		return "", err
	}
	if src.script != "" {
		if missing := missingBinaries(src.binDir); len(missing) > 0 {
			_, _ = fmt.Fprintf(out, "localcluster: %v missing in %s; building them with %s (several minutes, once)\n",
				missing, src.binDir, buildScript)
		}
		cmd := exec.CommandContext(ctx, "bash", src.script)
		cmd.Env = append(os.Environ(), cacheEnv+"="+src.cacheDir)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("build control-plane binaries with %s: %w", src.script, err)
		}
	}
	if missing := missingBinaries(src.binDir); len(missing) > 0 {
		return "", &BinariesMissingError{Dir: src.binDir, Missing: missing}
	}
	return src.binDir, nil
}

// Kubectl returns the kubectl that matches the control plane's API server,
// building the binaries as Start does when they are missing.
func Kubectl(ctx context.Context) (string, error) {
	binDir, err := ensureBinaries(ctx, "", os.Stderr)
	if err != nil {
		return "", err
	}
	return filepath.Join(binDir, kubectlBinary), nil
}
