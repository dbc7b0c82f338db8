#!/usr/bin/env bash
# isotier-test: fast; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# verify_history_late.sh - verify starts its sandboxes before it opens the history (issue 43: the
# history, the catalogue's commit and the sweep are off the critical path). A history that cannot
# be opened (here: locked past --busy-timeout while the sandbox already runs) still fails the run
# with the history's status (75), stores nothing, prints no verdict, and the sandbox that ran
# leaves nothing behind: no capture directory, no lease.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"

# A private TMPDIR and state directory: what is left in them is exactly this run's.
S=$(mktemp -d /tmp/ivhl.XXXXXX)
chmod 755 "$S"
mkdir -m 755 "$S/tmp"
HOLDER=
trap '[ -z "$HOLDER" ] || kill "$HOLDER" 2>/dev/null || true; rm -rf "$TMP" "$S"' EXIT
export TMPDIR=$S/tmp ISOTIER_STATE_DIR=$S/state
db=$S/h.db
"$ISOTIER_BIN" verify --backend host --db "$db" >/dev/null 2>&1 || fail "seeding the history"
rows() { sqlite3 "$db" 'select count(*) from observations'; }
before=$(rows)

# bwrap through a wrapper that notes it ran: the sandbox starts while the history waits.
real_bwrap=$(command -v bwrap)
mkdir "$TMP/bin"
printf '#!/bin/sh\ntouch "%s"\nexec "%s" "$@"\n' "$TMP/bwrap-ran" "$real_bwrap" >"$TMP/bin/bwrap"
chmod +x "$TMP/bin/bwrap"

# Another process holds the history's write lock longer than verify waits for it.
(echo 'BEGIN EXCLUSIVE;'; sleep 8) | sqlite3 "$db" &
HOLDER=$!
sleep 0.5
set +e
PATH=$TMP/bin:$PATH timeout 120 "$ISOTIER_BIN" verify --backend bwrap --db "$db" --busy-timeout 1500 \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
assert_eq "$rc" 75 "verify with a history locked past --busy-timeout ($(head -c 400 "$TMP/err"))"
assert_contains "$(cat "$TMP/err")" "locked" "why the run failed"
[ -e "$TMP/bwrap-ran" ] || fail "the sandbox was not started while the history was being opened"
if grep -q 'CONFIRMED\|INCONCLUSIVE\|CONTRADICTED' "$TMP/out"; then
  fail "a verdict was printed for a run that stored nothing: $(head -c 400 "$TMP/out")"
fi
[ -z "$(ls -A "$S/tmp")" ] || fail "the sandbox left $(ls -A "$S/tmp") in TMPDIR"
left=$(ls -A "$S/state/leases" 2>/dev/null || true)
[ -z "$left" ] || fail "leases left behind: $left"
kill "$HOLDER" 2>/dev/null || true
wait "$HOLDER" 2>/dev/null || true
HOLDER=
assert_eq "$(rows)" "$before" "observations stored by the run that could not open its history"

# The lock gone: the same run stores its verdict.
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/out" 2>"$TMP/err" ||
  fail "verify with the history free failed: $(head -c 400 "$TMP/err")"
assert_contains "$(cat "$TMP/out")" "CONFIRMED" "the run with the history free"
assert_eq "$(rows)" "$((before + 1))" "observations after the run with the history free"
[ -z "$(ls -A "$S/tmp")" ] || fail "the sandbox left $(ls -A "$S/tmp") in TMPDIR"
echo "ok: a history that cannot be opened fails the run closed; the sandbox left nothing"
