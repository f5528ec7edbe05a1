// Package apis holds the operator's API groups, one package per group and
// version (configuration.konghq.com and konnect.konghq.com, wire-compatible
// with Kong Operator's, and the types they share in common/v1alpha1), from
// which make generate writes the CRDs, clients and deepcopy code. Its tests
// hold the generated CRDs to Kong Operator's own validation cases
// (testdata/kongoperator) on a real API server.
package apis
