package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// writeSBOM writes a small CycloneDX document naming the platform.
func writeSBOM(t *testing.T, platform string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), strings.ReplaceAll(platform, "/", "_")+".cdx.json")
	doc := `{"bomFormat":"CycloneDX","specVersion":"1.6","metadata":{"component":{"name":"` + platform + `"}}}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readLayoutBlob(t *testing.T, dir string, digest v1.Hash, into any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "blobs", digest.Algorithm, digest.Hex))
	if err != nil {
		t.Fatal(err)
	}
	if into != nil {
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func TestSBOMsTravelInTheIndexBesideTheirPlatformsImage(t *testing.T) {
	opts := testOptions(t)
	opts.out = filepath.Join(t.TempDir(), "layout")
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		if err := opts.sboms.Set(p + "=" + writeSBOM(t, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(opts, "1700000000"); err != nil {
		t.Fatal(err)
	}
	var top v1.IndexManifest
	data, err := os.ReadFile(filepath.Join(opts.out, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	if len(top.Manifests) != 1 {
		t.Fatalf("index.json lists %d manifests, want the image index alone (which tools push by default): %+v", len(top.Manifests), top.Manifests)
	}
	var index v1.IndexManifest
	readLayoutBlob(t, opts.out, top.Manifests[0].Digest, &index)
	platformOf := map[v1.Hash]string{}
	var artifacts []v1.Descriptor
	for _, d := range index.Manifests {
		if d.ArtifactType == sbomMediaType {
			artifacts = append(artifacts, d)
			if d.Platform == nil || d.Platform.OS != "unknown" || d.Platform.Architecture != "unknown" {
				t.Errorf("the SBOM entry %s has platform %v, want unknown/unknown so that no runtime runs it", d.Digest, d.Platform)
			}
			continue
		}
		platformOf[d.Digest] = d.Platform.OS + "/" + d.Platform.Architecture
	}
	if len(artifacts) != 2 || len(platformOf) != 2 {
		t.Fatalf("the image index holds %d images and %d SBOMs, want 2 and 2: %+v", len(platformOf), len(artifacts), index.Manifests)
	}
	described := map[string]bool{}
	for _, d := range artifacts {
		var artifact v1.Manifest
		readLayoutBlob(t, opts.out, d.Digest, &artifact)
		if artifact.Subject == nil || artifact.ArtifactType != sbomMediaType || artifact.Config.MediaType != emptyMediaType || len(artifact.Layers) != 1 {
			t.Fatalf("the SBOM artifact %s is not an OCI 1.1 artifact of one layer with a subject: %+v", d.Digest, artifact)
		}
		platform := platformOf[artifact.Subject.Digest]
		if platform == "" {
			t.Fatalf("the SBOM artifact's subject %s is no image of the index", artifact.Subject.Digest)
		}
		described[platform] = true
		content := readLayoutBlob(t, opts.out, artifact.Layers[0].Digest, nil)
		if !strings.Contains(string(content), `"name":"`+platform+`"`) {
			t.Errorf("the image for %s carries the SBOM %s", platform, content)
		}
		if empty := readLayoutBlob(t, opts.out, artifact.Config.Digest, nil); string(empty) != "{}" {
			t.Errorf("the empty config holds %q", empty)
		}
	}
	if !described["linux/amd64"] || !described["linux/arm64"] {
		t.Errorf("SBOMs describe %v, want both platforms", described)
	}
}

func TestSBOMsThatDoNotFitAreRefused(t *testing.T) {
	notCycloneDX := filepath.Join(t.TempDir(), "sbom.spdx.json")
	if err := os.WriteFile(notCycloneDX, []byte(`{"spdxVersion":"SPDX-2.3"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tt := range map[string]struct{ flag, want string }{
		"not CycloneDX":        {"linux/amd64=" + notCycloneDX, "not a CycloneDX JSON document"},
		"a platform not built": {"linux/s390x=" + writeSBOM(t, "linux/s390x"), "which the image does not hold"},
	} {
		opts := testOptions(t)
		opts.out = filepath.Join(t.TempDir(), "layout")
		if err := opts.sboms.Set(tt.flag); err != nil {
			t.Fatal(err)
		}
		if err := run(opts, "1700000000"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tt.want)
		}
	}
}
