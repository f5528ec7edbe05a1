#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kubectl and etcd from the Go
# module proxy into $CACHE_DIR/bin, once. A stamp keyed by the pinned versions
# (and by the revision of this recipe) skips rebuilds.
#
# Safe to run concurrently: callers take an exclusive lock on the cache, so a
# second caller waits for the first build and then finds the stamp. Binaries
# are built into a staging folder and renamed into place, so a reader never
# executes a half-written file.
set -euo pipefail

# shellcheck source=hack/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
# shellcheck source=hack/versions.sh
source "${ROOT}/hack/versions.sh"

# Bump when the way the binaries are built changes (flags, ldflags), so that
# existing caches are rebuilt.
RECIPE_REVISION=2

CACHE_DIR=${KONNECT_OPERATOR_CACHE:-${ROOT}/.cache}
BIN_DIR="${CACHE_DIR}/bin"
STAMP_PREFIX=".stamp-kubernetes-${KUBERNETES_VERSION}-etcd-${ETCD_VERSION}"
STAMP="${BIN_DIR}/${STAMP_PREFIX}-r${RECIPE_REVISION}"
BINARIES=(kube-apiserver kube-controller-manager kubectl etcd)

up_to_date() {
  [[ -f "${STAMP}" ]] || return 1
  local binary
  for binary in "${BINARIES[@]}"; do
    [[ -x "${BIN_DIR}/${binary}" ]] || return 1
  done
}

# Fast path without the lock: nothing to do.
if up_to_date; then
  exit 0
fi

mkdir -p "${BIN_DIR}"
exec 9>"${CACHE_DIR}/.build-control-plane.lock"
if ! flock --nonblock 9; then
  echo ">> another build of the control plane is running; waiting for it"
  flock 9
fi
# Whoever held the lock may have built exactly what we need.
if up_to_date; then
  exit 0
fi

export GOFLAGS=-mod=mod
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
mkdir -p "${CACHE_DIR}/build"
STAGING=$(mktemp -d "${CACHE_DIR}/build/out.XXXXXX")
trap 'rm -rf "${STAGING}"' EXIT

build_kubernetes() {
  local dir="${CACHE_DIR}/build/kubernetes-${KUBERNETES_VERSION}"
  local staging_version="v0${KUBERNETES_VERSION#v1}"
  local minor=${KUBERNETES_VERSION#v1.}
  minor=${minor%%.*}
  # Without these the binaries report v0.0.0-master, which kubectl prints and
  # clients reading /version see.
  local version_flags=""
  local pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    version_flags+=" -X ${pkg}.gitVersion=${KUBERNETES_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor} -X ${pkg}.gitTreeState=clean"
  done
  rm -rf "${dir}" && mkdir -p "${dir}"
  echo ">> building kube-apiserver, kube-controller-manager and kubectl ${KUBERNETES_VERSION} (several minutes, once)"
  (
    cd "${dir}"
    go mod init konnect-operator.local/kubernetes-build >/dev/null 2>&1
    # k8s.io/kubernetes replaces each staging module with a local directory;
    # outside its repository each must point at the published v0.x.y instead.
    local gomod
    gomod=$(go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
    if [[ -z "${gomod}" || ! -f "${gomod}" ]]; then
      echo "could not download k8s.io/kubernetes@${KUBERNETES_VERSION} from the module proxy" >&2
      exit 1
    fi
    sed -n 's#^\t\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "${gomod}" | while read -r module; do
      go mod edit -replace="${module}=${module}@${staging_version}"
    done
    go mod edit -require="k8s.io/kubernetes@${KUBERNETES_VERSION}"
    cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
    go mod tidy >/dev/null
    local binary
    for binary in kube-apiserver kube-controller-manager kubectl; do
      CGO_ENABLED=0 go build -trimpath -ldflags "${version_flags}" -o "${STAGING}/${binary}" "k8s.io/kubernetes/cmd/${binary}"
    done
  )
}

build_etcd() {
  local dir="${CACHE_DIR}/build/etcd-${ETCD_VERSION}"
  rm -rf "${dir}" && mkdir -p "${dir}"
  echo ">> building etcd ${ETCD_VERSION}"
  (
    cd "${dir}"
    go mod init konnect-operator.local/etcd-build >/dev/null 2>&1
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
    go mod edit -require="go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
    go mod tidy >/dev/null
    CGO_ENABLED=0 go build -trimpath -o "${STAGING}/etcd" go.etcd.io/etcd/server/v3
  )
}

build_etcd
build_kubernetes
for binary in "${BINARIES[@]}"; do
  # A rename is atomic: running processes keep the old file, new ones get the new.
  mv -f "${STAGING}/${binary}" "${BIN_DIR}/${binary}"
done
# Stamps of other versions are stale now. Stamps of the same versions from an
# older recipe stay: older checkouts' scripts accept these binaries as theirs.
find "${BIN_DIR}" -maxdepth 1 -name '.stamp-*' ! -name "${STAMP_PREFIX}*" -delete
touch "${STAMP}"
echo ">> control plane binaries in ${BIN_DIR}"
