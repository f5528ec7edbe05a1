package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// documentedTarget is a line such as `build: deps ## What it does.`, the
// form `make help` lists.
var documentedTarget = regexp.MustCompile(`^([a-zA-Z0-9_-]+):[^#=]*## (.*)$`)

// makeTarget is one documented target of the Makefile, under its section
// (a `##@ Section` line).
type makeTarget struct {
	section, name, help string
}

// makeTargets reads the documented targets of the Makefile at root.
func makeTargets(root string) ([]makeTarget, error) {
	f, err := os.Open(filepath.Join(root, "Makefile"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var targets []makeTarget
	section := ""
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for scanner.Scan() {
		line := scanner.Text()
		if heading, ok := strings.CutPrefix(line, "##@ "); ok {
			section = strings.TrimSpace(heading)
			continue
		}
		if m := documentedTarget.FindStringSubmatch(line); m != nil {
			targets = append(targets, makeTarget{section: section, name: m[1], help: strings.ReplaceAll(m[2], "$$", "$")})
		}
	}
	return targets, scanner.Err()
}

func makeTargetsPage(root string) (string, error) {
	targets, err := makeTargets(root)
	if err != nil {
		return "", err
	}
	d := newDoc("Make targets", "the Makefile's `##` comments")
	d.para("Every target `make help` lists. The tools they need (kube-apiserver, etcd, kubectl, the linter, helm, promtool, crd-ref-docs, helm-docs) " +
		"are built once from the Go module proxy into `$KONNECT_OPERATOR_CACHE` (default `.cache/`), at the versions of `hack/versions.sh`.")
	section := ""
	var rows [][]string
	flush := func() {
		if len(rows) > 0 {
			d.table([]string{"Target", "What it does"}, rows)
			rows = nil
		}
	}
	for _, t := range targets {
		if t.section != section {
			flush()
			section = t.section
			d.line("## " + section)
			d.line("")
		}
		rows = append(rows, []string{code("make " + t.name), cell(t.help)})
	}
	flush()
	return d.String(), nil
}
