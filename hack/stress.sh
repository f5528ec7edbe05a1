#!/usr/bin/env bash
# Runs a command (by default `make test`) while CPU hogs keep every core of
# the machine busy, so that a verdict that depends on how fast the machine
# is shows up as a failure here instead of on a loaded CI runner.
#
# Environment:
#   STRESS_HOGS   how many busy processes to run beside the command
#                 (default: one per core, which doubles the load)
#   STRESS_NICE   their niceness (default 0: they compete with the tests as
#                 equals, as another job on a shared runner does)
set -euo pipefail

hogs=${STRESS_HOGS:-$(getconf _NPROCESSORS_ONLN)}
niceness=${STRESS_NICE:-0}
if [[ $# -eq 0 ]]; then
  set -- make test
fi

pids=()
stop_hogs() {
  if [[ ${#pids[@]} -gt 0 ]]; then
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
}
trap stop_hogs EXIT

for _ in $(seq "${hogs}"); do
  # A shell loop that never sleeps: pure CPU, no disk, no memory.
  nice -n "${niceness}" bash -c 'while :; do :; done' &
  pids+=($!)
done
echo ">> ${hogs} CPU hogs (nice ${niceness}) beside: $*"
start=${SECONDS}
status=0
"$@" || status=$?
echo ">> $* ended with status ${status} after $((SECONDS - start)) s beside ${hogs} CPU hogs"
exit "${status}"
