// Package version says which build of the operator is running: the release
// and commit that `make build` links in, and the Go toolchain that built it.
package version

import (
	"fmt"
	"runtime"
)

// Set at link time by `make build` (-ldflags -X); a plain `go build` leaves
// the defaults, which say so.
var (
	// Version is the release: `git describe --tags --always --dirty`.
	Version = "dev"
	// Commit is the full git commit the binary was built from.
	Commit = "unknown"
)

// Info is the build of the running binary.
type Info struct {
	Version   string
	Commit    string
	GoVersion string
	Platform  string
}

// Get returns the build of the running binary.
func Get() Info {
	return Info{
		Version:   Version,
		Commit:    Commit,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
}

// String is the one line `--version` prints, for example
// "konnect-operator v0.2.0 (commit 5f3e…, go1.26.8, linux/amd64)".
func (i Info) String() string {
	return fmt.Sprintf("konnect-operator %s (commit %s, %s, %s)", i.Version, i.Commit, i.GoVersion, i.Platform)
}
