#!/usr/bin/env bash
# Fails when anything generated (clients, deepcopy, register code, CRDs and
# the chart's copies of them and of the monitoring files)
# differs from what hack/update-codegen.sh produces now.
set -euo pipefail

# shellcheck source=hack/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "${ROOT}"

GENERATED_PATHS=(generated manifests/crd manifests/chart/files pkg/apis)

snapshot=$(mktemp -d)
trap 'rm -rf "${snapshot}"' EXIT
for path in "${GENERATED_PATHS[@]}"; do
  mkdir -p "${snapshot}/$(dirname "${path}")"
  cp -a "${path}" "${snapshot}/${path}"
done

hack/update-codegen.sh >/dev/null

status=0
for path in "${GENERATED_PATHS[@]}"; do
  if ! diff -ruN "${snapshot}/${path}" "${path}" >"${snapshot}/diff" 2>&1; then
    echo "generated code under ${path} is stale; run 'make generate':" >&2
    head -n 40 "${snapshot}/diff" >&2
    status=1
  fi
done

if [[ ${status} -ne 0 ]]; then
  # Put the tree back the way it was, so that verifying changes nothing.
  for path in "${GENERATED_PATHS[@]}"; do
    rm -rf "${path}"
    cp -a "${snapshot}/${path}" "${path}"
  done
fi
exit ${status}
