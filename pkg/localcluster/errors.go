package localcluster

import (
	"fmt"
	"strings"
)

// BinariesMissingError reports control-plane binaries that are not in the
// binary folder and could not be built there.
type BinariesMissingError struct {
	// Dir is the folder that was searched.
	Dir string
	// Missing names the binaries that are absent or not executable.
	Missing []string
}

func (e *BinariesMissingError) Error() string {
	return fmt.Sprintf("control-plane binaries missing in %s: %s (run hack/build-control-plane.sh)",
		e.Dir, strings.Join(e.Missing, ", "))
}

// ComponentExitedError reports a component (etcd, kube-apiserver,
// kube-controller-manager) that exited while the cluster was starting or
// running.
type ComponentExitedError struct {
	// Component is the name of the binary.
	Component string
	// Err is what waiting for the process returned (its exit status).
	Err error
	// LogTail is the end of the component's output, to show why it exited.
	LogTail string
}

func (e *ComponentExitedError) Error() string {
	return fmt.Sprintf("%s exited: %v; last output:\n%s", e.Component, e.Err, e.LogTail)
}

func (e *ComponentExitedError) Unwrap() error { return e.Err }

// KubectlError reports a failed kubectl invocation with what it wrote to
// standard error.
type KubectlError struct {
	// Args are the arguments after the --kubeconfig flag.
	Args []string
	// Stderr is what kubectl wrote to standard error.
	Stderr string
	// Err is the exit status or the error starting kubectl.
	Err error
}

func (e *KubectlError) Error() string {
	return fmt.Sprintf("kubectl %s: %v: %s", strings.Join(e.Args, " "), e.Err, strings.TrimSpace(e.Stderr))
}

func (e *KubectlError) Unwrap() error { return e.Err }
