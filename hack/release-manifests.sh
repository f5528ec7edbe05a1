#!/usr/bin/env bash
# The install manifests of a release, pinned by digest to the image that
# `make image` wrote, once pushed to a registry (make release-manifests):
#
#   hack/release-manifests.sh <OCI layout> <repository> <output folder>
#
# writes into the output folder
#   konnect-operator.yaml  manifests/ built with the operator image
#                          <repository>@sha256:<index digest>
#                          (kubectl apply --server-side -f)
#   values-image.yaml      image.repository and image.digest for the chart
#                          (helm install --values)
# The digest is the image index's: pushing the layout (crane push, skopeo
# copy oci:…, oras cp --from-oci-layout) keeps it, so the manifests name
# exactly the image that was built.
set -euo pipefail

# shellcheck source=hack/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
layout=${1:?the OCI layout make image wrote}
repository=${2:?the repository the image is pushed to}
out=${3:?the output folder}
CACHE_DIR=${KONNECT_OPERATOR_CACHE:-${ROOT}/.cache}

if [[ ! -f "${layout}/index.json" ]]; then
  echo "release-manifests: no OCI layout in ${layout}: run make image first" >&2
  exit 1
fi
# The entry of index.json that is the image index (the others are its SBOMs).
digest=$(awk '/"mediaType": "application\/vnd.oci.image.index.v1\+json"/ { found = 1 }
  found && /"digest":/ { gsub(/[",]/, "", $2); print $2; exit }' "${layout}/index.json")
if [[ ! "${digest}" =~ ^sha256:[0-9a-f]{64}$ ]]; then
  echo "release-manifests: ${layout}/index.json names no image index (found ${digest:-nothing})" >&2
  exit 1
fi

mkdir -p "${out}"
overlay=$(mktemp -d "${out}/overlay.XXXXXX")
trap 'rm -rf "${overlay}"' EXIT
cat >"${overlay}/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- $(realpath --relative-to="${overlay}" "${ROOT}/manifests")
images:
- name: konnect-operator
  newName: ${repository}
  digest: ${digest}
YAML
"${CACHE_DIR}/bin/kubectl" kustomize "${overlay}" >"${out}/konnect-operator.yaml"
cat >"${out}/values-image.yaml" <<YAML
# The image of this release, pinned by digest: helm install --values this file.
image:
  repository: ${repository}
  digest: ${digest}
YAML
echo "konnect-operator ${repository}@${digest}: ${out}/konnect-operator.yaml, ${out}/values-image.yaml"
