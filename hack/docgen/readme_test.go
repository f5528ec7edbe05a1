package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeLimit is the most lines the README may have: the first hour of a
// user, no more; the rest is in docs/.
const readmeLimit = 250

func readREADME(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repositoryRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestREADMEFitsInTwoHundredFiftyLines(t *testing.T) {
	if n := strings.Count(readREADME(t), "\n"); n > readmeLimit {
		t.Errorf("README.md has %d lines, more than %d: move the detail to a page of docs/", n, readmeLimit)
	}
}

// TestREADMEStartsWithTheTwoCommands: the first code block of the README
// runs the operator and every test.
func TestREADMEStartsWithTheTwoCommands(t *testing.T) {
	readme := readREADME(t)
	before, rest, found := strings.Cut(readme, "```sh\n")
	if !found {
		t.Fatal("README.md has no sh code block")
	}
	block, _, _ := strings.Cut(rest, "```")
	for _, command := range []string{"make run", "make test"} {
		if !regexp.MustCompile(`(?m)^` + command + `\b`).MatchString(block) {
			t.Errorf("the README's first code block does not run %q:\n%s", command, block)
		}
	}
	if lines := strings.Count(before, "\n"); lines > 40 {
		t.Errorf("the two commands come at line %d of the README, not near the top", lines)
	}
}

// makeCommand is `make TARGET` as a command (in a code block or code
// span), after variables it may be given.
var makeCommand = regexp.MustCompile(`(?:^|[\s;&(])make\s+(?:[A-Z_]+=\S+\s+)*([a-z][a-z0-9-]*)`)

// TestDocumentedMakeCommandsAreTargets: every `make X` the README and
// docs/ tell a user to run is a target of the Makefile.
func TestDocumentedMakeCommandsAreTargets(t *testing.T) {
	root := repositoryRoot(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-zA-Z0-9_-]+):`).FindAllStringSubmatch(string(makefile), -1) {
		targets[m[1]] = true
	}
	files, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	commands := 0
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		for _, code := range codeOf(t, file) {
			for _, m := range makeCommand.FindAllStringSubmatch(code, -1) {
				commands++
				if !targets[m[1]] {
					t.Errorf("%s tells to run make %s, which the Makefile has no target for", rel, m[1])
				}
			}
		}
	}
	if commands < 5 {
		t.Errorf("found only %d make commands in the docs; the parser is broken", commands)
	}
}

// codeOf is the code blocks and code spans of a Markdown file.
func codeOf(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	var block []string
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if inBlock {
				code = append(code, strings.Join(block, "\n"))
				block = nil
			}
			inBlock = !inBlock
			continue
		}
		if inBlock {
			block = append(block, line)
			continue
		}
		for _, span := range codeSpan.FindAllString(line, -1) {
			code = append(code, strings.Trim(span, "`"))
		}
	}
	return code
}

// TestREADMEKindsAtAGlanceNameEveryCRD compares the README's table of kinds
// with the CRDs manifests/crd installs: one row per kind, no more.
func TestREADMEKindsAtAGlanceNameEveryCRD(t *testing.T) {
	root := repositoryRoot(t)
	_, section, found := strings.Cut(readREADME(t), "\n## Kinds at a glance\n")
	if !found {
		t.Fatal("README.md has no section \"Kinds at a glance\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	// A row's first cell names one kind or several, each as code.
	rows := map[string]bool{}
	for _, row := range regexp.MustCompile(`(?m)^\| ([^|]+) \|`).FindAllStringSubmatch(section, -1) {
		for _, m := range regexp.MustCompile("`([A-Z]\\w+)`").FindAllStringSubmatch(row[1], -1) {
			if rows[m[1]] {
				t.Errorf("README.md lists %s twice", m[1])
			}
			rows[m[1]] = true
		}
	}
	files, err := filepath.Glob(filepath.Join(root, "manifests", "crd", "*_*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no CRD in manifests/crd")
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
		kind := string(m[1])
		kinds[kind] = true
		if !rows[kind] {
			t.Errorf("README.md's Kinds at a glance has no row for %s", kind)
		}
	}
	for kind := range rows {
		if !kinds[kind] {
			t.Errorf("README.md's Kinds at a glance lists %s, which no CRD serves", kind)
		}
	}
}
