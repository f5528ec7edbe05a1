package maketargets

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// staleEdit changes one thing the reference pages are generated from.
type staleEdit struct {
	file    string
	pattern *regexp.Regexp
	insert  string
	// page is the page of docs/reference the edit makes stale.
	page string
}

// TestVerifyNamesEveryStaleReferencePage changes, in a copy of the
// repository, a flag's usage string, a metric's help and the doc comment of
// a field of a kind, and runs `make verify-docs` there: it fails, names the
// three pages those make stale and no other, and leaves the pages as they
// were.
func TestVerifyNamesEveryStaleReferencePage(t *testing.T) {
	copyDir := copyRepository(t)
	edits := []staleEdit{
		{"cmd/konnect-operator/main.go", regexp.MustCompile(`"konnect-request-timeout", [^,]+, "`), "Changed. ", "flags.md"},
		{"pkg/metrics/controller.go", regexp.MustCompile(`Help: +"`), "Changed. ", "metrics.md"},
		{"pkg/apis/configuration/v1alpha1/kongservice_types.go", regexp.MustCompile(`(?m)^\t// Spec is `), "Changed. ", "api.md"},
	}
	for _, e := range edits {
		path := filepath.Join(copyDir, e.file)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		loc := e.pattern.FindIndex(data)
		if loc == nil {
			t.Fatalf("%s has nothing matching %s to change", e.file, e.pattern)
		}
		changed := slices.Concat(data[:loc[1]], []byte(e.insert), data[loc[1]:])
		if err := os.WriteFile(path, changed, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pagesBefore := readPages(t, copyDir)

	cmd := exec.CommandContext(t.Context(), "make", "verify-docs")
	cmd.Dir = copyDir
	cmd.Env = cleanEnv("MAKEFLAGS", "MFLAGS", "MAKELEVEL")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil {
		t.Fatalf("make verify-docs passed with three stale pages:\n%s", out.String())
	}
	var stale []string
	for _, m := range regexp.MustCompile(`(?m)^stale: docs/reference/(\S+)$`).FindAllStringSubmatch(out.String(), -1) {
		stale = append(stale, m[1])
	}
	want := []string{"api.md", "flags.md", "metrics.md"}
	slices.Sort(stale)
	if !slices.Equal(stale, want) {
		t.Errorf("make verify-docs named %v as stale, want %v:\n%s", stale, want, out.String())
	}
	// Each stale page's diff (printed below its name) shows the change.
	for _, e := range edits {
		_, diff, _ := strings.Cut(out.String(), "stale: docs/reference/"+e.page+"\n")
		diff, _, _ = strings.Cut(diff, "stale: ")
		if !strings.Contains(diff, e.insert) {
			t.Errorf("the diff of %s does not show the change of %s:\n%s", e.page, e.file, diff)
		}
	}
	if after := readPages(t, copyDir); !maps.Equal(pagesBefore, after) {
		t.Error("make verify-docs left docs/reference changed")
	}
}

// copyRepository copies the repository's files (tracked, and new ones not
// ignored, as the working tree has them) into a temporary folder.
func copyRepository(t *testing.T) string {
	t.Helper()
	list := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	list.Dir = root
	names, err := list.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "repository")
	for _, name := range strings.Split(strings.TrimRight(string(names), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readPages reads every page of docs/reference.
func readPages(t *testing.T, repository string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repository, "docs", "reference", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Base(f)] = string(data)
	}
	if len(pages) == 0 {
		t.Fatal("no page in docs/reference")
	}
	return pages
}
