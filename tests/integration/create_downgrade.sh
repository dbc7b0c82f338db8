#!/usr/bin/env bash
# isotier-test: fast; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# Downgrades: a claim isotier cannot defend resolves to UNKNOWN, so any
# requirement is refused, with the reason. Stale source, no provider source,
# contradicted latest observation, missing verification.
. "$ISOTIER_ROOT/tests/lib.sh"
cat_src=$ISOTIER_ROOT/catalogue/providers
variant() { python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$cat_src" "$TMP/$1" "$2" "$3"; }

expect_refusal() { # name expected-reason-fragment args...
  local name=$1 why=$2; shift 2
  set +e
  "$ISOTIER_BIN" run --new-db "$@" -- /bin/echo provisioned >"$TMP/$name.out" 2>"$TMP/$name.err"
  local rc=$?
  set -e
  assert_eq "$rc" 78 "$name: exit status"
  assert_contains "$(cat "$TMP/$name.err")" "ConfigurationError:" "$name"
  assert_contains "$(cat "$TMP/$name.err")" "resolves to UNKNOWN" "$name"
  assert_contains "$(cat "$TMP/$name.err")" "$why" "$name: reason"
  [ ! -s "$TMP/$name.out" ] || fail "$name: the command ran"
}

variant stale bubblewrap stale
expect_refusal stale "was retrieved 2020-01-01" --backend bwrap --catalogue "$TMP/stale" --require-isolation CONTAINER
variant unsourced runc third-party
expect_refusal unsourced "has no provider-published source" --backend runc --catalogue "$TMP/unsourced" --require-isolation CONTAINER
variant stale-qemu qemu-microvm stale
expect_refusal stale-qemu "was retrieved 2020-01-01" --backend qemu-microvm --catalogue "$TMP/stale-qemu" --require-isolation MICROVM

# `isotier backends` shows the same downgrade and its reason.
# No history (an absent default): the catalogue alone.
ISOTIER_DB=$(empty_history "$TMP/none.db") "$ISOTIER_BIN" backends --catalogue "$TMP/stale" --json >"$TMP/backends.json"
python3 - "$TMP/backends.json" <<'PY'
import json, sys
rows = {r["backend"]: r for r in json.load(open(sys.argv[1]))}
b = rows["bwrap"]
assert b["claimed_tier"] == "CONTAINER" and b["resolved_tier"] == "UNKNOWN", b
assert "2020-01-01" in b["reason"], b
assert rows["runc"]["resolved_tier"] == "CONTAINER", rows["runc"]
assert rows["host"]["resolved_tier"] == "UNKNOWN", rows["host"]
PY

# A contradicted latest observation voids the claim; a later CONFIRMED one restores it.
db=$TMP/history.db
"$ISOTIER_BIN" run --new-db --backend bwrap --db "$db" -- /bin/true   # creates the history with its schema
sqlite3 "$db" "INSERT INTO runs(started_at, tool_version, command, status) VALUES ('2026-01-01T00:00:00Z', 'test', 'verify', 'ok');
  INSERT INTO observations(run_id, observed_at, backend, observed_tier, verdict, reason)
  VALUES (last_insert_rowid(), '2026-01-01T00:00:00Z', 'bwrap', 'NONE', 'CONTRADICTED', 'no container layer seen');"
expect_refusal contradicted "CONTRADICTED the claim: no container layer seen" --backend bwrap --db "$db" --require-isolation CONTAINER
run_id=$(sqlite3 "$db" "SELECT max(id) FROM runs")
# A later run that judged nothing (a probe made to time out) does not clear it.
sqlite3 "$db" "INSERT INTO observations(run_id, observed_at, backend, observed_tier, verdict, reason)
  VALUES ($run_id, '2026-01-02T00:00:00Z', 'bwrap', 'UNKNOWN', 'INCONCLUSIVE', 'probe timed out');
  INSERT INTO observations(run_id, observed_at, backend, observed_tier, verdict, reason)
  VALUES ($run_id, '2026-01-03T00:00:00Z', 'bwrap', 'UNKNOWN', 'UNAVAILABLE', 'bwrap missing');"
expect_refusal still-contradicted "CONTRADICTED the claim: no container layer seen" --backend bwrap --db "$db" --require-isolation CONTAINER
# A row written by hand (no host, no claim digest) proves nothing to
# --require-verified (history_gate.sh); a real verification does.
sqlite3 "$db" "INSERT INTO observations(run_id, observed_at, backend, observed_tier, verdict, reason)
  VALUES ($run_id, strftime('%Y-%m-%dT%H:%M:%SZ','now'), 'bwrap', 'CONTAINER', 'CONFIRMED', 'ok');
  UPDATE observations SET ceiling_tier = 'CONTAINER', kernel_relation = 'shared' WHERE id = last_insert_rowid();"
expect_refusal hand-written "naming no host" --backend bwrap --db "$db" --require-isolation CONTAINER --require-verified 1
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/verify.out" 2>&1 || fail "verify bwrap: $(cat "$TMP/verify.out")"
out=$("$ISOTIER_BIN" run --new-db --backend bwrap --db "$db" --require-isolation CONTAINER --require-verified 1 -- /bin/echo allowed)
assert_eq "$out" allowed "confirmed today satisfies --require-verified 1"

# --require-verified alone (no --require-isolation) is the strict policy, not
# "no floor": the claim it verifies is the floor.
out=$("$ISOTIER_BIN" run --backend bwrap --db "$db" --require-verified 1 -- /bin/echo alone)
assert_eq "$out" alone "a proof today satisfies --require-verified 1 alone"
# latest VERDICT CEILING (SQL): a copy of the real proof judged VERDICT, newer than it
# (this host's, this claim: only the verdict differs).
latest() {
  sqlite3 "$db" "INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier,
    claimed_mechanism, observed_tier, verdict, reason, ceiling_tier, kernel_relation, host_id, claim_digest)
    SELECT run_id, strftime('%Y-%m-%dT%H:%M:%SZ','now'), backend, provider_id, claimed_tier,
    claimed_mechanism, 'UNKNOWN', '$1', 'made $1', $2, kernel_relation, host_id, claim_digest
    FROM observations WHERE backend = 'bwrap' AND host_id IS NOT NULL ORDER BY id DESC LIMIT 1"
}
latest INCONCLUSIVE NULL
expect_refusal alone-inconclusive "is INCONCLUSIVE, not a proof of the claim" --backend bwrap --db "$db" --require-verified 7
assert_contains "$(cat "$TMP/alone-inconclusive.err")" "weaker than the required CONTAINER (its claim, verified"
latest CONTRADICTED "'NONE'"
expect_refusal alone-contradicted "CONTRADICTED the claim: made CONTRADICTED" --backend bwrap --db "$db" --require-verified 7
# The contradiction stays the latest word even after a proof of another
# backend; a backend without a claim has nothing to verify.
set +e
"$ISOTIER_BIN" run --backend host --db "$db" --require-verified 7 -- /bin/echo ran >"$TMP/host.out" 2>"$TMP/host.err"
rc=$?
set -e
assert_eq "$rc" 78 "--require-verified alone on a backend without a claim"
assert_contains "$(cat "$TMP/host.err")" "backend host has no claim to verify"
[ ! -s "$TMP/host.out" ] || fail "host ran without a claim to verify"
expect_refusal alone-no-history "no verification history" --backend bwrap --db "$TMP/absent-alone.db" --require-verified 7
# Nothing granted: the audit trail has a refusal for each, no create after the proof's run.
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM audit_events WHERE event = 'create' AND id > (SELECT max(id) FROM audit_events WHERE event = 'refuse')")" 0 "a create after the refusals"

# require_verified without a recent CONFIRMED/CONSISTENT observation.
expect_refusal unverified "runc has no observation made on this host" --backend runc --db "$db" --require-isolation CONTAINER --require-verified 7
expect_refusal no-history "no verification history" --backend runc --db "$TMP/absent.db" --require-isolation CONTAINER --require-verified 7

# A CONFIRMED row written before ceilings existed (or by hand without one) proves nothing.
sqlite3 "$db" "INSERT INTO observations(run_id, observed_at, backend, observed_tier, verdict, reason)
  VALUES ($run_id, strftime('%Y-%m-%dT%H:%M:%SZ','now'), 'runc', 'CONTAINER', 'CONFIRMED', 'no ceiling');"
expect_refusal unproven-row "does not prove CONTAINER of its own" --backend runc --db "$db" --require-isolation CONTAINER --require-verified 7
# A history path that does not exist is an error naming it (66), not an empty history.
set +e
"$ISOTIER_BIN" run --backend bwrap --db "$TMP/locked-nowhere/h.db" -- /bin/echo ran >"$TMP/nodb.out" 2>"$TMP/nodb.err"
rc=$?
set -e
assert_eq "$rc" 66 "absent --db exit status"
assert_contains "$(cat "$TMP/nodb.err")" "$TMP/locked-nowhere/h.db does not exist"
[ ! -s "$TMP/nodb.out" ] || fail "a run with an absent history ran its command"
[ ! -e "$TMP/locked-nowhere" ] || fail "the absent history's directory was created"
set +e
"$ISOTIER_BIN" backends --db "$TMP/never.db" >/dev/null 2>&1; rc=$?
set -e
assert_eq "$rc" 66 "backends with an absent --db"
[ ! -e "$TMP/never.db" ] || fail "backends created the absent database"

# No requirement: an UNKNOWN tier still runs (the ADR's default is to report, not refuse).
out=$("$ISOTIER_BIN" run --new-db --backend bwrap --catalogue "$TMP/stale" -- /bin/echo ran)
assert_eq "$out" ran "no requirement runs"
echo "ok: downgrades refused with reasons"
