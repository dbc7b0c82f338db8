#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job (`make run`): verify every local backend against the catalogue
# and keep the result in the SQLite history (./isotier.db unless ISOTIER_DB).
#
# The host backend (the machine this job runs on) is judged only when a
# catalogue entry describes it: set ISOTIER_HOST_PROVIDER to that entry's id.
# No entry describes "this CI machine", so by default the host is recorded as
# an observation without a claim (verdict INCONCLUSIVE, "no claim").
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
db=${ISOTIER_DB:-$root/isotier.db}
args=(verify --all --db "$db")
# The docker backends need a daemon: start one when none answers, and stop it (by the pid
# recorded) when the job ends. Without docker.io the docker backends report themselves unavailable.
dockerd_state=$(mktemp -d /tmp/isotier-dockerd.XXXXXX)
trap '"$root/scripts/dockerd.sh" stop "$dockerd_state"; rm -rf "$dockerd_state"' EXIT
if command -v dockerd >/dev/null; then
  "$root/scripts/dockerd.sh" start "$dockerd_state" || echo "isotier: dockerd did not start; the docker backends will be unavailable" >&2
fi
if [ -n "${ISOTIER_HOST_PROVIDER:-}" ]; then
  args+=(--host-provider "$ISOTIER_HOST_PROVIDER")
fi
"$root/$build/isotier" "${args[@]}"
rc=$?
echo
echo "isotier: results stored in $db (exit status $rc)"
echo "isotier: list them with: $build/isotier history --db $db"
echo "isotier: one observation with its evidence: $build/isotier history show ID --db $db (IDs in the listing)"
[ "${ISOTIER_DB:-}" = "$db" ] ||
  echo "isotier: \`isotier run\` and create() read \$ISOTIER_DB, else /var/lib/isotier/isotier.db; ISOTIER_DB=$db makes them honour this one"
exit $rc
