# Pinned versions of the tools that hack/ builds from the Go module proxy.
# Changing one of them invalidates the build stamp in the cache folder.
KUBERNETES_VERSION=v1.36.3
ETCD_VERSION=v3.6.16
GOLANGCI_LINT_VERSION=v2.15.0
# Helm (the chart's tests); promtool from the Prometheus module, whose v0.3XX.Y
# versions are Prometheus 3.XX.Y.
HELM_VERSION=v4.3.1
PROMETHEUS_VERSION=v0.316.0
# The generators of docs/reference: the API reference from pkg/apis and the
# chart's values from manifests/chart/values.yaml.
CRD_REF_DOCS_VERSION=v0.3.0
HELM_DOCS_VERSION=v1.14.2
# The image's SBOM (make sbom) and the vulnerability check of the module
# graph (make vulncheck): cyclonedx-gomod, govulncheck (golang.org/x/vuln),
# and the Go vulnerability database as the module golang.org/x/vulndb
# publishes it (its data/osv; a pseudo-version is a commit of that
# database: move it forward to check against newer reports).
CYCLONEDX_GOMOD_VERSION=v1.10.0
GOVULNCHECK_VERSION=v1.9.0
VULNDB_VERSION=v0.0.0-20261105234957-e22db6528018
