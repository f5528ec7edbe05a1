#!/usr/bin/env bash
# Runs golangci-lint, built once from the Go module proxy into the cache
# folder at the version pinned in hack/versions.sh.
set -euo pipefail

# shellcheck source=hack/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
# shellcheck source=hack/versions.sh
source "${ROOT}/hack/versions.sh"
CACHE_DIR=${KONNECT_OPERATOR_CACHE:-${ROOT}/.cache}
LINT="${CACHE_DIR}/bin/golangci-lint-${GOLANGCI_LINT_VERSION}"

if [[ ! -x "${LINT}" ]]; then
  echo ">> building golangci-lint ${GOLANGCI_LINT_VERSION} (once)"
  mkdir -p "${CACHE_DIR}/bin"
  GOBIN=$(mktemp -d)
  GOBIN="${GOBIN}" GOTOOLCHAIN=${GOTOOLCHAIN:-local} go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@${GOLANGCI_LINT_VERSION}"
  mv "${GOBIN}/golangci-lint" "${LINT}"
  rm -rf "${GOBIN}"
fi

cd "${ROOT}"
# golangci-lint refuses to start while another run holds its lock (another
# checkout's make test, an editor); wait for it instead.
"${LINT}" run --allow-serial-runners ./...
# hack/tools is a module of its own (the image writer, the PromQL reader).
cd "${ROOT}/hack/tools"
"${LINT}" run --allow-serial-runners ./...
