package e2e

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// TestDockerfile checks the image recipe: images pinned by version and
// digest, the builder runs `make build`, the image holds only the operator
// binary and runs it as a non-root user.
func TestDockerfile(t *testing.T) {
	df, err := parseDockerfile(filepath.Join(suite.root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	builder, final := df.stage("builder"), df.stage("")
	if builder == nil || final == nil || builder == final {
		t.Fatal("want a builder stage and a final stage")
	}
	goMod, err := os.ReadFile(filepath.Join(suite.root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := modfile.Parse("go.mod", goMod, nil)
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`^golang:(\d+\.\d+\.\d+)`).FindStringSubmatch(builder.image)

	tests := []struct {
		name string
		ok   bool
	}{
		{"every base image is pinned to an exact version and its digest", pinnedByDigest(builder.image) && pinnedByDigest(final.image)},
		{"the builder's Go is at least go.mod's", goVersion != nil && semver.Compare("v"+goVersion[1], "v"+mod.Go.Version) >= 0},
		{"the builder runs make build into BIN_DIR", slices.Contains(builder.all("RUN"), "make build BIN_DIR=${BIN_DIR}")},
		{"the image is distroless", strings.HasPrefix(final.image, "gcr.io/distroless/static")},
		{"the image copies only the operator from the builder's BIN_DIR",
			len(final.all("COPY")) == 1 && final.all("COPY")[0] == "--from=builder "+builder.args["BIN_DIR"]+"/konnect-operator /konnect-operator"},
		{"the image runs the operator", slices.Contains(final.all("ENTRYPOINT"), `["/konnect-operator"]`)},
		{"the image runs as a non-root user", slices.Contains(final.all("USER"), "65532:65532")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok {
				t.Errorf("Dockerfile: not so (builder %q, final %q)", builder.image, final.image)
			}
		})
	}
}

// TestBinariesAreStatic inspects what the builder commands built (in
// TestMain): statically linked ELF executables that run.
func TestBinariesAreStatic(t *testing.T) {
	for _, name := range []string{"konnect-operator", "konnect-simulator"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(suite.binDir, name)
			f, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
					t.Errorf("%s has a %s program header: it is dynamically linked", name, p.Type)
				}
			}
			if libs, err := f.ImportedLibraries(); err == nil && len(libs) > 0 {
				t.Errorf("%s needs shared libraries %v", name, libs)
			}
			// It runs: -h prints the flags and exits 0.
			out, err := exec.Command(path, "-h").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "-listen") && !strings.Contains(string(out), "-leader-elect") {
				t.Errorf("%s -h: %v\n%s", name, err, out)
			}
		})
	}
}
