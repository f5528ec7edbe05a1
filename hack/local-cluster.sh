#!/usr/bin/env bash
# Runs the test control plane (etcd, kube-apiserver, kube-controller-manager
# from pkg/localcluster, with the CRDs of manifests/crd) in the background for
# a person.
#
#   hack/local-cluster.sh up      start it; admin kubeconfig in .local/kubeconfig
#   hack/local-cluster.sh down    stop it
#   hack/local-cluster.sh status  say whether it runs and is ready (exit 1 if not running)
#
# Every `up` starts from an empty cluster. Component logs and pid files are in
# .local/cluster/, the supervisor's output in .local/local-cluster.log
# ($KONNECT_OPERATOR_LOCAL instead of .local when set).
set -euo pipefail

# shellcheck source=hack/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
LOCAL=${KONNECT_OPERATOR_LOCAL:-${ROOT}/.local}
STATE="${LOCAL}/cluster"
PIDFILE="${LOCAL}/local-cluster.pid"
KUBECONFIG_PATH="${LOCAL}/kubeconfig"
LOG="${LOCAL}/local-cluster.log"
SUPERVISOR="${LOCAL}/bin/local-cluster"
KUBECTL="${KONNECT_OPERATOR_CACHE}/bin/kubectl"
START_TIMEOUT=${LOCAL_CLUSTER_START_TIMEOUT:-180}

# supervisor_pid prints the supervisor's pid if it runs.
supervisor_pid() {
  [[ -f "${PIDFILE}" ]] || return 1
  local pid
  pid=$(<"${PIDFILE}")
  # A recycled pid would belong to another program.
  [[ "$(ps -p "${pid}" -o comm= 2>/dev/null)" == "local-cluster" ]] || return 1
  echo "${pid}"
}

server() {
  sed -n 's/^ *server: *//p' "${KUBECONFIG_PATH}" 2>/dev/null | head -n1
}

up() {
  local pid
  if pid=$(supervisor_pid); then
    echo "local cluster already running (pid ${pid}) at $(server)"
    echo "export KUBECONFIG=${KUBECONFIG_PATH}"
    return 0
  fi
  "${ROOT}/hack/build-control-plane.sh"
  (cd "${ROOT}" && go build -o "${SUPERVISOR}" ./hack/local-cluster)
  rm -rf "${STATE}" "${KUBECONFIG_PATH}"
  mkdir -p "${STATE}"
  # setsid: a Ctrl-C in this terminal later must not reach the cluster.
  setsid "${SUPERVISOR}" --dir "${STATE}" --kubeconfig "${KUBECONFIG_PATH}" \
    --crd-dir "${ROOT}/manifests/crd" >"${LOG}" 2>&1 </dev/null &
  pid=$!
  echo "${pid}" >"${PIDFILE}"
  local waited=0
  until [[ -f "${KUBECONFIG_PATH}" ]]; do
    if ! kill -0 "${pid}" 2>/dev/null; then
      echo "local cluster failed to start; ${LOG}:" >&2
      tail -n 40 "${LOG}" >&2
      rm -f "${PIDFILE}"
      return 1
    fi
    if ((waited >= START_TIMEOUT * 10)); then
      echo "local cluster not ready after ${START_TIMEOUT}s; stopping it. ${LOG}:" >&2
      tail -n 40 "${LOG}" >&2
      down >/dev/null
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  echo "local cluster running (pid ${pid}) at $(server)"
  echo "export KUBECONFIG=${KUBECONFIG_PATH}"
  echo "kubectl: ${KUBECTL}"
}

down() {
  local pid
  if pid=$(supervisor_pid); then
    kill -TERM "${pid}"
    local waited=0
    while kill -0 "${pid}" 2>/dev/null; do
      if ((waited >= 300)); then
        echo "supervisor (pid ${pid}) did not stop in 30s; killing it" >&2
        # Its components die with it (parent-death signal).
        kill -KILL "${pid}" 2>/dev/null || true
        break
      fi
      sleep 0.1
      waited=$((waited + 1))
    done
    echo "local cluster stopped"
  else
    echo "local cluster not running"
  fi
  # Components outliving their supervisor would be a bug; stop them anyway.
  local pidfile component
  for pidfile in "${STATE}"/*.pid; do
    [[ -f "${pidfile}" ]] || continue
    pid=$(<"${pidfile}")
    component=$(basename "${pidfile}" .pid)
    if [[ "$(ps -p "${pid}" -o comm= 2>/dev/null)" == "${component:0:15}" ]]; then
      echo "stopping leftover ${component} (pid ${pid})" >&2
      kill -KILL "${pid}" 2>/dev/null || true
    fi
    rm -f "${pidfile}"
  done
  rm -rf "${PIDFILE}" "${KUBECONFIG_PATH}" "${STATE}/etcd"
}

status() {
  local pid
  if ! pid=$(supervisor_pid); then
    echo "local cluster not running"
    return 1
  fi
  local readiness="not ready"
  if [[ -f "${KUBECONFIG_PATH}" ]] && [[ "$("${KUBECTL}" --kubeconfig "${KUBECONFIG_PATH}" get --raw /readyz 2>/dev/null)" == "ok" ]]; then
    readiness="ready"
  fi
  echo "local cluster running (pid ${pid}) at $(server): ${readiness}"
  echo "export KUBECONFIG=${KUBECONFIG_PATH}"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *)
    echo "usage: $0 up|down|status" >&2
    exit 2
    ;;
esac
