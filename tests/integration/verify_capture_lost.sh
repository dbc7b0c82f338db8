#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# A capture that could not be packed is said in the stored observation
# ("capture not kept: <why>"), as on the terminal: history and reports tell
# it apart from a run that asked for none (--no-evidence, which says "not
# asked") and from one that kept its capture. The host backend runs a probe
# that removes the capture directory it is given before it runs.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
db=$TMP/h.db
q() { sql "$db" "$1"; }
cat >"$TMP/probe" <<'SH'
#!/bin/sh
# The real probe, without the capture directory, which is removed first.
n=$#
skip=0
for a in "$@"; do
  if [ "$skip" = 1 ]; then rm -rf -- "$a"; skip=0; continue; fi
  if [ "$a" = --capture ]; then skip=1; continue; fi
  set -- "$@" "$a"
done
shift "$n"
exec "$REAL_PROBE" "$@"
SH
chmod +x "$TMP/probe"

out=$(REAL_PROBE=$ISOTIER_PROBE ISOTIER_PROBE=$TMP/probe \
  "$ISOTIER_BIN" verify --backend host --db "$db" 2>&1) || fail "verify: $out"
assert_contains "$out" "capture not kept: evidence: open"
reason=$(q 'SELECT reason FROM observations WHERE id = 1')
assert_contains "$reason" "capture not kept: evidence: open" "the stored reason"
assert_contains "$reason" "No such file or directory" "the stored reason"
assert_eq "$(q 'SELECT evidence_sha256 IS NULL FROM observations WHERE id = 1')" 1 "evidence stored"
show=$("$ISOTIER_BIN" history show 1 --db "$db") || fail "history show 1"
assert_contains "$show" "capture not kept: evidence: open"
echo "ok: a capture that could not be packed is said in the stored observation"

# The same run keeping its capture, and one not asking for it: neither says
# the capture was lost.
"$ISOTIER_BIN" verify --backend host --db "$db" >/dev/null 2>&1 || fail "verify"
"$ISOTIER_BIN" verify --backend host --db "$db" --no-evidence >/dev/null 2>&1 || fail "verify --no-evidence"
assert_eq "$(q "SELECT count(*) FROM observations WHERE reason LIKE '%capture not kept%'")" 1 \
  "observations saying their capture was not kept"
assert_eq "$(q 'SELECT evidence_sha256 IS NOT NULL FROM observations WHERE id = 2')" 1 "the kept capture"
assert_contains "$(q 'SELECT reason FROM observations WHERE id = 3')" "no evidence kept (not asked: --no-evidence)"
echo "ok: kept, lost and not asked for are told apart"
