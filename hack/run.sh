#!/usr/bin/env bash
# `make run`: the operator doing its job, in one command.
#
# Without KONNECT_TOKEN: starts a local control plane (hack/local-cluster.sh)
# and the Konnect simulator, installs the CRDs, runs the operator, applies a
# sample and shows its objects becoming Programmed.
#
# With KONNECT_TOKEN: runs the operator against the cluster of $KUBECONFIG and
# against Konnect itself, and applies the same sample there.
#
# Ctrl-C stops everything and exits with status 0 (1 when something could
# not be stopped): with Konnect, the sample is deleted first (while the
# operator still runs) so that nothing is left behind in Konnect.
#
# The mirror sample (konnect-gateway-control-plane-mirror.yaml) mirrors a
# control plane made outside the operator. With the simulator, this script
# makes one, mirror-source, and puts its ID in the sample (and prints a
# command that does the same for a later kubectl apply); with Konnect, give
# the ID of one of yours in RUN_MIRROR_ID. The adoption sample
# (kongservice-adopt.yaml) adopts a service and a route of mirror-source,
# which this script makes too.
#
# Environment:
#   KONNECT_TOKEN        Konnect personal (kpat_) or system (spat_) access token
#   KONNECT_SERVER_URL   Konnect API of your region, e.g. eu.api.konghq.com
#   KUBECONFIG           the cluster to use with KONNECT_TOKEN
#   RUN_SAMPLE           file of manifests/samples to apply (kongroute.yaml)
#   RUN_NAMESPACE        namespace for the sample (demo; konnect-operator-demo with Konnect)
#   RUN_MIRROR_ID        with Konnect, the control plane the mirror sample mirrors
#   SIMULATOR_PORT       port of the simulator on 127.0.0.1 (8443, as the samples expect)
#   METRICS_PORT, HEALTH_PORT   the operator's ports on 127.0.0.1 (8080, 8081)
#   BIN_DIR              where `make build` put the binaries (bin/)
#   KONNECT_OPERATOR_LOCAL  folder of the logs, kubeconfig and cluster data (.local/)
set -euo pipefail

# shellcheck source=hack/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
LOCAL=${KONNECT_OPERATOR_LOCAL:-${ROOT}/.local}
BIN_DIR=${BIN_DIR:-${ROOT}/bin}
KUBECTL="${KONNECT_OPERATOR_CACHE}/bin/kubectl"

SAMPLE=${RUN_SAMPLE:-kongroute.yaml}
SIMULATOR_PORT=${SIMULATOR_PORT:-8443}
METRICS_PORT=${METRICS_PORT:-8080}
HEALTH_PORT=${HEALTH_PORT:-8081}
# The placeholders the samples ship with.
SAMPLE_SERVER_URL="https://127.0.0.1:8443"
SAMPLE_TOKEN="kpat_EDIT_ME_sample_token_for_the_konnect_simulator"
SAMPLE_MIRROR_ID="00000000-0000-0000-0000-000000000000"
# The service and route of the mirrored control plane that the adoption
# sample (kongservice-adopt.yaml) adopts.
SAMPLE_ADOPT_SERVICE_ID="00000000-0000-0000-0000-000000000001"
SAMPLE_ADOPT_ROUTE_ID="00000000-0000-0000-0000-000000000002"
# The cloud provider account the cloud-gateway samples name; the simulator
# links it to its organisation.
SAMPLE_PROVIDER_ACCOUNT="11111111-1111-1111-1111-111111111111"
MIRROR_SAMPLE="konnect-gateway-control-plane-mirror.yaml"

mkdir -p "${LOCAL}"
OPERATOR_LOG="${LOCAL}/operator.log"
SIMULATOR_LOG="${LOCAL}/simulator.log"
operator_pid=""
simulator_pid=""
started_cluster=false
applied=false

say() { printf '\n>> %s\n' "$*"; }

if [[ -n "${KONNECT_TOKEN:-}" ]]; then
  MODE=konnect
  : "${KONNECT_SERVER_URL:?set KONNECT_SERVER_URL (e.g. eu.api.konghq.com) with KONNECT_TOKEN}"
  : "${KUBECONFIG:?set KUBECONFIG to the cluster to use with KONNECT_TOKEN}"
  NAMESPACE=${RUN_NAMESPACE:-konnect-operator-demo}
  SERVER_URL=${KONNECT_SERVER_URL}
  TOKEN=${KONNECT_TOKEN}
  KUBECONFIG_PATH=${KUBECONFIG}
  MIRROR_ID=${RUN_MIRROR_ID:-}
  if [[ "${SAMPLE}" == "${MIRROR_SAMPLE}" && -z "${MIRROR_ID}" ]]; then
    echo "${MIRROR_SAMPLE} mirrors a control plane of yours: set RUN_MIRROR_ID to its ID" >&2
    exit 2
  fi
  if [[ "${SAMPLE}" == kongservice-adopt.yaml ]]; then
    echo "kongservice-adopt.yaml adopts entities of yours: edit their IDs into it and apply it with kubectl" >&2
    exit 2
  fi
else
  MODE=local
  NAMESPACE=${RUN_NAMESPACE:-demo}
  SERVER_URL="https://127.0.0.1:${SIMULATOR_PORT}"
  TOKEN=${SAMPLE_TOKEN}
  KUBECONFIG_PATH="${LOCAL}/kubeconfig"
  if [[ -n "${KUBECONFIG:-}" ]]; then
    echo "KONNECT_TOKEN is not set: ignoring KUBECONFIG and using a local control plane and the Konnect simulator."
  fi
fi
k() { "${KUBECTL}" --kubeconfig "${KUBECONFIG_PATH}" "$@"; }

# sample_text prints the sample with the placeholders replaced. Bash string
# replacement keeps the token off every command line.
sample_text() {
  local text
  text=$(<"${ROOT}/manifests/samples/${SAMPLE}")
  text=${text//"${SAMPLE_SERVER_URL}"/"${SERVER_URL}"}
  text=${text//"${SAMPLE_TOKEN}"/"${TOKEN}"}
  if [[ -n "${MIRROR_ID:-}" ]]; then
    text=${text//"${SAMPLE_MIRROR_ID}"/"${MIRROR_ID}"}
  fi
  if [[ -n "${ADOPT_SERVICE_ID:-}" ]]; then
    text=${text//"${SAMPLE_ADOPT_SERVICE_ID}"/"${ADOPT_SERVICE_ID}"}
    text=${text//"${SAMPLE_ADOPT_ROUTE_ID}"/"${ADOPT_ROUTE_ID}"}
  fi
  printf '%s\n' "${text}"
}

# stop_process stops a process this script started and waits for it.
stop_process() {
  local what=$1 pid=$2
  [[ -n "${pid}" ]] && kill -0 "${pid}" 2>/dev/null || return 0
  say "Stopping the ${what}"
  kill -TERM "${pid}" 2>/dev/null || true
  wait "${pid}" 2>/dev/null || true
}

# cleanup stops everything this script started and returns non-zero when
# something could not be stopped or deleted. A second Ctrl-C does not cut it
# short: that would leave processes (or entities in Konnect) behind.
cleanup() {
  trap - EXIT
  trap '' INT TERM
  echo
  local failed=0
  if [[ "${MODE}" == konnect && "${applied}" == true && -n "${operator_pid}" ]]; then
    say "Deleting the sample while the operator runs, so that nothing is left in Konnect"
    sample_text | k delete --namespace "${NAMESPACE}" --ignore-not-found --timeout=60s -f - || failed=1
  fi
  stop_process operator "${operator_pid}"
  stop_process simulator "${simulator_pid}"
  if [[ "${started_cluster}" == true ]]; then
    say "Stopping the local control plane"
    "${ROOT}/hack/local-cluster.sh" down || failed=1
  fi
  echo "Stopped. Logs: ${OPERATOR_LOG}"
  return "${failed}"
}
# Ctrl-C is how a user ends `make run`: a normal end, status 0 once
# everything is stopped.
trap 'cleanup; exit $?' INT TERM
trap 'status=$?; cleanup || status=1; exit "${status}"' EXIT

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for port in ${METRICS_PORT} ${HEALTH_PORT} $([[ "${MODE}" == local ]] && echo "${SIMULATOR_PORT}"); do
  if ! port_free "${port}"; then
    echo "port ${port} on 127.0.0.1 is in use; set SIMULATOR_PORT, METRICS_PORT or HEALTH_PORT" >&2
    exit 1
  fi
done

# Konnect's public API hosts: where the operator sends tokens by default.
KONNECT_ALLOWED_HOSTS=us.api.konghq.com,eu.api.konghq.com,au.api.konghq.com,me.api.konghq.com,in.api.konghq.com,sg.api.konghq.com,global.api.konghq.com
operator_args=(
  --kubeconfig "${KUBECONFIG_PATH}"
  --leader-elect=false
  --metrics-bind-address "127.0.0.1:${METRICS_PORT}"
  --metrics-insecure-loopback
  --health-probe-bind-address "127.0.0.1:${HEALTH_PORT}"
)

if [[ "${MODE}" == konnect ]]; then
  # The server of KONNECT_SERVER_URL, should it be another (a proxy's).
  server_host=${SERVER_URL#https://}
  operator_args+=(--konnect-allowed-hosts "${KONNECT_ALLOWED_HOSTS},${server_host%/}")
fi

if [[ "${MODE}" == local ]]; then
  say "Starting a local control plane (etcd, kube-apiserver, kube-controller-manager)"
  # Set first: a Ctrl-C while it starts must stop it too.
  started_cluster=true
  KONNECT_OPERATOR_LOCAL=${LOCAL} "${ROOT}/hack/local-cluster.sh" up

  say "Starting the Konnect simulator on ${SERVER_URL}"
  printf '%s\n' "${TOKEN}" >"${LOCAL}/simulator-tokens"
  chmod 600 "${LOCAL}/simulator-tokens"
  rm -f "${LOCAL}/simulator-ca.pem"
  # setsid: Ctrl-C reaches this script only, which stops things in order.
  setsid "${BIN_DIR}/konnect-simulator" --listen "127.0.0.1:${SIMULATOR_PORT}" \
    --ca-out "${LOCAL}/simulator-ca.pem" --token-file "${LOCAL}/simulator-tokens" \
    --provider-account "aws=${SAMPLE_PROVIDER_ACCOUNT}" >"${SIMULATOR_LOG}" 2>&1 </dev/null &
  simulator_pid=$!
  for _ in $(seq 100); do
    [[ -s "${LOCAL}/simulator-ca.pem" ]] && ! port_free "${SIMULATOR_PORT}" && break
    kill -0 "${simulator_pid}" 2>/dev/null || { cat "${SIMULATOR_LOG}" >&2; exit 1; }
    sleep 0.1
  done
  operator_args+=(--konnect-ca-file "${LOCAL}/simulator-ca.pem")
  # Tokens go only to the hosts the operator is told of: Konnect's, and
  # here the simulator.
  operator_args+=(--konnect-allowed-hosts "${KONNECT_ALLOWED_HOSTS},127.0.0.1:${SIMULATOR_PORT}")

  # The control plane the mirror sample mirrors, made outside the operator.
  MIRROR_ID=$(printf 'Authorization: Bearer %s\n' "${TOKEN}" |
    curl -sSf --cacert "${LOCAL}/simulator-ca.pem" -H @- -H 'Content-Type: application/json' \
      -d '{"name":"mirror-source","cluster_type":"CLUSTER_TYPE_CONTROL_PLANE"}' "${SERVER_URL}/v2/control-planes" |
    sed -n 's/.*"id":"\([0-9a-f-]*\)".*/\1/p')
  if [[ -z "${MIRROR_ID}" ]]; then
    echo "could not create the control plane mirror-source in the simulator; ${SIMULATOR_LOG}:" >&2
    tail -n 20 "${SIMULATOR_LOG}" >&2
    exit 1
  fi
  # The service and route in it that the adoption sample adopts.
  # simulator_post creates an entity and prints its ID: the one ID in the
  # answer other than those given (a route's answer names its service's).
  simulator_post() {
    local collection=$1 body=$2 others=${3:-none}
    printf 'Authorization: Bearer %s\n' "${TOKEN}" |
      curl -sSf --cacert "${LOCAL}/simulator-ca.pem" -H @- -H 'Content-Type: application/json' -d "${body}" \
        "${SERVER_URL}/v2/control-planes/${MIRROR_ID}/core-entities/${collection}" |
      grep -o '"id":"[0-9a-f-]*"' | cut -d'"' -f4 | grep -vx -- "${others}" | head -n 1 || true
  }
  ADOPT_SERVICE_ID=$(simulator_post services \
    '{"name":"legacy-orders","host":"legacy-orders.example.com","port":8080,"protocol":"http"}')
  ADOPT_ROUTE_ID=$(simulator_post routes \
    "{\"name\":\"legacy-orders\",\"paths\":[\"/legacy-orders\"],\"service\":{\"id\":\"${ADOPT_SERVICE_ID}\"}}" \
    "${ADOPT_SERVICE_ID}")
  if [[ -z "${ADOPT_SERVICE_ID}" || -z "${ADOPT_ROUTE_ID}" ]]; then
    echo "could not create the service and route of mirror-source in the simulator; ${SIMULATOR_LOG}:" >&2
    tail -n 20 "${SIMULATOR_LOG}" >&2
    exit 1
  fi
fi

say "Installing the CRDs (kubectl apply --server-side -k manifests/crd)"
k apply --server-side -k "${ROOT}/manifests/crd" >/dev/null
# Not `kubectl wait --for=condition=Established crd --all`: that fails at once
# on a CRD whose status has no conditions yet, which a busy API server shows
# for a moment after creating it.
crds_pending() {
  k get customresourcedefinitions -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.conditions[?(@.type=="Established")].status}{"\n"}{end}' |
    awk '$2 != "True" { print $1 }'
}
deadline=$((SECONDS + 180))
until pending=$(crds_pending) && [[ -z "${pending}" ]]; do
  if ((SECONDS >= deadline)); then
    echo "the CRDs are not all Established after 3 minutes: ${pending:-kubectl get failed}" >&2
    exit 1
  fi
  sleep 0.2
done

say "Running the operator (log: ${OPERATOR_LOG})"
setsid "${BIN_DIR}/konnect-operator" "${operator_args[@]}" >"${OPERATOR_LOG}" 2>&1 </dev/null &
operator_pid=$!
for _ in $(seq 300); do
  [[ "$(curl -s "http://127.0.0.1:${HEALTH_PORT}/readyz" 2>/dev/null)" == ok ]] && break
  kill -0 "${operator_pid}" 2>/dev/null || { tail -n 20 "${OPERATOR_LOG}" >&2; exit 1; }
  sleep 0.1
done

say "Applying manifests/samples/${SAMPLE} to namespace ${NAMESPACE}"
k create namespace "${NAMESPACE}" --dry-run=client -o yaml | k apply --server-side -f - >/dev/null
sample_text | k apply --server-side --namespace "${NAMESPACE}" -f -
applied=true

KINDS=konnectapiauthconfigurations,konnectgatewaycontrolplanes,konnectcloudgatewaynetworks,konnectcloudgatewaytransitgateways,konnectcloudgatewaydataplanegroupconfigurations,konnectconfigstores,portals,portalpages,portalteams,portalcustomizations,portalcustomdomains,portalemailconfigs,portalidentityproviderrequests,portalipallowlists,konnecteventgateways,eventgatewaybackendclusters,eventgatewaydataplanecertificates,eventgatewaylisteners,eventgatewaylistenerpolicies,eventgatewayschemaregistries,eventgatewayvirtualclusters,eventgatewayvirtualclusterpolicies,eventgatewayvirtualclusterconsumepolicies,eventgatewayvirtualclusterproducepolicies,kongservices,kongroutes,kongconsumers,kongconsumergroups,kongpluginbindings,kongupstreams,kongtargets,kongcertificates,kongcacertificates,kongsnis,kongkeys,kongkeysets,kongdataplaneclientcertificates
say "Waiting for the objects to become Programmed"
last=""
programmed=false
for _ in $(seq 120); do
  table=$(k get "${KINDS}" --namespace "${NAMESPACE}" \
    -o custom-columns='KIND:.kind,NAME:.metadata.name,PROGRAMMED:.status.conditions[?(@.type=="Programmed")].status,AUTH_VALID:.status.conditions[?(@.type=="APIAuthValid")].status,KONNECT_ID:.status.konnect.id,CP_ID:.status.id' 2>/dev/null || true)
  if [[ "${table}" != "${last}" ]]; then
    printf '%s\n\n' "${table}"
    last=${table}
  fi
  if [[ -n "${table}" ]] && ! grep -vE '^KIND' <<<"${table}" | grep -qvE '\sTrue\s'; then
    echo "Every object is Programmed (the auth configuration is Valid)."
    programmed=true
    break
  fi
  sleep 0.5
done
if [[ "${programmed}" != true ]]; then
  echo "Not every object is Programmed after a minute. Their conditions say why:"
  k get "${KINDS}" --namespace "${NAMESPACE}" \
    -o custom-columns='KIND:.kind,NAME:.metadata.name,WHY:.status.conditions[?(@.status=="False")].message' 2>/dev/null || true
fi

if [[ "${MODE}" == local ]]; then
  # What makes a sample fit this simulator, for the commands below: the
  # mirrored control plane's ID, and the server URL unless it is the one
  # the samples ship with.
  edit="-e s/${SAMPLE_MIRROR_ID}/${MIRROR_ID}/"
  adopt_edit="${edit} -e s/${SAMPLE_ADOPT_SERVICE_ID}/${ADOPT_SERVICE_ID}/ -e s/${SAMPLE_ADOPT_ROUTE_ID}/${ADOPT_ROUTE_ID}/"
  apply_other="kubectl apply -n ${NAMESPACE} -f manifests/samples/kongconsumer.yaml   # any sample works as it is"
  if [[ "${SERVER_URL}" != "${SAMPLE_SERVER_URL}" ]]; then
    edit+=" -e s#${SAMPLE_SERVER_URL}#${SERVER_URL}#"
    adopt_edit+=" -e s#${SAMPLE_SERVER_URL}#${SERVER_URL}#"
    apply_other="sed -e s#${SAMPLE_SERVER_URL}#${SERVER_URL}# manifests/samples/kongconsumer.yaml | kubectl apply -n ${NAMESPACE} -f -"
  fi
  cat <<EOF

The operator runs against a local control plane and the Konnect simulator.
Look at it from another terminal:

  export KUBECONFIG=${KUBECONFIG_PATH}
  alias kubectl=${KUBECTL}
  kubectl get kong,konnect -n ${NAMESPACE}
  kubectl describe kongroutes -n ${NAMESPACE}
  kubectl get events -n ${NAMESPACE}
  ${apply_other}
  sed ${edit} manifests/samples/${MIRROR_SAMPLE} | kubectl apply -n ${NAMESPACE} -f -
  sed ${adopt_edit} manifests/samples/kongservice-adopt.yaml | kubectl apply -n ${NAMESPACE} -f -
  curl -s http://127.0.0.1:${METRICS_PORT}/metrics | grep -E '^konnect_operator_(entity_operations|konnect_requests)_total'
  curl -s --cacert ${LOCAL}/simulator-ca.pem ${SERVER_URL}/_sim/orgs      # what the simulator holds

The mirror sample mirrors mirror-source (ID ${MIRROR_ID}), a control plane
made in the simulator outside the operator; the sed above puts its ID in.
The adoption sample adopts its service legacy-orders (${ADOPT_SERVICE_ID})
and route (${ADOPT_ROUTE_ID}) without writing them.

Operator log: ${OPERATOR_LOG}. Press Ctrl-C to stop everything.
EOF
else
  cat <<EOF

The operator runs against your cluster and Konnect (${SERVER_URL}).
Look at it from another terminal:

  kubectl get kong,konnect -n ${NAMESPACE}
  kubectl describe kongroutes -n ${NAMESPACE}
  curl -s http://127.0.0.1:${METRICS_PORT}/metrics | grep -E '^konnect_operator_(entity_operations|konnect_requests)_total'

Operator log: ${OPERATOR_LOG}. Press Ctrl-C to delete the sample and stop.
EOF
fi

# Run until Ctrl-C, or until the operator exits, which is a failure.
wait "${operator_pid}" || true
echo "The operator exited; last lines of ${OPERATOR_LOG}:" >&2
tail -n 20 "${OPERATOR_LOG}" >&2
operator_pid=""
exit 1
