package main

import (
	"archive/tar"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// refNameAnnotation tags an index entry of an OCI layout (what tools like
// skopeo call oci:DIR:TAG).
const refNameAnnotation = "org.opencontainers.image.ref.name"

// writeLayout replaces dir with an OCI image layout holding index, tagged
// tag, and returns the index's digest.
func writeLayout(dir string, index v1.ImageIndex, tag string) (v1.Hash, error) {
	// Blobs of an earlier build would stay behind otherwise.
	if err := os.RemoveAll(dir); err != nil {
		return v1.Hash{}, err
	}
	path, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := path.AppendIndex(index, layout.WithAnnotations(map[string]string{refNameAnnotation: tag})); err != nil {
		return v1.Hash{}, err
	}
	return index.Digest()
}

// writeArchive packs the layout in dir into one tar file (an OCI archive,
// which `skopeo copy oci-archive:…` and `docker load` read), with sorted
// entries, fixed owners and modes, and modTime on every entry.
func writeArchive(dir, archive string, modTime time.Time) error {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel += "/"
		}
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	files := make([]file, 0, len(names))
	for _, name := range names {
		f := file{name: name, mode: 0o755}
		if name[len(name)-1] != '/' {
			f.mode = 0o644
			if f.data, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
				return err
			}
		}
		files = append(files, f)
	}
	out, err := os.Create(archive)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(out)
	for _, f := range files {
		hdr := &tar.Header{Name: f.name, Mode: f.mode, ModTime: modTime, Format: tar.FormatPAX, Typeflag: tar.TypeDir}
		if f.name[len(f.name)-1] != '/' {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			_ = out.Close()
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			_ = out.Close()
			return err
		}
	}
	if err := tw.Close(); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
