#!/usr/bin/env bash
# Builds the tools the chart, dashboard and alert tests run — helm and
# promtool — those that generate docs/reference — crd-ref-docs and
# helm-docs — and those of the image's SBOM and the vulnerability check —
# cyclonedx-gomod, govulncheck and the vulnerability database's indexer
# (vulndb-indexdb) — from the Go module proxy into $CACHE_DIR/bin, once, at
# the versions pinned in hack/versions.sh, and prints the path of each one
# asked for on standard output (progress goes to standard error).
#
#   hack/build-tools.sh [helm] [promtool] [crd-ref-docs] [helm-docs] [cyclonedx-gomod] [govulncheck] [vulndb-indexdb]
#                                           # no argument: helm and promtool
#
# A binary's name carries its version (helm-v4.3.1), so worktrees pinning
# different versions share the cache folder, and an existing file is never
# rebuilt. Concurrent callers wait on a lock for the one that builds; a build
# goes to a temporary folder and is renamed into place, so nobody runs a
# half-written file.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=hack/versions.sh
source "${ROOT}/hack/versions.sh"
CACHE_DIR=${KONNECT_OPERATOR_CACHE:-${ROOT}/.cache}
BIN_DIR="${CACHE_DIR}/bin"

# Prometheus 3.XX.Y is published as the Go module version v0.3XX.Y.
prometheus_release() {
  local minor_patch=${PROMETHEUS_VERSION#v0.3}
  local minor=${minor_patch%%.*} patch=${minor_patch#*.}
  echo "3.$((10#${minor})).${patch}"
}

tool_path() {
  case "$1" in
    helm) echo "${BIN_DIR}/helm-${HELM_VERSION}" ;;
    promtool) echo "${BIN_DIR}/promtool-${PROMETHEUS_VERSION}" ;;
    crd-ref-docs) echo "${BIN_DIR}/crd-ref-docs-${CRD_REF_DOCS_VERSION}" ;;
    helm-docs) echo "${BIN_DIR}/helm-docs-${HELM_DOCS_VERSION}" ;;
    cyclonedx-gomod) echo "${BIN_DIR}/cyclonedx-gomod-${CYCLONEDX_GOMOD_VERSION}" ;;
    govulncheck) echo "${BIN_DIR}/govulncheck-${GOVULNCHECK_VERSION}" ;;
    vulndb-indexdb) echo "${BIN_DIR}/vulndb-indexdb-${VULNDB_VERSION}" ;;
    *) echo "unknown tool $1 (want helm, promtool, crd-ref-docs, helm-docs, cyclonedx-gomod, govulncheck or vulndb-indexdb)" >&2; return 1 ;;
  esac
}

build() {
  local tool=$1 target=$2 gobin
  gobin=$(mktemp -d "${CACHE_DIR}/build/gobin.XXXXXX")
  local begin=${SECONDS}
  case "${tool}" in
    helm)
      echo ">> building helm ${HELM_VERSION} (once)" >&2
      # The version variables are what Helm's own release build sets; without
      # them `helm version` reports a development build.
      GOBIN="${gobin}" CGO_ENABLED=0 go install -trimpath \
        -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=${HELM_VERSION} -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
        "helm.sh/helm/v4/cmd/helm@${HELM_VERSION}" >&2
      ;;
    promtool)
      echo ">> building promtool $(prometheus_release) (once)" >&2
      # remove_all_sd leaves out the cloud service discoveries (AWS, Azure,
      # GCE, …): promtool's checks and rule tests do not use them, and they
      # are most of the build.
      GOBIN="${gobin}" CGO_ENABLED=0 go install -trimpath -tags remove_all_sd \
        -ldflags "-s -w -X github.com/prometheus/common/version.Version=$(prometheus_release)" \
        "github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_VERSION}" >&2
      ;;
    crd-ref-docs)
      echo ">> building crd-ref-docs ${CRD_REF_DOCS_VERSION} (once)" >&2
      GOBIN="${gobin}" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" \
        "github.com/elastic/crd-ref-docs@${CRD_REF_DOCS_VERSION}" >&2
      ;;
    helm-docs)
      echo ">> building helm-docs ${HELM_DOCS_VERSION} (once)" >&2
      GOBIN="${gobin}" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" \
        "github.com/norwoodj/helm-docs/cmd/helm-docs@${HELM_DOCS_VERSION}" >&2
      ;;
    cyclonedx-gomod)
      echo ">> building cyclonedx-gomod ${CYCLONEDX_GOMOD_VERSION} (once)" >&2
      GOBIN="${gobin}" CGO_ENABLED=0 go install -trimpath \
        "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@${CYCLONEDX_GOMOD_VERSION}" >&2
      ;;
    govulncheck)
      echo ">> building govulncheck ${GOVULNCHECK_VERSION} (once)" >&2
      GOBIN="${gobin}" CGO_ENABLED=0 go install -trimpath \
        "golang.org/x/vuln/cmd/govulncheck@${GOVULNCHECK_VERSION}" >&2
      ;;
    vulndb-indexdb)
      # The Go team's tool that turns a folder of OSV reports into the
      # database layout govulncheck reads (index/, ID/).
      echo ">> building the vulnerability database's indexer ${VULNDB_VERSION} (once)" >&2
      GOBIN="${gobin}" CGO_ENABLED=0 go install -trimpath \
        "golang.org/x/vulndb/cmd/indexdb@${VULNDB_VERSION}" >&2
      mv -f "${gobin}/indexdb" "${gobin}/${tool}"
      ;;
  esac
  mv -f "${gobin}/${tool}" "${target}"
  rm -rf "${gobin}"
  echo ">> ${tool} built in $((SECONDS - begin))s: ${target}" >&2
}

tools=("$@")
if [[ ${#tools[@]} -eq 0 ]]; then
  tools=(helm promtool)
fi
for tool in "${tools[@]}"; do
  target=$(tool_path "${tool}")
  if [[ ! -x "${target}" ]]; then
    mkdir -p "${BIN_DIR}" "${CACHE_DIR}/build"
    (
      exec 9>"${CACHE_DIR}/.build-${tool}.lock"
      if ! flock --nonblock 9; then
        echo ">> another build of ${tool} is running; waiting for it" >&2
        flock 9
      fi
      # Whoever held the lock may have built it meanwhile.
      if [[ ! -x "${target}" ]]; then
        export GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOFLAGS=-mod=mod
        build "${tool}" "${target}"
      fi
    )
  fi
  echo "${target}"
done
