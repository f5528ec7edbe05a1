package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// markdownFile is what the link check needs of one Markdown file: its
// links and the anchors of its headings.
type markdownFile struct {
	links   []link
	anchors map[string]bool
}

// link is one link of a Markdown file, with its line.
type link struct {
	target string
	line   int
}

var (
	// inlineLink is [text](target) and ![alt](target); the target ends at
	// a space (a title follows) or the closing parenthesis.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// referenceDefinition is [label]: target.
	referenceDefinition = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+(\S+)`)
	// htmlAnchor is an explicit anchor: <a id="…"> or <a name="…">.
	htmlAnchor  = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	atxHeading  = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	codeSpan    = regexp.MustCompile("`+[^`]*`+")
	headingLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	htmlTag     = regexp.MustCompile(`<[^>]+>`)
)

// readMarkdown reads a Markdown file's links (outside code) and anchors.
func readMarkdown(path string) (markdownFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return markdownFile{}, err
	}
	f := markdownFile{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			f.anchors[m[1]] = true
		}
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			s := slug(headingText(m[2]))
			// GitHub numbers the second heading of the same text.
			if n := seen[s]; n > 0 {
				f.anchors[s+"-"+strconv.Itoa(n)] = true
			} else {
				f.anchors[s] = true
			}
			seen[s]++
		}
		prose := codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(prose, -1) {
			f.links = append(f.links, link{target: m[1], line: i + 1})
		}
		if m := referenceDefinition.FindStringSubmatch(prose); m != nil {
			f.links = append(f.links, link{target: m[1], line: i + 1})
		}
	}
	return f, nil
}

// headingText is a heading as GitHub renders it, which its anchor is made
// of: code spans keep their text, links their text, HTML tags go.
func headingText(raw string) string {
	text := headingLink.ReplaceAllString(raw, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	return strings.ReplaceAll(text, "`", "")
}

// isExternal reports whether a link leaves the repository (a URL with a
// scheme, or an e-mail address).
func isExternal(target string) bool {
	if strings.HasPrefix(target, "//") {
		return true
	}
	scheme, _, found := strings.Cut(target, ":")
	return found && !strings.ContainsAny(scheme, "/#.")
}

// markdownFiles is README.md and every Markdown file under docs/.
func markdownFiles(root string) ([]string, error) {
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}
