#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager, kubectl and etcd from the Go module proxy into
# $CACHE_DIR/bin, once. A stamp keyed by the pinned versions skips rebuilds.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=hack/versions.sh
source "${ROOT}/hack/versions.sh"

CACHE_DIR=${KONNECT_OPERATOR_CACHE:-${ROOT}/.cache}
BIN_DIR="${CACHE_DIR}/bin"
STAMP="${BIN_DIR}/.stamp-kubernetes-${KUBERNETES_VERSION}-etcd-${ETCD_VERSION}"

if [[ -f "${STAMP}" && -x "${BIN_DIR}/kube-apiserver" && -x "${BIN_DIR}/etcd" && -x "${BIN_DIR}/kubectl" && -x "${BIN_DIR}/kube-controller-manager" ]]; then
  exit 0
fi

mkdir -p "${BIN_DIR}"
export GOFLAGS=-mod=mod
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

build_kubernetes() {
  local dir="${CACHE_DIR}/build/kubernetes-${KUBERNETES_VERSION}"
  local staging_version="v0${KUBERNETES_VERSION#v1}"
  rm -rf "${dir}" && mkdir -p "${dir}"
  echo ">> building kube-apiserver, kube-controller-manager and kubectl ${KUBERNETES_VERSION} (a few minutes, once)"
  (
    cd "${dir}"
    go mod init konnect-operator.local/kubernetes-build >/dev/null 2>&1
    # k8s.io/kubernetes replaces each staging module with a local directory;
    # outside its repository each must point at the published v0.x.y instead.
    go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" >/dev/null
    local gomod
    gomod=$(go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
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
    CGO_ENABLED=0 go build -trimpath -o "${BIN_DIR}/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
    CGO_ENABLED=0 go build -trimpath -o "${BIN_DIR}/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager
    CGO_ENABLED=0 go build -trimpath -o "${BIN_DIR}/kubectl" k8s.io/kubernetes/cmd/kubectl
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
    CGO_ENABLED=0 go build -trimpath -o "${BIN_DIR}/etcd" go.etcd.io/etcd/server/v3
  )
}

build_etcd
build_kubernetes
rm -f "${BIN_DIR}"/.stamp-*
touch "${STAMP}"
echo ">> control plane binaries in ${BIN_DIR}"
