package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// options describe the image to build.
type options struct {
	out, archive              string
	binaries, sboms           platformFiles
	version, revision, source string
	created                   time.Time
}

// The user the image runs as: distroless's "nonroot", which the Deployment
// and the chart name too.
const (
	nonrootUID = 65532
	nonrootGID = 65532
)

// labels are the standard OCI labels (and manifest annotations).
func (o options) labels() map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       imageName,
		"org.opencontainers.image.description": "Keeps Kong Konnect equal to the Konnect custom resources of a Kubernetes cluster.",
		"org.opencontainers.image.version":     o.version,
		"org.opencontainers.image.revision":    o.revision,
		"org.opencontainers.image.created":     o.created.Format(time.RFC3339),
	}
	if o.source != "" {
		l["org.opencontainers.image.source"] = o.source
		l["org.opencontainers.image.url"] = o.source
	}
	return l
}

// buildIndex makes one image per platform and the index over them, with
// the SBOMs given beside the images they describe.
func buildIndex(o options) (v1.ImageIndex, error) {
	base, err := layer(o.created, baseFiles())
	if err != nil {
		return nil, err
	}
	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	images := map[string]v1.Descriptor{}
	for _, b := range o.binaries {
		binary, err := os.ReadFile(b.path)
		if err != nil {
			return nil, err
		}
		app, err := layer(o.created, []file{{name: imageName, mode: 0o755, data: binary}})
		if err != nil {
			return nil, err
		}
		img, err := image(o, b, base, app)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", b.os, b.arch, err)
		}
		index = mutate.AppendManifests(index, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: b.os, Architecture: b.arch}},
		})
		desc, err := partial.Descriptor(img)
		if err != nil {
			return nil, err
		}
		images[b.os+"/"+b.arch] = *desc
	}
	sboms, err := sbomAddenda(o.sboms, images, o.created)
	if err != nil {
		return nil, err
	}
	index = mutate.AppendManifests(index, sboms...)
	annotated, ok := mutate.Annotations(index, o.labels()).(v1.ImageIndex)
	if !ok {
		return nil, fmt.Errorf("annotating the index gave no index")
	}
	return annotated, nil
}

// image is the image of one platform: the base layer, then the binary.
func image(o options, b platformFile, base, app v1.Layer) (v1.Image, error) {
	history := func(createdBy string) v1.History {
		return v1.History{Created: v1.Time{Time: o.created}, CreatedBy: createdBy, Comment: "make image"}
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(img,
		mutate.Addendum{Layer: base, History: history("root filesystem: /etc/passwd, /etc/group, /etc/nsswitch.conf, /home/nonroot, /tmp")},
		mutate.Addendum{Layer: app, History: history("COPY " + imageName + " /" + imageName)},
	)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = b.os, b.arch
	cfg.Created = v1.Time{Time: o.created}
	cfg.Config = v1.Config{
		User:         fmt.Sprintf("%d:%d", nonrootUID, nonrootGID),
		Entrypoint:   []string{"/" + imageName},
		WorkingDir:   "/",
		Env:          []string{"PATH=/"},
		ExposedPorts: map[string]struct{}{"8443/tcp": {}, "8081/tcp": {}},
		Labels:       o.labels(),
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, err
	}
	annotated, ok := mutate.Annotations(img, o.labels()).(v1.Image)
	if !ok {
		return nil, fmt.Errorf("annotating the image gave no image")
	}
	return annotated, nil
}

// file is one entry of a layer; a name ending in "/" is a directory.
type file struct {
	name     string
	mode     int64
	uid, gid int
	data     []byte
}

// baseFiles are what a minimal non-root base image holds, and all the
// operator needs: the users (so that the nonroot user has a name and a
// home), name-service order for the resolver, and a writable /tmp. No shell,
// no package manager, no CA bundle (the binary carries its own).
func baseFiles() []file {
	return []file{
		{name: "etc/", mode: 0o755},
		{name: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n")},
		{name: "etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{name: "etc/passwd", mode: 0o644, data: []byte(
			"root:x:0:0:root:/root:/sbin/nologin\n" +
				"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
				"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, uid: nonrootUID, gid: nonrootGID},
		{name: "tmp/", mode: 0o1777},
	}
}

// layer packs files, in the order given, into a gzip-compressed tar layer
// whose every timestamp is modTime.
func layer(modTime time.Time, files []file) (v1.Layer, error) {
	var tarball bytes.Buffer
	tw := tar.NewWriter(&tarball)
	for _, f := range files {
		hdr := &tar.Header{
			Name: f.name, Mode: f.mode, Uid: f.uid, Gid: f.gid,
			ModTime: modTime, Format: tar.FormatPAX,
		}
		if f.name[len(f.name)-1] == '/' {
			hdr.Typeflag = tar.TypeDir
		} else {
			hdr.Typeflag = tar.TypeReg
			hdr.Size = int64(len(f.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	compressed, err := gzipped(tarball.Bytes())
	if err != nil {
		return nil, err
	}
	return fromCompressed(compressed)
}

// gzipped compresses data with a fixed level and an empty gzip header (no
// name, no time), so that the same data always gives the same bytes.
func gzipped(data []byte) ([]byte, error) {
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// fromCompressed is an OCI layer of an already compressed tar: ggcr keeps
// these bytes as the blob and computes the diff ID from their content.
func fromCompressed(compressed []byte) (v1.Layer, error) {
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(compressed)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
