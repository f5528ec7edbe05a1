#!/usr/bin/env bash
# Regenerates everything under generated/, the deepcopy and register code
# next to the API types, the CRD manifests under manifests/crd/ and the
# Konnect client in generated/konnectapi.
#
# The Konnect client is generated from Konnect's OpenAPI document, which lives
# outside the repository: $KONNECT_OPENAPI_SPEC, else
# ../shared/konnect/konnect-core-entities.yaml relative to the repository root
# (searched further up too, so that git worktrees nested deeper find it).
# Without the document the committed client is left as it is.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${ROOT}"

MODULE=github.com/konnect-operator/konnect-operator
BOILERPLATE="${ROOT}/hack/boilerplate.go.txt"
CODEGEN_DIR=$(go list -m -f '{{.Dir}}' k8s.io/code-generator)

# shellcheck source=/dev/null
source "${CODEGEN_DIR}/kube_codegen.sh"

kube::codegen::gen_helpers --boilerplate "${BOILERPLATE}" "${ROOT}/pkg/apis"
kube::codegen::gen_register --boilerplate "${BOILERPLATE}" "${ROOT}/pkg/apis"
kube::codegen::gen_client \
  --with-watch \
  --output-dir "${ROOT}/generated" \
  --output-pkg "${MODULE}/generated" \
  --boilerplate "${BOILERPLATE}" \
  "${ROOT}/pkg/apis"

rm -rf "${ROOT}/manifests/crd"
go tool controller-gen crd:generateEmbeddedObjectMeta=false,allowDangerousTypes=true paths=./pkg/apis/... output:crd:artifacts:config=manifests/crd

find_konnect_spec() {
  local dir="${ROOT}"
  while [[ "${dir}" != "/" ]]; do
    dir=$(dirname "${dir}")
    if [[ -f "${dir}/shared/konnect/konnect-core-entities.yaml" ]]; then
      echo "${dir}/shared/konnect/konnect-core-entities.yaml"
      return
    fi
  done
  echo "${ROOT}/../shared/konnect/konnect-core-entities.yaml"
}

KONNECT_OPENAPI_SPEC=${KONNECT_OPENAPI_SPEC:-$(find_konnect_spec)}
if [[ -f "${KONNECT_OPENAPI_SPEC}" ]]; then
  rm -rf "${ROOT}/generated/konnectapi"
  mkdir -p "${ROOT}/generated/konnectapi"
  go tool oapi-codegen -config "${ROOT}/hack/konnectapi-codegen.yaml" "${KONNECT_OPENAPI_SPEC}"
else
  echo "Konnect OpenAPI document not found at ${KONNECT_OPENAPI_SPEC}; generated/konnectapi left unchanged (set KONNECT_OPENAPI_SPEC to regenerate it)" >&2
fi
