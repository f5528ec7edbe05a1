package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testOptions(t *testing.T) options {
	t.Helper()
	dir := t.TempDir()
	var bins platformFiles
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		path := filepath.Join(dir, strings.ReplaceAll(p, "/", "_"))
		if err := os.WriteFile(path, []byte("binary for "+p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := bins.Set(p + "=" + path); err != nil {
			t.Fatal(err)
		}
	}
	return options{binaries: bins, version: "v1.2.3", revision: strings.Repeat("a", 40), source: "https://example.com/src",
		created: time.Unix(1_700_000_000, 0).UTC()}
}

func TestSameInputsGiveTheSameDigests(t *testing.T) {
	opts := testOptions(t)
	digest := func(o options) string {
		index, err := buildIndex(o)
		if err != nil {
			t.Fatal(err)
		}
		d, err := index.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d.String()
	}
	first, second := digest(opts), digest(opts)
	if first != second {
		t.Errorf("two builds of the same inputs: %s and %s", first, second)
	}
	later := opts
	later.created = opts.created.Add(time.Second)
	other := opts
	other.version = "v1.2.4"
	for name, o := range map[string]options{"another creation time": later, "another version": other} {
		if d := digest(o); d == first {
			t.Errorf("%s gives the same digest %s", name, d)
		}
	}
}

func TestLayoutAndArchiveAreWrittenAlike(t *testing.T) {
	opts := testOptions(t)
	index, err := buildIndex(opts)
	if err != nil {
		t.Fatal(err)
	}
	var archives [][]byte
	for _, name := range []string{"one", "two"} {
		dir := filepath.Join(t.TempDir(), name)
		// A stale blob from an earlier build must not survive.
		if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "blobs", "sha256", "stale"), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := writeLayout(dir, index, opts.version); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "blobs", "sha256", "stale")); !os.IsNotExist(err) {
			t.Errorf("a blob of an earlier build is left in %s", dir)
		}
		archive := filepath.Join(t.TempDir(), name+".tar")
		if err := writeArchive(dir, archive, opts.created); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(archive)
		if err != nil {
			t.Fatal(err)
		}
		archives = append(archives, data)
	}
	if !bytes.Equal(archives[0], archives[1]) {
		t.Error("the archives of two layouts of one index differ")
	}
	names := map[string]bool{}
	tr := tar.NewReader(bytes.NewReader(archives[0]))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names[hdr.Name] = true
		if !hdr.ModTime.Equal(opts.created) || hdr.Uid != 0 {
			t.Errorf("%s: time %s, uid %d; want %s and 0", hdr.Name, hdr.ModTime, hdr.Uid, opts.created)
		}
	}
	for _, want := range []string{"oci-layout", "index.json", "blobs/sha256/"} {
		if !names[want] {
			t.Errorf("the archive has no %s (has %v)", want, names)
		}
	}
}

func TestBinaryFlagsAreCheckedOnePerPlatform(t *testing.T) {
	for _, tt := range []struct {
		values []string
		ok     bool
	}{
		{[]string{"linux/amd64=/a", "linux/arm64=/b"}, true},
		{[]string{"linux/amd64=/a", "linux/amd64=/b"}, false},
		{[]string{"linux=/a"}, false},
		{[]string{"linux/amd64"}, false},
		{[]string{"linux/amd64="}, false},
	} {
		var p platformFiles
		var err error
		for _, v := range tt.values {
			if err = p.Set(v); err != nil {
				break
			}
		}
		if (err == nil) != tt.ok {
			t.Errorf("--binary %v: error %v, want ok=%v", tt.values, err, tt.ok)
		}
	}
}

func TestRunRefusesMissingInputs(t *testing.T) {
	opts := testOptions(t)
	opts.out = t.TempDir()
	for name, mutate := range map[string]func(o *options) string{
		"no --out":      func(o *options) string { o.out = ""; return "0" },
		"no binary":     func(o *options) string { o.binaries = nil; return "0" },
		"no version":    func(o *options) string { o.version = ""; return "0" },
		"a bad created": func(*options) string { return "yesterday" },
	} {
		o := opts
		created := mutate(&o)
		if err := run(o, created); err == nil {
			t.Errorf("%s: run succeeded", name)
		}
	}
}
