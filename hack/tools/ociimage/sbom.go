package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// An SBOM travels in the image index beside the image it describes, as an
// OCI artifact (image spec 1.1): a manifest whose artifactType is
// CycloneDX's JSON, whose config is the empty descriptor, whose one layer
// is the SBOM, and whose subject is the platform's image. Its index entry's
// platform is unknown/unknown, as BuildKit marks its attestations, so that
// no runtime picks it to run. Pushing the index pushes the SBOMs with it;
// a registry with the referrers API lists each under its image (`oras
// discover`, `regctl artifact list`).
const (
	sbomMediaType  = "application/vnd.cyclonedx+json"
	emptyMediaType = "application/vnd.oci.empty.v1+json"
	titleKey       = "org.opencontainers.image.title"
)

// emptyJSON is the content of the empty descriptor: "{}".
var emptyJSON = []byte("{}")

// sbomAddenda are the index entries of the SBOMs of sboms, each naming the
// image of its platform in images as its subject.
func sbomAddenda(sboms platformFiles, images map[string]v1.Descriptor, created time.Time) ([]mutate.IndexAddendum, error) {
	var out []mutate.IndexAddendum
	for _, sbom := range sboms {
		subject, ok := images[sbom.os+"/"+sbom.arch]
		if !ok {
			return nil, fmt.Errorf("an SBOM for %s/%s, which the image does not hold", sbom.os, sbom.arch)
		}
		data, err := readCycloneDX(sbom.path)
		if err != nil {
			return nil, err
		}
		artifact, err := newSBOMArtifact(data, fmt.Sprintf("%s_%s_%s.cdx.json", imageName, sbom.os, sbom.arch), subject, created)
		if err != nil {
			return nil, err
		}
		out = append(out, mutate.IndexAddendum{
			Add:        artifact,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "unknown", Architecture: "unknown"}},
		})
	}
	return out, nil
}

// newSBOMArtifact is the artifact manifest of one SBOM, as an image (of no
// runnable content) that the index and the layout writer can hold.
func newSBOMArtifact(data []byte, title string, subject v1.Descriptor, created time.Time) (v1.Image, error) {
	layer := static.NewLayer(data, sbomMediaType)
	layerDigest, err := layer.Digest()
	if err != nil {
		return nil, err
	}
	configDigest, _, err := v1.SHA256(bytes.NewReader(emptyJSON))
	if err != nil {
		return nil, err
	}
	manifest := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  sbomMediaType,
		Config:        v1.Descriptor{MediaType: emptyMediaType, Size: int64(len(emptyJSON)), Digest: configDigest, Data: emptyJSON},
		Layers: []v1.Descriptor{{
			MediaType: sbomMediaType, Size: int64(len(data)), Digest: layerDigest,
			Annotations: map[string]string{titleKey: title},
		}},
		Subject:     &v1.Descriptor{MediaType: subject.MediaType, Size: subject.Size, Digest: subject.Digest},
		Annotations: map[string]string{"org.opencontainers.image.created": created.Format(time.RFC3339)},
	}
	raw, err := json.Marshal(manifest)
	if err != nil {
		return nil, err
	}
	return partial.CompressedToImage(&sbomArtifact{manifest: raw, layerDigest: layerDigest, layer: layer})
}

// sbomArtifact is the raw form of an SBOM artifact: its manifest, the empty
// config and the SBOM as its one layer.
type sbomArtifact struct {
	manifest    []byte
	layerDigest v1.Hash
	layer       v1.Layer
}

func (a *sbomArtifact) RawConfigFile() ([]byte, error)      { return emptyJSON, nil }
func (a *sbomArtifact) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }
func (a *sbomArtifact) RawManifest() ([]byte, error)        { return a.manifest, nil }

func (a *sbomArtifact) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	if h != a.layerDigest {
		return nil, fmt.Errorf("the SBOM artifact has no layer %s", h)
	}
	return a.layer, nil
}

// readCycloneDX reads an SBOM file and checks that it is a CycloneDX JSON
// document, so that a wrong file is not attached under its media type.
func readCycloneDX(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var doc struct {
		BOMFormat string `json:"bomFormat"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not a CycloneDX JSON document: %w", file, err)
	}
	if doc.BOMFormat != "CycloneDX" {
		return nil, fmt.Errorf("%s is not a CycloneDX JSON document (bomFormat %q)", file, doc.BOMFormat)
	}
	return data, nil
}
