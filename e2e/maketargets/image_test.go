package maketargets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// ociDescriptor, ociIndex, ociManifest and ociConfig are the parts of the
// OCI image spec the test reads, decoded with the standard library alone so
// that the test does not share the writer's library.
type ociDescriptor struct {
	MediaType    string            `json:"mediaType"`
	ArtifactType string            `json:"artifactType"`
	Digest       string            `json:"digest"`
	Size         int64             `json:"size"`
	Annotations  map[string]string `json:"annotations"`
	Platform     *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

type ociIndex struct {
	MediaType   string            `json:"mediaType"`
	Manifests   []ociDescriptor   `json:"manifests"`
	Annotations map[string]string `json:"annotations"`
}

type ociManifest struct {
	MediaType    string          `json:"mediaType"`
	ArtifactType string          `json:"artifactType"`
	Config       ociDescriptor   `json:"config"`
	Layers       []ociDescriptor `json:"layers"`
	Subject      *ociDescriptor  `json:"subject"`
}

type ociConfig struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Config       struct {
		User         string              `json:"User"`
		Entrypoint   []string            `json:"Entrypoint"`
		Labels       map[string]string   `json:"Labels"`
		ExposedPorts map[string]struct{} `json:"ExposedPorts"`
	} `json:"config"`
	RootFS struct {
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

// TestImage runs `make image` twice and inspects the result as a registry
// or a container runtime would: an index of amd64 and arm64 images, each
// running the static operator binary as the non-root user 65532 with the
// standard labels, on a root filesystem without a shell, and each with the
// CycloneDX SBOM of its binary attached; the binary of this machine's
// architecture, extracted from the layers, prints the version and commit
// the labels name. The second build must give the same bytes, SBOMs
// included. `make release-manifests` then pins the install manifests to the
// image's digest.
func TestImage(t *testing.T) {
	builds := []string{filepath.Join(workDir, "image-1"), filepath.Join(workDir, "image-2")}
	for _, dir := range builds {
		out, err := runMake(t.Context(), "image", "BIN_DIR="+dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("make image: %s", strings.TrimSpace(out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:]))
	}
	first, err := os.ReadFile(filepath.Join(builds[0], "konnect-operator-image.tar"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(filepath.Join(builds[1], "konnect-operator-image.tar"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("two builds of one tree differ: archives %s and %s", digestOf(first), digestOf(second))
	}

	layout := filepath.Join(builds[0], "image")
	var top ociIndex
	readJSON(t, filepath.Join(layout, "index.json"), &top)
	if len(top.Manifests) != 1 || top.Manifests[0].MediaType != "application/vnd.oci.image.index.v1+json" {
		t.Fatalf("index.json should name one image index, has %+v", top.Manifests)
	}
	t.Logf("image index %s, tagged %q", top.Manifests[0].Digest, top.Manifests[0].Annotations["org.opencontainers.image.ref.name"])
	var index ociIndex
	readBlob(t, layout, top.Manifests[0], &index)
	wantVersion := index.Annotations["org.opencontainers.image.version"]
	wantCommit := index.Annotations["org.opencontainers.image.revision"]
	if wantVersion == "" || len(wantCommit) != 40 {
		t.Errorf("index annotations name version %q and revision %q, want a version and a full commit", wantVersion, wantCommit)
	}
	platforms := map[string]bool{}
	var images, sboms []ociDescriptor
	for _, d := range index.Manifests {
		if d.Platform == nil {
			t.Fatalf("index entry %s has no platform", d.Digest)
		}
		if d.ArtifactType == cycloneDXMediaType {
			sboms = append(sboms, d)
			continue
		}
		images = append(images, d)
		platform := d.Platform.OS + "/" + d.Platform.Architecture
		platforms[platform] = true
		t.Run(platform, func(t *testing.T) {
			checkPlatformImage(t, layout, d, wantVersion, wantCommit)
		})
	}
	for _, want := range []string{"linux/amd64", "linux/arm64"} {
		if !platforms[want] {
			t.Errorf("no %s image in the index (has %v)", want, platforms)
		}
	}
	t.Run("each platform's image carries the SBOM of its binary", func(t *testing.T) {
		checkSBOMs(t, builds[0], layout, images, sboms, wantVersion)
	})
	t.Run("make release-manifests pins the manifests to the image's digest", func(t *testing.T) {
		checkReleaseManifests(t, builds[0], top.Manifests[0].Digest)
	})
}

// checkPlatformImage inspects one platform's image and unpacks its layers.
func checkPlatformImage(t *testing.T, layout string, d ociDescriptor, wantVersion, wantCommit string) {
	var manifest ociManifest
	readBlob(t, layout, d, &manifest)
	var cfg ociConfig
	readBlob(t, layout, manifest.Config, &cfg)
	labels := cfg.Config.Labels
	checks := []struct {
		name string
		ok   bool
	}{
		{"an OCI image manifest", manifest.MediaType == "application/vnd.oci.image.manifest.v1+json"},
		{"the config's platform is the index's", cfg.OS == d.Platform.OS && cfg.Architecture == d.Platform.Architecture},
		{"runs as the non-root user 65532", cfg.Config.User == "65532:65532"},
		{"runs the operator", len(cfg.Config.Entrypoint) == 1 && cfg.Config.Entrypoint[0] == "/konnect-operator"},
		{"exposes the metrics and health ports", len(cfg.Config.ExposedPorts) == 2 && hasKey(cfg.Config.ExposedPorts, "8443/tcp") && hasKey(cfg.Config.ExposedPorts, "8081/tcp")},
		{"labels title, version, revision, created and source", labels["org.opencontainers.image.title"] == "konnect-operator" &&
			labels["org.opencontainers.image.version"] == wantVersion && labels["org.opencontainers.image.revision"] == wantCommit &&
			labels["org.opencontainers.image.created"] != "" && strings.HasPrefix(labels["org.opencontainers.image.source"], "https://")},
		{"one diff ID per layer", len(cfg.RootFS.DiffIDs) == len(manifest.Layers) && len(manifest.Layers) > 0},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("image: not %s (config %+v)", c.name, cfg)
		}
	}

	rootfs := t.TempDir()
	files := map[string]*tar.Header{}
	for i, l := range manifest.Layers {
		if l.MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
			t.Fatalf("layer %s is %s", l.Digest, l.MediaType)
		}
		diffID, err := unpackLayer(filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(l.Digest, "sha256:")), rootfs, files)
		if err != nil {
			t.Fatalf("layer %s: %v", l.Digest, err)
		}
		if diffID != cfg.RootFS.DiffIDs[i] {
			t.Errorf("layer %d: uncompressed digest %s, config says %s", i, diffID, cfg.RootFS.DiffIDs[i])
		}
	}
	binary := files["konnect-operator"]
	passwd, _ := os.ReadFile(filepath.Join(rootfs, "etc", "passwd"))
	fsChecks := []struct {
		name string
		ok   bool
	}{
		{"/konnect-operator is an executable owned by root", binary != nil && binary.Mode == 0o755 && binary.Uid == 0},
		{"/etc/passwd names the nonroot user 65532", strings.Contains(string(passwd), "nonroot:x:65532:65532:")},
		{"/tmp is writable by everyone, sticky", files["tmp/"] != nil && files["tmp/"].Mode == 0o1777},
		{"/home/nonroot belongs to 65532", files["home/nonroot/"] != nil && files["home/nonroot/"].Uid == 65532},
		{"no shell", files["bin/sh"] == nil && files["bin/"] == nil},
	}
	for _, c := range fsChecks {
		if !c.ok {
			t.Errorf("root filesystem: not %s (files %v)", c.name, slices.Sorted(maps.Keys(files)))
		}
	}
	binaryPath := filepath.Join(rootfs, "konnect-operator")
	checkImageBinary(t, binaryPath, d.Platform.Architecture)
	if d.Platform.Architecture != runtime.GOARCH {
		return
	}
	// Neither the machine's CA files nor anything else outside the image:
	// the binary runs on its own.
	cmd := exec.Command(binaryPath, "--version")
	cmd.Env = []string{"SSL_CERT_FILE=/nonexistent", "SSL_CERT_DIR=/nonexistent"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("konnect-operator --version from the image: %v\n%s", err, out)
	}
	want := fmt.Sprintf("konnect-operator %s (commit %s, go", wantVersion, wantCommit)
	if !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), "linux/"+runtime.GOARCH) {
		t.Errorf("konnect-operator --version printed %q, want it to start with %q and name linux/%s", out, want, runtime.GOARCH)
	}
	t.Logf("the image's binary: %s", strings.TrimSpace(string(out)))
}

// checkImageBinary checks the binary is a static ELF executable for arch
// that carries its own public CA roots.
func checkImageBinary(t *testing.T, path, arch string) {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	if f.Machine != machines[arch] {
		t.Errorf("the %s image holds a binary for %s", arch, f.Machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the %s binary is dynamically linked", arch)
		}
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range info.Deps {
		if dep.Path == "golang.org/x/crypto/x509roots/fallback" {
			return
		}
	}
	t.Errorf("the %s binary does not carry golang.org/x/crypto/x509roots/fallback: without CA files in the image it would trust no Konnect certificate", arch)
}

// unpackLayer extracts a gzip-compressed tar layer into dir, records its
// headers in files, and returns the digest of the uncompressed tar.
func unpackLayer(blob, dir string, files map[string]*tar.Header) (string, error) {
	f, err := os.Open(blob)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", err
	}
	hash := sha256.New()
	tr := tar.NewReader(io.TeeReader(zr, hash))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		name := path.Clean(hdr.Name)
		if strings.HasPrefix(name, "../") || path.IsAbs(name) {
			return "", fmt.Errorf("entry %q leaves the root", hdr.Name)
		}
		files[hdr.Name] = hdr
		target := filepath.Join(dir, filepath.FromSlash(name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return "", err
			}
		case tar.TypeReg:
			data, err := io.ReadAll(tr)
			if err != nil {
				return "", err
			}
			if err := os.WriteFile(target, data, os.FileMode(hdr.Mode).Perm()|0o200); err != nil {
				return "", err
			}
		default:
			return "", fmt.Errorf("entry %q is of type %c, want files and directories only", hdr.Name, hdr.Typeflag)
		}
	}
	// The rest of the stream (tar padding) belongs to the digest too.
	if _, err := io.Copy(hash, zr); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(hash.Sum(nil)), nil
}

// readBlob reads the blob d names from the layout, checks its digest and
// size, and decodes it.
func readBlob(t *testing.T, layout string, d ociDescriptor, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(d.Digest, "sha256:")))
	if err != nil {
		t.Fatal(err)
	}
	if got := digestOf(data); got != d.Digest || int64(len(data)) != d.Size {
		t.Fatalf("blob %s: digest %s, %d bytes (descriptor says %d)", d.Digest, got, len(data), d.Size)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("blob %s: %v", d.Digest, err)
	}
}

func readJSON(t *testing.T, file string, into any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func hasKey[V any](m map[string]V, key string) bool {
	_, ok := m[key]
	return ok
}
