package maketargets

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	sigsyaml "sigs.k8s.io/yaml"
)

// cycloneDXMediaType is the artifactType of the SBOMs make image attaches.
const cycloneDXMediaType = "application/vnd.cyclonedx+json"

// cycloneDX is the part of a CycloneDX document the test reads.
type cycloneDX struct {
	BOMFormat string `json:"bomFormat"`
	Metadata  struct {
		Component struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			PURL    string `json:"purl"`
		} `json:"component"`
	} `json:"metadata"`
	Components []struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		PURL    string `json:"purl"`
	} `json:"components"`
}

// requiredVersion returns the version go.mod requires of module.
func requiredVersion(t *testing.T, module string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == module {
			return r.Mod.Version
		}
	}
	t.Fatalf("go.mod does not require %s", module)
	return ""
}

// checkSBOMs finds, for each platform image of the index, the SBOM
// artifact beside it whose subject it is, and reads it: a CycloneDX
// document of the operator at the image's version, for that platform,
// listing the Konnect SDK and client-go at the versions go.mod requires and
// the Go standard library; the same bytes as the SBOM make sbom wrote
// beside the binary. No runtime would pick an SBOM entry to run: its
// platform is unknown/unknown.
func checkSBOMs(t *testing.T, binDir, layout string, images, sboms []ociDescriptor, wantVersion string) {
	want := map[string]string{
		"github.com/Kong/sdk-konnect-go": requiredVersion(t, "github.com/Kong/sdk-konnect-go"),
		"k8s.io/client-go":               requiredVersion(t, "k8s.io/client-go"),
	}
	if len(sboms) != len(images) {
		t.Errorf("the index holds %d SBOMs for %d images", len(sboms), len(images))
	}
	bySubject := map[string]ociManifest{}
	for _, d := range sboms {
		if d.Platform.OS != "unknown" || d.Platform.Architecture != "unknown" {
			t.Errorf("SBOM entry %s has platform %s/%s, want unknown/unknown", d.Digest, d.Platform.OS, d.Platform.Architecture)
		}
		var artifact ociManifest
		readBlob(t, layout, d, &artifact)
		if artifact.Subject == nil || artifact.ArtifactType != cycloneDXMediaType || len(artifact.Layers) != 1 ||
			artifact.Layers[0].MediaType != cycloneDXMediaType || artifact.Config.MediaType != "application/vnd.oci.empty.v1+json" {
			t.Fatalf("SBOM artifact %s is not an OCI artifact of one CycloneDX layer with a subject: %+v", d.Digest, artifact)
		}
		bySubject[artifact.Subject.Digest] = artifact
	}
	for _, image := range images {
		platform := image.Platform.OS + "_" + image.Platform.Architecture
		artifact, ok := bySubject[image.Digest]
		if !ok {
			t.Errorf("no SBOM names the %s image %s as its subject", platform, image.Digest)
			continue
		}
		blob := filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(artifact.Layers[0].Digest, "sha256:"))
		data, err := os.ReadFile(blob)
		if err != nil {
			t.Fatal(err)
		}
		beside, err := os.ReadFile(filepath.Join(binDir, platform, "konnect-operator.cdx.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, beside) {
			t.Errorf("%s: the SBOM in the image is not the one make sbom wrote beside the binary", platform)
		}
		var bom cycloneDX
		if err := json.Unmarshal(data, &bom); err != nil {
			t.Fatalf("%s: %v", platform, err)
		}
		component := bom.Metadata.Component
		if bom.BOMFormat != "CycloneDX" || component.Name != "github.com/konnect-operator/konnect-operator" || component.Version != wantVersion ||
			!strings.Contains(component.PURL, "goos="+image.Platform.OS) || !strings.Contains(component.PURL, "goarch="+image.Platform.Architecture) {
			t.Errorf("%s: the SBOM describes %+v (format %q), want the operator %s for this platform", platform, component, bom.BOMFormat, wantVersion)
		}
		listed := map[string]string{}
		for _, c := range bom.Components {
			listed[c.Name] = c.Version
		}
		for module, version := range want {
			if listed[module] != version {
				t.Errorf("%s: the SBOM lists %s at %q, go.mod requires %s", platform, module, listed[module], version)
			}
		}
		if !strings.HasPrefix(listed["std"], "go1.") {
			t.Errorf("%s: the SBOM lists no Go standard library (std %q)", platform, listed["std"])
		}
		t.Logf("%s: SBOM of %d components, the Konnect SDK %s, client-go %s, std %s", platform, len(bom.Components),
			listed["github.com/Kong/sdk-konnect-go"], listed["k8s.io/client-go"], listed["std"])
	}
}

// checkReleaseManifests runs make release-manifests on the layout of binDir
// and checks that the Deployment and the chart's values it writes name the
// image by the index's digest in the repository given.
func checkReleaseManifests(t *testing.T, binDir, indexDigest string) {
	const repository = "registry.example.com/platform/konnect-operator"
	if _, err := runMake(t.Context(), "release-manifests", "BIN_DIR="+binDir, "IMAGE_REPOSITORY="+repository); err != nil {
		t.Fatal(err)
	}
	want := repository + "@" + indexDigest
	data, err := os.ReadFile(filepath.Join(binDir, "release", "konnect-operator.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var images []string
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var obj struct {
			Kind string `json:"kind"`
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Image string `json:"image"`
						} `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := sigsyaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		if obj.Kind == "Deployment" {
			for _, c := range obj.Spec.Template.Spec.Containers {
				images = append(images, c.Image)
			}
		}
	}
	if len(images) != 1 || images[0] != want {
		t.Errorf("the release's Deployment runs %v, want %s", images, want)
	}
	var values struct {
		Image struct {
			Repository string `json:"repository"`
			Digest     string `json:"digest"`
		} `json:"image"`
	}
	valuesData, err := os.ReadFile(filepath.Join(binDir, "release", "values-image.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sigsyaml.Unmarshal(valuesData, &values); err != nil {
		t.Fatal(err)
	}
	if values.Image.Repository+"@"+values.Image.Digest != want {
		t.Errorf("the release's chart values name %+v, want %s", values.Image, want)
	}
}
