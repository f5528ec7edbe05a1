#!/usr/bin/env bash
# The environment every script in hack/ and the Makefile share, in one place.
#
# Sourced (`source hack/env.sh`), it sets ROOT to the repository root and
# exports:
#   KONNECT_OPERATOR_CACHE  the folder of tools built once (default .cache/)
#   GOPROXY                 with the module folder shared beside the
#                           repository first, when there is one (below)
# and defines go_module_dir.
#
# Run (`hack/env.sh GOPROXY`), it prints the value GOPROXY gets, for the
# Makefile, whose own go commands need the same.
#
# The shared module folder: Go modules that the usual proxy cannot serve here
# are kept, in the plain file layout of the GOPROXY protocol, in
# shared/goproxy beside the repository (../shared/goproxy; worktrees nested
# deeper find it further up). When it exists it goes first in GOPROXY as a
# file:// URL, followed by the usual value; otherwise GOPROXY is left alone.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export KONNECT_OPERATOR_CACHE=${KONNECT_OPERATOR_CACHE:-${ROOT}/.cache}

# shared_goproxy prints the absolute path of the nearest shared/goproxy above
# the repository root, or nothing.
shared_goproxy() {
  local dir=${ROOT}
  while [[ "${dir}" != "/" ]]; do
    dir=$(dirname "${dir}")
    if [[ -d "${dir}/shared/goproxy" ]]; then
      echo "${dir}/shared/goproxy"
      return
    fi
  done
}

# goproxy_value prints GOPROXY with the shared module folder first, or the
# usual value when there is no such folder. Idempotent: sourcing twice does
# not add the folder twice.
goproxy_value() {
  local usual shared
  usual=${GOPROXY:-$(go env GOPROXY)}
  shared=$(shared_goproxy)
  if [[ -z "${shared}" || "${usual}" == "file://${shared}" || "${usual}" == "file://${shared},"* ]]; then
    echo "${usual}"
    return
  fi
  echo "file://${shared},${usual}"
}

# go_module_dir prints the folder of a module the project requires,
# downloading it first: `go list -m` prints nothing for a module that is not
# in the module cache yet (a fresh machine).
go_module_dir() {
  local dir
  dir=$(cd "${ROOT}" && go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  if [[ -z "${dir}" || ! -d "${dir}" ]]; then
    echo "could not download the Go module $1" >&2
    return 1
  fi
  echo "${dir}"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  case "${1:-}" in
    GOPROXY) goproxy_value ;;
    *)
      echo "usage: $0 GOPROXY   (or source it from a script)" >&2
      exit 2
      ;;
  esac
else
  GOPROXY=$(goproxy_value)
  export GOPROXY
fi
