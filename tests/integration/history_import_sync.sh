#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# `history import` says "added" only once what it added survives a power
# loss: SQLite's commits do not sync (history_sqlite.c), so the import syncs
# the log itself, and a sync that fails fails the import (74) instead of
# being dropped when the history is closed.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh installs it)"
cat >"$TMP/in.jsonl" <<'JSONL'
{"type":"header","schema":"isotier.history.export/1","history_schema":9,"tool_version":"0.1.0"}
{"type":"run","uuid":"r-sync-1","started_at":"2026-11-20T08:00:00Z","finished_at":"2026-11-20T08:00:09Z","tool_version":"0.1.0","catalogue_commit":"abc","command":"verify","status":"ok","host":"elsewhere","host_id":null,"kernel":null}
{"type":"observation","uuid":"o-sync-1","run_uuid":"r-sync-1","observed_at":"2026-11-20T08:00:01Z","backend":"bwrap","provider_id":"bubblewrap","claimed_tier":"CONTAINER","observed_tier":"CONTAINER","verdict":"CONTRADICTED","reason":"imported"}
JSONL
sed 's/-sync-1/-sync-2/g' "$TMP/in.jsonl" >"$TMP/in2.jsonl"
import() { # db file trace [strace options...]
  local db=$1 file=$2 trace=$3
  shift 3
  strace -f -qq -y -o "$trace" -e trace=fdatasync,fsync "$@" \
    "$ISOTIER_BIN" history import --db "$db" "$file"
}

out=$(import "$TMP/a.db" "$TMP/in.jsonl" "$TMP/t1" 2>&1) || fail "import: $out"
assert_contains "$out" "1 observation added"
grep -qE "fdatasync\([0-9]+<$TMP/a.db-wal>\) += 0" "$TMP/t1" || fail "the import did not sync the log: $(cat "$TMP/t1")"

# Into that history (its log exists: only isotier's own sync is left to fail).
set +e
out=$(import "$TMP/a.db" "$TMP/in2.jsonl" "$TMP/t2" -e inject=fdatasync:error=EIO 2>&1); rc=$?
set -e
assert_eq "$rc" 74 "import whose sync failed ($out)"
assert_contains "$out" "Input/output error"
echo "ok: an import is synced before it is reported"
