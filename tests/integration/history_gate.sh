#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# history_gate.sh - the history gate fails closed (resolve.c), through the real
# CLI on a real SQLite file with real bwrap sandboxes: after an honest
# CONFIRMED, a newer INCONCLUSIVE voids --require-verified; a row dated after
# now refuses; a proof stops counting once the claim it judged changed; rows of
# another machine id do not count; the host's default history ($ISOTIER_DB)
# is read when no --db is given; the honest case runs.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
machine_id=$(cat /etc/machine-id 2>/dev/null || cat /var/lib/dbus/machine-id 2>/dev/null || true)
[[ $machine_id =~ ^[0-9a-f]{32}$ ]] || skip "no machine id on this host: no observation can be this host's"
faults=$ISOTIER_ROOT/$BUILD/tests
[ -x "$faults/fault-probe-garbage" ] || fail "fault probes not built ($faults)"
other=fedcba9876543210fedcba9876543210
[ "$other" != "$machine_id" ] || other=0123456789abcdef0123456789abcdef

# gate DB [ARGS...]: `isotier run` requiring a CONTAINER verified within 7 days
# on bwrap; prints the exit status, the refusal in $TMP/gate.err.
gate() {
  local db=$1
  shift
  set +e
  "$ISOTIER_BIN" run --db "$db" --require-isolation CONTAINER --require-verified 7 --backend bwrap \
    "$@" -- true >"$TMP/gate.out" 2>"$TMP/gate.err"
  echo $?
  set -e
}
# honest DB: a history holding one real CONFIRMED observation of bwrap.
honest() {
  "$ISOTIER_BIN" verify --backend bwrap --db "$1" >"$TMP/verify.out" 2>&1 ||
    fail "honest verify of bwrap: $(cat "$TMP/verify.out")"
  grep -Eq '^bwrap .* CONFIRMED' "$TMP/verify.out" || fail "bwrap not CONFIRMED: $(cat "$TMP/verify.out")"
}
q() { sql "$1" "$2"; }

# 1. The honest case runs, and the row names this host and the claim it judged.
db=$TMP/honest.db
honest "$db"
assert_eq "$(gate "$db")" 0 "honest CONFIRMED then run ($(cat "$TMP/gate.err"))"
assert_eq "$(q "$db" "SELECT host_id FROM observations")" "$machine_id" "host id recorded"
q "$db" "SELECT claim_digest FROM observations" | head -1 | grep -qx 'isotier-claim/1' || fail "no claim digest recorded"
"$ISOTIER_BIN" history show 1 --db "$db" >"$TMP/show.out" || fail "history show 1"
grep -Eq "^  machine id +$machine_id; claim judged recorded$" "$TMP/show.out" || fail "history show: $(cat "$TMP/show.out")"

# 2. A degraded backend: two INCONCLUSIVE runs through the real verify (a
#    probe that prints garbage) after the CONFIRMED one: the latest decides.
for i in 1 2; do
  set +e
  ISOTIER_PROBE=$faults/fault-probe-garbage "$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/deg.out" 2>&1
  set -e
  grep -Eq '^bwrap .* INCONCLUSIVE' "$TMP/deg.out" || fail "degraded run $i not INCONCLUSIVE: $(cat "$TMP/deg.out")"
done
assert_eq "$(gate "$db")" 78 "newer INCONCLUSIVE voids --require-verified"
assert_contains "$(cat "$TMP/gate.err")" "ConfigurationError: backend bwrap resolves to UNKNOWN"
assert_contains "$(cat "$TMP/gate.err")" "the latest observation of bwrap (#3,"
assert_contains "$(cat "$TMP/gate.err")" "is INCONCLUSIVE, not a proof of the claim"
# Without --require-verified an INCONCLUSIVE run judges nothing: the claim stands.
"$ISOTIER_BIN" run --db "$db" --require-isolation CONTAINER --backend bwrap -- true ||
  fail "plain run after INCONCLUSIVE runs"
# A new honest proof counts again.
honest "$db"
assert_eq "$(gate "$db")" 0 "re-verified ($(cat "$TMP/gate.err"))"

# 3. A row dated a year ahead (written by a clock gone wrong, here by sqlite3
#    on the file) is refused, and the gate fails closed naming it, even with
#    an honest proof written after it.
db=$TMP/future.db
honest "$db"
next_year=$(date -u -d '+1 year' +%Y-%m-%dT%H:%M:%SZ)
q "$db" "INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier,
  claimed_mechanism, observed_tier, verdict, reason, ceiling_tier, kernel_relation, host_id, claim_digest)
  SELECT run_id, '$next_year', backend, provider_id, claimed_tier, claimed_mechanism, observed_tier,
  verdict, reason, ceiling_tier, kernel_relation, host_id, claim_digest FROM observations WHERE id = 1"
assert_eq "$(gate "$db")" 78 "future-dated row"
assert_contains "$(cat "$TMP/gate.err")" "observation #2 of bwrap is dated '$next_year', after now"
honest "$db"
assert_eq "$(gate "$db")" 78 "future-dated row, a proof after it"
assert_contains "$(cat "$TMP/gate.err")" "observation #2 of bwrap is dated"
# The year-ahead row does not hide a later contradiction either (rows by id):
# one recorded now, after it (as the judge would write it).
q "$db" "INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier,
  claimed_mechanism, observed_tier, verdict, reason, ceiling_tier, host_id, claim_digest)
  SELECT run_id, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), backend, provider_id, claimed_tier,
  claimed_mechanism, 'UNKNOWN', 'CONTRADICTED', 'no boundary seen', 'NONE', host_id, claim_digest
  FROM observations WHERE id = 1"
set +e
"$ISOTIER_BIN" run --db "$db" --require-isolation CONTAINER --backend bwrap -- true 2>"$TMP/c.err"; rc=$?
set -e
assert_eq "$rc" 78 "contradiction after a future-dated row"
assert_contains "$(cat "$TMP/c.err")" "CONTRADICTED the claim"
# `isotier history` lists by insertion: the contradiction first, not the year-ahead row.
"$ISOTIER_BIN" history --db "$db" --json >"$TMP/h.json"
assert_eq "$(json_get "$TMP/h.json" observations.0.verdict)" CONTRADICTED "history lists newest written first"

# 4. The claim changes after the proof (another quote): the proof judged
#    another claim and no longer counts; the unchanged catalogue still runs.
db=$TMP/claim.db
honest "$db"
python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$ISOTIER_ROOT/catalogue/providers" "$TMP/edited" bubblewrap quote-edit
assert_eq "$(gate "$db" --catalogue "$TMP/edited")" 78 "claim changed after the proof"
assert_contains "$(cat "$TMP/gate.err")" "judged another claim than the catalogue's claim now"
assert_eq "$(gate "$db")" 0 "unchanged claim ($(cat "$TMP/gate.err"))"
"$ISOTIER_BIN" verify --backend bwrap --db "$db" --catalogue "$TMP/edited" >/dev/null 2>&1 || fail "verify of the edited claim"
assert_eq "$(gate "$db" --catalogue "$TMP/edited")" 0 "re-verified against the edited claim"

# 5. Rows from another machine: a proof made elsewhere does not count here;
#    another machine's contradiction does not reach this one.
db=$TMP/other.db
honest "$db"
q "$db" "UPDATE observations SET host_id = '$other'"
assert_eq "$(gate "$db")" 78 "a proof from another machine id"
assert_contains "$(cat "$TMP/gate.err")" "bwrap has no observation made on this host"
"$ISOTIER_BIN" backends --db "$db" --any-host --json >"$TMP/b.json"
python3 - "$TMP/b.json" <<'PY' || fail "backends --any-host: $(head -c 600 "$TMP/b.json")"
import json, sys
row = [b for b in json.load(open(sys.argv[1])) if b["backend"] == "bwrap"][0]
assert row["resolved_tier"] == "CONTAINER", row
PY
honest "$db"
q "$db" "INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier,
  claimed_mechanism, observed_tier, verdict, reason, ceiling_tier, host_id, claim_digest)
  SELECT run_id, observed_at, backend, provider_id, claimed_tier, claimed_mechanism, 'UNKNOWN',
  'CONTRADICTED', 'elsewhere', 'CONTAINER', '$other', claim_digest FROM observations WHERE id = 2"
assert_eq "$(gate "$db")" 0 "another machine's contradiction ($(cat "$TMP/gate.err"))"
# A row naming no host (written before host ids) still denies.
q "$db" "UPDATE observations SET host_id = NULL WHERE id = 3"
assert_eq "$(gate "$db")" 78 "a contradiction that names no host"

# 6. No --db: the host's default history, $ISOTIER_DB, as the runbook job writes it.
db=$TMP/default.db
honest "$db"
set +e
ISOTIER_DB=$db "$ISOTIER_BIN" run --require-isolation CONTAINER --require-verified 7 --backend bwrap -- true 2>"$TMP/d.err"; rc=$?
set -e
assert_eq "$rc" 0 "default history with a proof ($(cat "$TMP/d.err"))"
ISOTIER_DB=$db ISOTIER_PROBE=$faults/fault-probe-garbage "$ISOTIER_BIN" verify --backend bwrap >/dev/null 2>&1 || true
assert_eq "$(q "$db" "SELECT verdict FROM observations ORDER BY id DESC LIMIT 1")" INCONCLUSIVE "verify wrote the default history"
set +e
ISOTIER_DB=$db "$ISOTIER_BIN" run --require-isolation CONTAINER --require-verified 7 --backend bwrap -- true 2>"$TMP/d.err"; rc=$?
set -e
assert_eq "$rc" 78 "default history's INCONCLUSIVE honoured without --db"
# $ISOTIER_DB naming a history that does not exist is a wrong path, never an
# empty history: a plain run is refused too (66), and nothing is created.
# (Only the built-in default may be absent: test_history_gate.)
for verified in "--require-verified 7" ""; do
  set +e
  # shellcheck disable=SC2086
  ISOTIER_DB=$TMP/none.db "$ISOTIER_BIN" run --require-isolation CONTAINER $verified --backend bwrap -- true 2>"$TMP/n.err"; rc=$?
  set -e
  assert_eq "$rc" 66 "ISOTIER_DB absent ($verified)"
  assert_contains "$(cat "$TMP/n.err")" "history $TMP/none.db, named by \$ISOTIER_DB, does not exist"
done
[ ! -e "$TMP/none.db" ] || fail "run created the default history"
# Unset, the default is the runbook's path.
if [ ! -e /var/lib/isotier/isotier.db ]; then
  set +e
  out=$(env -u ISOTIER_DB "$ISOTIER_BIN" history 2>&1)
  set -e
  assert_contains "$out" "/var/lib/isotier/isotier.db"
fi
grep -q 'db=${ISOTIER_DB:-$state/isotier.db}' "$ISOTIER_ROOT/runbook/jobs/isotier-reverify.sh" ||
  fail "the runbook job does not write the default history"
echo "ok: the history gate fails closed"
