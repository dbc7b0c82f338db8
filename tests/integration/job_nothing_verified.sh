#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# job_nothing_verified.sh - a job that verified no sandbox backend is not green
# (runbook/jobs/isotier-reverify.sh, verify_exit.c): ISOTIER_BACKENDS=host (the
# host backend without a provider's claim judges nothing) fails the job with 69,
# its first line saying so, and last-run.json records it; the history it wrote
# holds nothing that grants; the report over that history agrees that something needs
# action and has a row for every registered backend, one sharing a claim too.
. "$ISOTIER_ROOT/tests/lib.sh"

JOB=$ISOTIER_ROOT/runbook/jobs/isotier-reverify.sh
state=$TMP/state
mkdir -p "$state"
# The weekly sources check is not this test's: stamped as done today.
touch "$state/.sources-attempted" "$state/.sources-checked"
set +e
env -u ISOTIER_DB -u ISOTIER_HOST_PROVIDER ISOTIER_STATE_DIR="$state" ISOTIER_BACKENDS=host \
  ISOTIER_REPORT_FORMATS=json "$JOB" >"$TMP/job.out" 2>"$TMP/job.err"
rc=$?
set -e
assert_eq "$rc" 69 "a job that verified only the host backend ($(cat "$TMP/job.err"))"
assert_contains "$(head -1 "$TMP/job.err")" "no sandbox backend was verified"
assert_eq "$(json_get "$state/last-run.json" exit)" 69 "last-run.json"
# It did verify what it was asked: the host's row is there, and grants nothing.
assert_eq "$(sql "$state/isotier.db" "SELECT group_concat(backend || ':' || verdict) FROM observations")" \
  "host:INCONCLUSIVE" "what the job stored"
# The report over the same history agrees that something needs action, and lists
# every registered backend, verified or not: bwrap-nonet too, which shares
# bubblewrap's claim (report_rows.c seeded one row per catalogue entry before).
"$ISOTIER_BIN" report --db "$state/isotier.db" --format json --out "$TMP/r.json"
python3 - "$TMP/r.json" <<'PY' || fail "report: $(head -c 800 "$TMP/r.json")"
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
rows = {(r["provider_id"], r["backend"]): r for r in d["matrix"]}
nonet = rows.get(("bubblewrap", "bwrap-nonet"))
assert nonet and nonet["observations"] == 0 and nonet["overdue"], nonet
assert rows[("bubblewrap", "bwrap")]["overdue"], rows[("bubblewrap", "bwrap")]
assert d["summary"]["failing"] > 0, d["summary"]
PY
names=$("$ISOTIER_BIN" backends --names | cut -f1)
for b in $names; do
  case $b in host | daytona | e2b | fly | vercel) continue ;; esac  # no claim / not configured here
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(r["backend"]==sys.argv[2] for r in d["matrix"]), sys.argv[2]' \
    "$TMP/r.json" "$b" || fail "registered backend $b has no row in the report"
done
echo "ok: a job that verified no sandbox fails (69); the report lists every registered backend"
