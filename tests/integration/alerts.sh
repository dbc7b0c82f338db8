#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# Alerts that cannot be missed, each on a real (backdated) history:
# - UNAVAILABLE runs do not reset a backend's overdue clock;
# - the report and the runbook job honour the backends the job verifies;
# - a claim that could not be proven is an alert (report, verify exit 2, job 2);
# - an invalid catalogue entry for a backend makes verify exit 65 naming it;
# - a sources check where every source is UNREACHABLE exits 75 and does not
#   count as the period's check.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
command -v bwrap >/dev/null || skip "bubblewrap is not installed"
R=$ISOTIER_ROOT
# Today and days before it: a fixed date would fall before the newest catalogue source one day.
T=$(date -u +%F) T1=$(date -u -d '-1 day' +%F) T30=$(date -u -d '-30 days' +%F)
db=$TMP/h.db
q() { sql "$db" "$1"; }
report_json() { "$ISOTIER_BIN" report --db "$db" --format json --today "$T" "$@"; }
attention() { python3 -c '
import json, sys
d = json.load(sys.stdin)
for a in d["attention"]:
    print("%s|%s|%s" % (a["kind"], a["subject"], a["detail"]))'; }

# A real verification of bwrap, moved 30 days back; then UNAVAILABLE runs today.
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >/dev/null 2>&1 || fail "verify bwrap"
q "UPDATE observations SET observed_at = '${T30}T10:00:00Z'"
# The whole record moves back, or --today "$T" would be earlier than it.
q "UPDATE runs SET started_at = '${T30}T09:59:00Z', finished_at = '${T30}T10:01:00Z'"
q "UPDATE audit_events SET at = '${T30}T10:00:00Z'"
run=$(q "SELECT max(id) FROM runs")
q "INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier, claimed_mechanism,
     observed_tier, verdict, reason) VALUES
   ($run, '${T1}T10:00:00Z', 'bwrap', 'bubblewrap', 'CONTAINER', 'bubblewrap', 'UNKNOWN', 'UNAVAILABLE', 'bwrap missing'),
   ($run, '${T}T10:00:00Z', 'bwrap', 'bubblewrap', 'CONTAINER', 'bubblewrap', 'UNKNOWN', 'UNAVAILABLE', 'bwrap missing')"
out=$(report_json --backend bwrap | attention)
assert_contains "$out" "overdue|bubblewrap (bwrap)|last verified ${T30}T10:00:00Z, more than 7 days before $T (later runs were UNAVAILABLE or INCONCLUSIVE)"
# A verification today resets it.
q "INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier, claimed_mechanism,
     observed_tier, verdict, reason, kernel_relation, ceiling_tier) VALUES
   ($run, '${T}T11:00:00Z', 'bwrap', 'bubblewrap', 'CONTAINER', 'bubblewrap', 'CONTAINER', 'CONFIRMED', 'ok', 'shared', 'CONTAINER')"
out=$(report_json --backend bwrap | attention)
! grep -q "^overdue|bubblewrap (bwrap)" <<<"$out" || fail "a CONFIRMED run today still overdue: $out"

# The job's backend list: runc (a catalogue backend never observed) is overdue
# only when the job verifies it; one asked for that nothing names is too.
out=$(report_json --backend bwrap | attention)
! grep -q "^overdue|runc" <<<"$out" || fail "runc overdue although not verified here: $out"
out=$(report_json --backend bwrap --backend runc | attention)
assert_contains "$out" "overdue|runc (runc)|no observation stored"
# A name no backend has is refused (64, with the name), not reported as overdue forever.
set +e
report_json --backend bwrap --backend nosuch-backend >/dev/null 2>"$TMP/nosuch.err"; rc=$?
set -e
assert_eq "$rc" 64 "report --backend nosuch-backend ($(cat "$TMP/nosuch.err"))"
assert_contains "$(cat "$TMP/nosuch.err")" "unknown backend 'nosuch-backend'"

# A claim that could not be proven (the probe ran; INCONCLUSIVE against MICROVM).
q "INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier, claimed_mechanism,
     observed_tier, verdict, reason, kernel_relation, ceiling_tier) VALUES
   ($run, '${T}T12:00:00Z', 'runsc', 'runsc', 'MICROVM', 'firecracker', 'GVISOR', 'INCONCLUSIVE',
    'claimed MICROVM (firecracker) cannot be proven', 'uncompared', 'GVISOR'),
   ($run, '${T}T13:00:00Z', 'runsc', 'runsc', 'MICROVM', 'firecracker', 'UNKNOWN', 'UNAVAILABLE', 'runsc missing', NULL, NULL)"
json=$(report_json --backend runsc)
out=$(attention <<<"$json")
assert_contains "$out" "unproven|runsc (runsc)|observation"
assert_contains "$out" "claimed MICROVM could not be proven: claimed MICROVM (firecracker) cannot be proven"
printf '%s' "$json" >"$TMP/r.json"
python3 - "$TMP/r.json" <<'PY' || fail "unproven is failing and in the matrix"
import json, sys
d = json.load(open(sys.argv[1]))
row = [r for r in d["matrix"] if r["backend"] == "runsc"][0]
assert row["unproven"] is True and "UNPROVEN" in row["state"], row
assert any(a["kind"] == "unproven" and a["failing"] for a in d["attention"]), d["attention"]
PY
html=$("$ISOTIER_BIN" report --db "$db" --format html --today "$T")
assert_contains "$html" "unproven"

# An invalid catalogue entry for a backend: verify exits 65 naming the entry,
# and still records what it observed.
cp -r "$R/catalogue/providers" "$TMP/badcat"
python3 - "$TMP/badcat/bubblewrap.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["sources"][0]["retrieved"] = "yesterday"; json.dump(d, open(sys.argv[1], "w"))
PY
set +e
"$ISOTIER_BIN" verify --backend bwrap --catalogue "$TMP/badcat" --db "$TMP/bad.db" >"$TMP/bad.out" 2>"$TMP/bad.err"; rc=$?
set -e
assert_eq "$rc" 65 "invalid catalogue entry: verify exit"
assert_contains "$(cat "$TMP/bad.err")" "catalogue entry $TMP/badcat/bubblewrap.json does not validate: sources[0].retrieved"
assert_eq "$(sqlite3 "$TMP/bad.db" "SELECT verdict || '|' || observed_tier FROM observations")" "INCONCLUSIVE|CONTAINER" "recorded"

# Errors are told apart by codes, not words: a database path that merely
# contains "locked" is an unusable path (74) at once, not a lock (75) waited out.
set +e
"$ISOTIER_BIN" verify --backend host --db "$TMP/locked-busy/h.db" >/dev/null 2>"$TMP/locked.err"; rc=$?
set -e
assert_eq "$rc" 74 "a missing directory named 'locked-busy' ($(cat "$TMP/locked.err"))"
! grep -q "locked by another process" "$TMP/locked.err" || fail "misread as a lock: $(cat "$TMP/locked.err")"

# The runbook job: verify's 2 (an unproven claim) makes the job exit 2, with
# sources skipped this period; a sources check where nothing answered is 75
# and is not this period's check.
state=$TMP/state; mkdir -p "$state"
python3 "$R/tests/tools/catalogue_variant.py" "$R/catalogue/providers" "$TMP/lying" runsc claim=MICROVM/firecracker
touch "$state/.sources-checked"
set +e
env ISOTIER_BIN="$ISOTIER_BIN" ISOTIER_STATE_DIR="$state" ISOTIER_CATALOGUE="$TMP/lying" \
  ISOTIER_BACKENDS="runsc" ISOTIER_REPORT_FORMATS="json" "$R/runbook/jobs/isotier-reverify.sh" 2>"$TMP/job.err"
rc=$?
set -e
assert_eq "$rc" 2 "job with an unproven claim ($(cat "$TMP/job.err"); $(tail -5 "$state/job.log"))"
assert_contains "$(cat "$TMP/job.err")" "an unproven claim"
assert_contains "$(cat "$TMP/job.err")" "isotier-reverify: ALERT unproven runsc (runsc): "
assert_contains "$(cat "$TMP/job.err")" "look closer: isotier history --db $state/isotier.db --backend runsc"
assert_eq "$(json_get "$state/last-run.json" verify)" 2 "verify's own status in last-run.json"

mkdir -p "$TMP/deadcat"
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
cat >"$TMP/deadcat/bubblewrap.json" <<EOF
{"id": "bubblewrap", "name": "bubblewrap", "kind": "local", "tier": "CONTAINER", "mechanism": "bubblewrap",
 "since": "2026-12-02", "backend": "bwrap",
 "sources": [{"url": "http://127.0.0.1:$closed/bwrap", "quote": "Bubblewrap uses user namespaces.",
              "publisher": "provider", "retrieved": "$(date -u +%F)", "title": "fixture"}],
 "history": [], "notes": "fixture"}
EOF
state2=$TMP/state2
set +e
env ISOTIER_BIN="$ISOTIER_BIN" ISOTIER_STATE_DIR="$state2" ISOTIER_CATALOGUE="$TMP/deadcat" \
  ISOTIER_BACKENDS="bwrap" ISOTIER_REPORT_FORMATS="json" "$R/runbook/jobs/isotier-reverify.sh" 2>"$TMP/job2.err"
rc=$?
set -e
# An offline host: the check did not happen, which is a warning (runbook/jobs.md), not a failed
# run, until the sources have gone unchecked past the policy's age.
assert_eq "$rc" 0 "job whose sources were all UNREACHABLE ($(cat "$TMP/job2.err"))"
assert_contains "$(cat "$TMP/job2.err")" "WARN sources not checked: no source reachable"
[ ! -e "$state2/.sources-checked" ] || fail "an all-UNREACHABLE check counted as this period's check"
grep -q "the one source was UNREACHABLE" "$state2/job.log" || fail "job log: $(tail -20 "$state2/job.log")"
echo "ok: overdue ignores UNAVAILABLE, backend lists honoured, unproven claims alert, invalid entries exit 65, unreachable sources a warning"
