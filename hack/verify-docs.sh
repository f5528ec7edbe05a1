#!/usr/bin/env bash
# Fails when a page of docs/reference differs from what hack/update-docs.sh
# writes now (or is missing, or is no longer written), naming each stale
# page; the tree is left as it was.
set -euo pipefail

# shellcheck source=hack/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "${ROOT}"

OUT=docs/reference
snapshot=$(mktemp -d)
trap 'rm -rf "${snapshot}"' EXIT
mkdir -p "${snapshot}/pages"
if [[ -d "${OUT}" ]]; then
  cp -a "${OUT}/." "${snapshot}/pages/"
fi

hack/update-docs.sh

declare -A pages=()
for page in "${OUT}"/*.md "${snapshot}"/pages/*.md; do
  [[ -e "${page}" ]] && pages[$(basename "${page}")]=1
done

status=0
for name in $(printf '%s\n' "${!pages[@]}" | sort); do
  if ! diff -u "${snapshot}/pages/${name}" "${OUT}/${name}" >"${snapshot}/diff" 2>&1; then
    if [[ ${status} -eq 0 ]]; then
      echo "docs/reference is stale; run 'make docs':" >&2
    fi
    echo "stale: ${OUT}/${name}" >&2
    head -n 20 "${snapshot}/diff" >&2
    status=1
  fi
done

if [[ ${status} -ne 0 ]]; then
  # Put the pages back the way they were, so that verifying changes nothing.
  rm -rf "${OUT}"
  mkdir -p "${OUT}"
  cp -a "${snapshot}/pages/." "${OUT}/"
fi
exit ${status}
