// Command docgen writes the reference pages of docs/reference that come
// from the code itself: the operator's flags (its flag set), its metrics
// (the registry it builds), the condition types, reasons, Event reasons,
// finalizers, annotations and labels (their constants and doc comments), the
// packages (their doc comments), the make targets (the Makefile's ##
// comments) and the alerts (manifests/monitoring/alerts.yaml).
// hack/update-docs.sh runs it beside crd-ref-docs and helm-docs, and
// hack/verify-docs.sh fails when a page differs from what it writes.
//
//	go run ./hack/docgen [-root .] [-out docs/reference]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// page is one generated page: its file name under the output folder and
// the function that writes its Markdown from the repository at root.
type page struct {
	file  string
	write func(root string) (string, error)
}

var pages = []page{
	{"flags.md", flagsPage},
	{"metrics.md", metricsPage},
	{"conditions.md", conditionsPage},
	{"packages.md", packagesPage},
	{"make-targets.md", makeTargetsPage},
	{"alerts.md", alertsPage},
}

func main() {
	root := flag.String("root", ".", "The repository's root.")
	out := flag.String("out", "docs/reference", "Folder of the pages, relative to -root.")
	flag.Parse()
	if err := run(*root, *out); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

func run(root, out string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range pages {
		text, err := p.write(root)
		if err != nil {
			return fmt.Errorf("%s: %w", p.file, err)
		}
		if err := os.WriteFile(filepath.Join(dir, p.file), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
