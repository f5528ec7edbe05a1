// Command ociimage writes the konnect-operator image — one static binary per
// platform on a minimal non-root root filesystem — as an OCI image layout
// (and, optionally, the same layout as one tar file), without a container
// engine or a base image to pull:
//
//	ociimage --out bin/image --archive bin/konnect-operator-image.tar \
//	  --binary linux/amd64=bin/linux_amd64/konnect-operator \
//	  --binary linux/arm64=bin/linux_arm64/konnect-operator \
//	  --sbom linux/amd64=bin/linux_amd64/konnect-operator.cdx.json \
//	  --sbom linux/arm64=bin/linux_arm64/konnect-operator.cdx.json \
//	  --version v1.2.3 --revision <commit> --created <unix seconds> --source https://…
//
// Each --sbom travels in the image index as an OCI artifact whose subject is
// its platform's image (see sbom.go).
//
// The output is reproducible: every timestamp is --created (make image passes
// the commit's time), files are written in a fixed order with fixed owners
// and modes, and layers are compressed with a fixed gzip level, so the same
// binaries and flags give the same digests.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// imageName is the binary, the entrypoint and the image's title.
const imageName = "konnect-operator"

// platformFiles collects repeated os/arch=path flags (--binary, --sbom).
type platformFiles []platformFile

// platformFile is one file for one platform.
type platformFile struct {
	os, arch, path string
}

func (p *platformFiles) String() string { return fmt.Sprint(len(*p)) + " files" }

func (p *platformFiles) Set(v string) error {
	platform, path, ok := strings.Cut(v, "=")
	goos, arch, ok2 := strings.Cut(platform, "/")
	if !ok || !ok2 || goos == "" || arch == "" || path == "" {
		return fmt.Errorf("want os/arch=path, got %q", v)
	}
	for _, b := range *p {
		if b.os == goos && b.arch == arch {
			return fmt.Errorf("%s/%s given twice", goos, arch)
		}
	}
	*p = append(*p, platformFile{os: goos, arch: arch, path: path})
	return nil
}

func main() {
	var opts options
	var created string
	fs := flag.NewFlagSet("ociimage", flag.ExitOnError)
	fs.StringVar(&opts.out, "out", "", "directory to write the OCI image layout to (replaced)")
	fs.StringVar(&opts.archive, "archive", "", "also write the layout as this tar file (an OCI archive)")
	fs.Var(&opts.binaries, "binary", "os/arch=path of the static binary for that platform (repeatable)")
	fs.Var(&opts.sboms, "sbom", "os/arch=path of a CycloneDX JSON SBOM to attach to that platform's image (repeatable)")
	fs.StringVar(&opts.version, "version", "", "the image's version (org.opencontainers.image.version, and the layout's tag)")
	fs.StringVar(&opts.revision, "revision", "", "the source commit (org.opencontainers.image.revision)")
	fs.StringVar(&opts.source, "source", "", "URL of the source repository (org.opencontainers.image.source)")
	fs.StringVar(&created, "created", "0", "creation time of everything in the image, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	_ = fs.Parse(os.Args[1:])
	if err := run(opts, created); err != nil {
		fmt.Fprintln(os.Stderr, "ociimage:", err)
		os.Exit(1)
	}
}

func run(opts options, created string) error {
	seconds, err := strconv.ParseInt(created, 10, 64)
	if err != nil || seconds < 0 {
		return fmt.Errorf("--created must be seconds since 1970, got %q", created)
	}
	opts.created = time.Unix(seconds, 0).UTC()
	switch {
	case opts.out == "":
		return errors.New("--out is required")
	case len(opts.binaries) == 0:
		return errors.New("give at least one --binary os/arch=path")
	case opts.version == "" || opts.revision == "":
		return errors.New("--version and --revision are required")
	}
	index, err := buildIndex(opts)
	if err != nil {
		return err
	}
	digest, err := writeLayout(opts.out, index, opts.version)
	if err != nil {
		return err
	}
	fmt.Printf("%s %s: OCI layout in %s\n", imageName, digest, opts.out)
	if opts.archive != "" {
		if err := writeArchive(opts.out, opts.archive, opts.created); err != nil {
			return err
		}
		fmt.Printf("%s %s: OCI archive %s\n", imageName, digest, opts.archive)
	}
	return nil
}
