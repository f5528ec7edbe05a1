// Package tools holds small programs the Makefile and the tests run, kept in
// a module of their own so that their dependencies (go-containerregistry,
// Prometheus's PromQL parser) stay out of the operator's go.mod:
//
//   - ociimage writes the operator's multi-architecture OCI image without a
//     container engine, with each binary's SBOM beside its image (`make
//     image`);
//   - promqlnames lists the metrics that a Grafana dashboard and Prometheus
//     rule files query (the e2e suite checks each is served);
//   - vulnreport turns govulncheck's findings into the verdict of `make
//     vulncheck`.
package tools
