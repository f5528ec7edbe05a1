package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestContainerMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name  string
		files []string
		want  int64
	}{
		{"cgroup v2 with a limit", []string{write("v2", "536870912\n")}, 536870912},
		{"cgroup v2 without", []string{write("v2max", "max\n")}, 0},
		{"cgroup v1 without (a huge number)", []string{filepath.Join(dir, "missing"), write("v1", "9223372036854771712\n")}, 0},
		{"cgroup v1 with a limit, after a missing v2 file", []string{filepath.Join(dir, "missing"), write("v1limit", "1073741824")}, 1073741824},
		{"no cgroup files", []string{filepath.Join(dir, "missing")}, 0},
	} {
		if got := containerMemoryLimit(tc.files); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestGOMEMLIMITWinsOverTheContainerLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "100MiB")
	path := filepath.Join(t.TempDir(), "memory.max")
	if err := os.WriteFile(path, []byte("536870912"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := setMemoryLimit([]string{path}); got != 0 {
		t.Errorf("a limit of %d was set although GOMEMLIMIT is", got)
	}
}

func TestTheCollectorsTargetSuitsCaches(t *testing.T) {
	previous := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(previous) })

	t.Setenv("GOGC", "100")
	if got := setGCPercent(); got != 0 || debug.SetGCPercent(100) != 100 {
		t.Errorf("the collector's target was set to %d although GOGC is", got)
	}

	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	if got := setGCPercent(); got != cacheGCPercent || debug.SetGCPercent(100) != cacheGCPercent {
		t.Errorf("without GOGC the collector's target is %d, want %d", got, cacheGCPercent)
	}
}
