package localcluster

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFindModuleRoot(t *testing.T) {
	root := t.TempDir()
	nested := filepath.Join(root, "pkg", "deep")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ModuleRoot(nested)
	if err != nil {
		t.Fatal(err)
	}
	if got != root {
		t.Fatalf("got %s, want %s", got, root)
	}
}

func TestResolveBinarySource(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	repoRoot, err := ModuleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		binDir     string
		cacheEnv   string
		wantBinDir string
		wantScript bool
	}{
		{name: "an explicit folder is used as it is, without building", binDir: "/opt/bin", cacheEnv: "/cache", wantBinDir: "/opt/bin"},
		{name: "the cache folder from the environment", cacheEnv: "/cache", wantBinDir: "/cache/bin", wantScript: true},
		{name: "the repository cache folder without the environment", wantBinDir: filepath.Join(repoRoot, ".cache", "bin"), wantScript: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(cacheEnv, tt.cacheEnv)
			src, err := resolveBinarySource(tt.binDir)
			if err != nil {
				t.Fatal(err)
			}
			if src.binDir != tt.wantBinDir {
				t.Fatalf("binDir %s, want %s", src.binDir, tt.wantBinDir)
			}
			if gotScript := src.script != ""; gotScript != tt.wantScript {
				t.Fatalf("script %q, want one: %v", src.script, tt.wantScript)
			}
		})
	}
}

func TestEnsureBinariesReportsWhatIsMissingFromAnExplicitFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "etcd"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Present but not executable counts as missing.
	if err := os.WriteFile(filepath.Join(dir, "kubectl"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ensureBinaries(t.Context(), dir, os.Stderr)
	var missing *BinariesMissingError
	if !errors.As(err, &missing) {
		t.Fatalf("got %v, want a *BinariesMissingError", err)
	}
	want := []string{"kube-apiserver", "kube-controller-manager", "kubectl"}
	if !slices.Equal(missing.Missing, want) {
		t.Fatalf("missing %v, want %v", missing.Missing, want)
	}
}
