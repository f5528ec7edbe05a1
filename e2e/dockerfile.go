package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// dockerfile is the part of a Dockerfile the suite needs: its global
// arguments and its stages' instructions, with line continuations joined.
type dockerfile struct {
	// args are the ARGs before the first FROM, with their defaults.
	args   map[string]string
	stages []*stage
}

// stage is one FROM and what follows it.
type stage struct {
	name, image  string
	args         map[string]string
	instructions []instruction
}

// instruction is one Dockerfile line: its keyword (upper case) and the rest.
type instruction struct {
	keyword, value string
}

func parseDockerfile(path string) (*dockerfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	df := &dockerfile{args: map[string]string{}}
	var current *stage
	var pending strings.Builder
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if pending.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending.WriteString(cont + " ")
			continue
		}
		pending.WriteString(line)
		full := pending.String()
		pending.Reset()
		keyword, value, _ := strings.Cut(full, " ")
		in := instruction{keyword: strings.ToUpper(keyword), value: strings.TrimSpace(value)}
		switch {
		case in.keyword == "FROM":
			fields := strings.Fields(in.value)
			current = &stage{image: os.Expand(fields[0], func(k string) string { return df.args[k] }), args: map[string]string{}}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				current.name = fields[2]
			}
			df.stages = append(df.stages, current)
		case in.keyword == "ARG":
			name, def, _ := strings.Cut(in.value, "=")
			if current == nil {
				df.args[name] = def
			} else {
				current.args[name] = def
			}
		case current == nil:
			return nil, fmt.Errorf("%s: %s before the first FROM", path, in.keyword)
		}
		if current != nil && in.keyword != "FROM" {
			current.instructions = append(current.instructions, in)
		}
	}
	return df, scanner.Err()
}

// stage returns the stage called name, or the last stage for "".
func (d *dockerfile) stage(name string) *stage {
	if name == "" {
		return d.stages[len(d.stages)-1]
	}
	for _, s := range d.stages {
		if s.name == name {
			return s
		}
	}
	return nil
}

// all returns the values of the stage's instructions with keyword.
func (s *stage) all(keyword string) []string {
	var out []string
	for _, in := range s.instructions {
		if in.keyword == keyword {
			out = append(out, in.value)
		}
	}
	return out
}

// runBuilder runs the RUN instructions of the builder stage in the
// repository root, which stands for the stage's WORKDIR after `COPY . .`,
// with the stage's ARGs as environment (overrides win), as `docker build`
// would run them. It returns the combined output.
func runBuilder(root string, s *stage, overrides map[string]string) (string, error) {
	env := os.Environ()
	for name, def := range s.args {
		if v, ok := overrides[name]; ok {
			def = v
		}
		env = append(env, name+"="+def)
	}
	var out strings.Builder
	for _, command := range s.all("RUN") {
		if strings.HasPrefix(command, "[") {
			return out.String(), fmt.Errorf("exec-form RUN %s is not supported by the suite", command)
		}
		cmd := exec.Command("/bin/sh", "-c", command)
		cmd.Dir = root
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return out.String(), fmt.Errorf("RUN %s: %w", command, err)
		}
	}
	return out.String(), nil
}

// imageVersion matches an image reference pinned to an exact version: a tag
// that starts with a version number, or that names a versioned
// distribution (static-debian12:nonroot), optionally with a digest.
var imageVersion = regexp.MustCompile(`^[a-z0-9./-]+(:[A-Za-z0-9._-]+)?(@sha256:[0-9a-f]{64})?$`)

// pinned reports whether image names an exact version, not a moving one.
func pinned(image string) bool {
	if !imageVersion.MatchString(image) || strings.HasSuffix(image, ":latest") {
		return false
	}
	if strings.Contains(image, "@sha256:") {
		return true
	}
	name, tag, ok := strings.Cut(filepath.Base(image), ":")
	return ok && (regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(tag) || regexp.MustCompile(`\d`).MatchString(name))
}

// digestPinned matches a reference pinned to a content digest.
var digestPinned = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)

// pinnedByDigest reports whether image names an exact version and, beside
// it, the digest of its content, which a tag moved in the registry cannot
// change.
func pinnedByDigest(image string) bool {
	return digestPinned.MatchString(image) && pinned(digestPinned.ReplaceAllString(image, ""))
}
