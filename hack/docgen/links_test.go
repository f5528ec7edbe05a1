package main

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// repositoryRoot is the repository, two folders up from this package.
func repositoryRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// pendingPages are pages other work adds; links to them are allowed to
// dangle until they land, and each must be taken off this list then.
var pendingPages = []string{
	"docs/outages.md",
}

// TestEveryRelativeLinkAndAnchorResolves reads README.md and every page of
// docs/: every relative link names a file or folder of the repository, and
// every #anchor a heading (or an explicit anchor) of the page it points
// into, with GitHub's anchor rules.
func TestEveryRelativeLinkAndAnchorResolves(t *testing.T) {
	root := repositoryRoot(t)
	files, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	pending := map[string]bool{}
	for _, p := range pendingPages {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s exists now: take it off pendingPages, so that links to it are checked", p)
		}
		pending[p] = true
	}
	parsed := map[string]markdownFile{}
	read := func(path string) markdownFile {
		if f, ok := parsed[path]; ok {
			return f
		}
		f, err := readMarkdown(path)
		if err != nil {
			t.Fatal(err)
		}
		parsed[path] = f
		return f
	}
	checked := 0
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		for _, l := range read(file).links {
			if isExternal(l.target) {
				continue
			}
			checked++
			where := rel + ":" + strconv.Itoa(l.line) + ": " + l.target
			pathPart, anchor, _ := strings.Cut(l.target, "#")
			pathPart, err := url.PathUnescape(pathPart)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			target := file
			if pathPart != "" {
				if strings.HasPrefix(pathPart, "/") {
					target = filepath.Join(root, pathPart)
				} else {
					target = filepath.Join(filepath.Dir(file), pathPart)
				}
			}
			targetRel, _ := filepath.Rel(root, target)
			if strings.HasPrefix(targetRel, "..") {
				t.Errorf("%s leaves the repository", where)
				continue
			}
			info, err := os.Stat(target)
			switch {
			case errors.Is(err, fs.ErrNotExist) && pending[filepath.ToSlash(targetRel)] && anchor == "":
				continue
			case err != nil:
				t.Errorf("%s: no such file or folder", where)
				continue
			}
			if anchor == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(target, ".md") {
				t.Errorf("%s: an anchor into something that is not a Markdown page", where)
				continue
			}
			if !read(target).anchors[anchor] {
				t.Errorf("%s: %s has no heading or anchor #%s", where, targetRel, anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no relative link to check")
	}
	t.Logf("%d relative links in %d files resolve", checked, len(files))
}

// TestEveryPageIsInTheIndex: every page of docs/ is linked from
// docs/README.md, and every dated design note from docs/design/README.md,
// so that none is found only by chance.
func TestEveryPageIsInTheIndex(t *testing.T) {
	root := repositoryRoot(t)
	docs := filepath.Join(root, "docs")
	design := filepath.Join(docs, "design")
	linkedFrom := func(index string) map[string]bool {
		f, err := readMarkdown(index)
		if err != nil {
			t.Fatal(err)
		}
		linked := map[string]bool{}
		for _, l := range f.links {
			if p, _, _ := strings.Cut(l.target, "#"); p != "" && !isExternal(l.target) {
				linked[filepath.Clean(filepath.Join(filepath.Dir(index), p))] = true
			}
		}
		return linked
	}
	indexes := map[string]map[string]bool{
		docs:   linkedFrom(filepath.Join(docs, "README.md")),
		design: linkedFrom(filepath.Join(design, "README.md")),
	}
	pages, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		index := docs
		if filepath.Dir(page) == design && filepath.Base(page) != "README.md" {
			index = design
		}
		if page == filepath.Join(index, "README.md") || filepath.Dir(page) == root {
			continue
		}
		if !indexes[index][page] {
			rel, _ := filepath.Rel(root, page)
			indexRel, _ := filepath.Rel(root, filepath.Join(index, "README.md"))
			t.Errorf("%s does not link to %s", indexRel, rel)
		}
	}
}
