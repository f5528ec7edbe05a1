#!/usr/bin/env bash
# The vulnerability check of the module graph (make vulncheck): govulncheck
# over every package of the operator's module against the Go vulnerability
# database, and hack/tools/vulnreport's verdict on what it found (it fails
# when the code calls a vulnerable function of a module; see its doc).
#
# The database:
#   - GOVULNDB, when set: what govulncheck's -db takes, https://vuln.go.dev
#     or file:///path of a copy (the layout `govulncheck -db` reads);
#   - otherwise the database built from the module golang.org/x/vulndb at
#     VULNDB_VERSION (hack/versions.sh), which the Go module proxy serves:
#     its data/osv folder holds the reports vuln.go.dev publishes. Built
#     once into $CACHE_DIR/vulndb-<version>, it needs nothing but the module
#     proxy, and one commit always gets the same verdict; move
#     VULNDB_VERSION forward to check against newer reports.
# When neither can be had, the check says so and is skipped (exit 0).
#
#   hack/vulncheck.sh [vulnreport flags: -v, -fail-on-stdlib]
set -euo pipefail

# shellcheck source=hack/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
# shellcheck source=hack/versions.sh
source "${ROOT}/hack/versions.sh"
CACHE_DIR=${KONNECT_OPERATOR_CACHE:-${ROOT}/.cache}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
cd "${ROOT}"

# build_db builds the database of golang.org/x/vulndb@VULNDB_VERSION into
# $1 unless it is there; it fails when the module proxy cannot serve it.
build_db() {
  local dir=$1 info module_dir indexdb staging modified
  [[ -f "${dir}/index/db.json" ]] && return 0
  info=$(go mod download -json "golang.org/x/vulndb@${VULNDB_VERSION}") || return 1
  module_dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"${info}")
  modified=$(sed -n 's/.*"Time":"\([^"]*\)".*/\1/p' "$(sed -n 's/^[[:space:]]*"Info": "\(.*\)",$/\1/p' <<<"${info}")" 2>/dev/null || true)
  if [[ -z "${module_dir}" || ! -d "${module_dir}/data/osv" ]]; then
    echo "vulncheck: golang.org/x/vulndb@${VULNDB_VERSION} has no data/osv folder" >&2
    return 1
  fi
  indexdb=$(hack/build-tools.sh vulndb-indexdb)
  mkdir -p "${CACHE_DIR}/build"
  staging=$(mktemp -d "${CACHE_DIR}/build/vulndb.XXXXXX")
  echo ">> building the vulnerability database ${VULNDB_VERSION} ($(find "${module_dir}/data/osv" -name '*.json' | wc -l) reports, once)" >&2
  "${indexdb}" -vulns "${module_dir}/data/osv" -out "${staging}/db" >&2
  # indexdb dates the database at the zero time; its date is its commit's,
  # which govulncheck then prints.
  if [[ -n "${modified}" ]]; then
    printf '{"modified":"%s"}' "${modified}" >"${staging}/db/index/db.json"
    gzip -n -c "${staging}/db/index/db.json" >"${staging}/db/index/db.json.gz"
  fi
  # Another caller may have finished first; either copy is the same.
  mv -T "${staging}/db" "${dir}" 2>/dev/null || true
  rm -rf "${staging}"
  [[ -f "${dir}/index/db.json" ]]
}

db=${GOVULNDB:-}
if [[ -z "${db}" ]]; then
  dir="${CACHE_DIR}/vulndb-${VULNDB_VERSION}"
  if ! build_db "${dir}"; then
    cat <<EOF
vulncheck: SKIPPED: no vulnerability database could be had: the Go module
proxy (GOPROXY=${GOPROXY}) did not serve golang.org/x/vulndb@${VULNDB_VERSION}.
Give one with GOVULNDB=https://vuln.go.dev, or GOVULNDB=file:///path of a
copy (the layout \`govulncheck -db\` reads), and run make vulncheck again.
EOF
    exit 0
  fi
  db="file://${dir}"
fi

govulncheck=$(hack/build-tools.sh govulncheck)
report=$(mktemp)
trap 'rm -f "${report}"' EXIT
echo ">> govulncheck ${GOVULNCHECK_VERSION} ./... against ${db}" >&2
"${govulncheck}" -db "${db}" -format json ./... >"${report}"
go run -C hack/tools ./vulnreport "$@" <"${report}"
