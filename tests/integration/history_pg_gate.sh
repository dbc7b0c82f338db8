#!/usr/bin/env bash
# isotier-test: slow
# SPDX-License-Identifier: Apache-2.0
# The history gate's unit suite (tests/unit/test_history_gate.c: proofs,
# contradictions, ceilings, clock skew, claim digests, hosts, ISOTIER_DB)
# against a PostgreSQL history: the same assertions as with the SQLite file,
# on a real server this test starts (tests/pg.sh).
. "$ISOTIER_ROOT/tests/lib.sh"
. "$ISOTIER_ROOT/tests/pg.sh"

suite=$ISOTIER_ROOT/$BUILD/tests/test_history_gate
[ -x "$suite" ] || skip "$suite is not built (make test builds it; or make $BUILD/tests/test_history_gate)"
trap 'pg_stop; rm -rf "$TMP"' EXIT
rc=0
pg_start "$TMP" || rc=$?
[ "$rc" = 77 ] && skip "no PostgreSQL server binaries (apt-get install postgresql)"
[ "$rc" = 0 ] || fail "could not start a PostgreSQL server"
ISOTIER_TEST_PG_URI=$PG_URI "$suite" >"$TMP/out" 2>&1 || fail "history gate on PostgreSQL: $(tail -n 20 "$TMP/out")"
grep -q '^Running suite(s): history_gate (PostgreSQL)' "$TMP/out" || fail "the suite did not run against PostgreSQL: $(head -3 "$TMP/out")"
grep -q '^100%: Checks: [0-9]*, Failures: 0, Errors: 0' "$TMP/out" || fail "$(cat "$TMP/out")"
assert_eq "$(pg_sql "SELECT max(version) >= 7 FROM isotier_schema")" t "the suite's history was PostgreSQL's"
echo "history gate suite: passes against PostgreSQL"
