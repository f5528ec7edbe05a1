package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// modulePackage is a package of the module as `go list` names it.
type modulePackage struct {
	ImportPath string
	Dir        string
	Name       string
}

// modulePackages lists the module's packages (with tests' and commands').
func modulePackages(root string) ([]modulePackage, error) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,Name", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w\n%s", err, stderr.String())
	}
	var pkgs []modulePackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p modulePackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// parsedPackage is the non-test files of one package folder.
type parsedPackage struct {
	fset  *token.FileSet
	files []*ast.File
}

// parsePackage parses the package's files that a plain build compiles
// (not its tests, nor files behind a build tag that is not set), or its
// test files when tests are all it has.
func parsePackage(dir string) (parsedPackage, error) {
	p, err := parseFiles(dir, false)
	if err != nil || len(p.files) > 0 {
		return p, err
	}
	return parseFiles(dir, true)
}

// parseFiles parses the package's test files, or its other files.
func parseFiles(dir string, tests bool) (parsedPackage, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return parsedPackage{}, err
	}
	p := parsedPackage{fset: token.NewFileSet()}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") != tests {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return parsedPackage{}, err
		}
		// go/doc leaves the doc comments of _test.go files out: a package
		// of tests only is read under its files' names without the suffix.
		f, err := parser.ParseFile(p.fset, filepath.Join(dir, strings.TrimSuffix(name, "_test.go")+".go"), src, parser.ParseComments)
		if err != nil {
			return parsedPackage{}, err
		}
		if hasBuildConstraint(f) {
			continue
		}
		p.files = append(p.files, f)
	}
	return p, nil
}

// hasBuildConstraint reports whether a file is built only with a tag.
func hasBuildConstraint(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if strings.HasPrefix(c.Text, "//go:build ") {
				return true
			}
		}
	}
	return false
}

// packageDoc is the synopsis of the package in dir: the first paragraph of
// its doc comment (the one or two sentences that say what it holds), as
// one line. The paragraphs after it explain; go doc shows them.
func packageDoc(importPath, dir string) (string, error) {
	files, err := parsePackage(dir)
	if err != nil {
		return "", err
	}
	if len(files.files) == 0 {
		return "", nil
	}
	p, err := doc.NewFromFiles(files.fset, files.files, importPath)
	if err != nil {
		return "", err
	}
	for _, paragraph := range strings.Split(p.Doc, "\n\n") {
		var lines []string
		for _, line := range strings.Split(paragraph, "\n") {
			// Code generators' markers (+groupName=…) are no prose.
			if !strings.HasPrefix(strings.TrimSpace(line), "+") {
				lines = append(lines, line)
			}
		}
		if synopsis := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); synopsis != "" {
			return synopsis, nil
		}
	}
	return "", nil
}

// generatedPrefix is where make generate writes the clients, informers and
// listers: one line on the page, not one per package.
const generatedPrefix = "/generated/"

func packagesPage(root string) (string, error) {
	pkgs, err := modulePackages(root)
	if err != nil {
		return "", err
	}
	d := newDoc("Packages", "the first paragraph of the packages' doc comments (`go doc`)")
	d.para("What each package of the module holds, as the first paragraph of its doc comment says (`go doc ./pkg/NAME` has the rest). " +
		"See [Architecture](../architecture.md) for how they work together.")
	var rows [][]string
	generated := 0
	for _, p := range pkgs {
		if strings.Contains(p.ImportPath+"/", generatedPrefix) {
			generated++
			continue
		}
		text, err := packageDoc(p.ImportPath, p.Dir)
		if err != nil {
			return "", err
		}
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil {
			return "", err
		}
		rows = append(rows, []string{code(filepath.ToSlash(rel)), cell(text)})
	}
	slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	d.table([]string{"Package", "What it holds"}, rows)
	d.para(fmt.Sprintf("Besides, `generated/` holds %d packages of typed clients, informers and listers that `make generate` writes (`k8s.io/code-generator`).", generated))
	return d.String(), nil
}

// libraryPackages is the import path and folder of every package under
// pkg/, where the operator's constants live.
func libraryPackages(root string) (map[string]string, error) {
	pkgs, err := modulePackages(root)
	if err != nil {
		return nil, err
	}
	dirs := map[string]string{}
	for _, p := range pkgs {
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(filepath.ToSlash(rel), "pkg/") {
			dirs[p.ImportPath] = p.Dir
		}
	}
	return dirs, nil
}
