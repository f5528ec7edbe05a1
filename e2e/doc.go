// Package e2e tests konnect-operator as a user runs it: the binaries built
// by the Dockerfile's builder commands, the manifests applied with kubectl
// (server-side) to a real kube-apiserver, the operator running out of
// cluster as the ServiceAccount those manifests create (so that a missing
// RBAC rule fails the suite), the Konnect simulator binary standing in for
// Konnect, and every sample of manifests/samples.
//
// Everything is in the _test.go files; run it with `make test-e2e` (or as
// part of `make test`).
package e2e
