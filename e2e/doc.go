// Package e2e tests konnect-operator as a user runs it: the binaries built
// by the Dockerfile's builder commands, the manifests applied with kubectl
// (server-side) to a real kube-apiserver, the operator running out of
// cluster as the ServiceAccount those manifests create (so that a missing
// RBAC rule fails the suite), the Konnect simulator binary standing in for
// Konnect, and every sample of manifests/samples.
//
// The suite's harness (its set-up, the processes, the control plane, the
// simulator, the chaos worlds) is in this package's non-test files, so that
// e2e/isolated runs the tests that bring their own world (the chaos tests,
// the export, the Helm journey, the namespaced overlay) with it, in a
// process of its own.
// Run both with `make test-e2e` (or as part of `make test`).
package e2e
