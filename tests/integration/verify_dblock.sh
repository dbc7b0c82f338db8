#!/usr/bin/env bash
# The history database locked by another process (python3 holding BEGIN
# EXCLUSIVE): verify gives up after its busy timeout with exit 75 and a clear
# message, loses nothing, and works once the lock is gone.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
db=$TMP/h.db
q() { sqlite3 -batch -noheader "$db" "$1"; }
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >/dev/null || fail "first run"
before=$(q "SELECT count(*) FROM observations")
assert_eq "$before" 1 "one observation"

# The locker writes a row of its own inside its transaction and commits it later.
python3 - "$db" "$TMP/locked" "$TMP/release" <<'PY' &
import os, sqlite3, sys, time
db, ready, release = sys.argv[1:]
c = sqlite3.connect(db, isolation_level=None, timeout=10)
c.execute("BEGIN EXCLUSIVE")
c.execute("INSERT INTO runs(started_at, tool_version, command, status) VALUES ('2026-01-01T00:00:00Z', 'locker', 'locker', 'ok')")
open(ready, "w").close()
for _ in range(300):
    if os.path.exists(release):
        break
    time.sleep(0.05)
c.execute("COMMIT")
PY
locker=$!
for _ in $(seq 1 100); do [ -e "$TMP/locked" ] && break; sleep 0.05; done
[ -e "$TMP/locked" ] || fail "the locker never took its lock"

set +e
start=$(date +%s%N)
"$ISOTIER_BIN" verify --backend bwrap --db "$db" --busy-timeout 300 >"$TMP/out" 2>"$TMP/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
# The environment variable works the same way.
ISOTIER_BUSY_TIMEOUT_MS=200 "$ISOTIER_BIN" verify --backend bwrap --db "$db" >/dev/null 2>"$TMP/err2"
rc2=$?
set -e
touch "$TMP/release"
wait "$locker" || fail "the locker failed"
assert_eq "$rc" 75 "locked database ($(cat "$TMP/err"))"
assert_eq "$rc2" 75 "locked database, ISOTIER_BUSY_TIMEOUT_MS"
assert_contains "$(cat "$TMP/err")" "is locked by another process (waited 300 ms"
assert_contains "$(cat "$TMP/err2")" "waited 200 ms"
[ "$ms" -lt 5000 ] || fail "gave up after ${ms} ms, not after the 300 ms busy timeout"
# Nothing lost: our earlier row, the locker's row; nothing half-written from the failed runs.
assert_eq "$(q "SELECT count(*) FROM observations")" "$before" "observations after the failed runs"
assert_eq "$(q "SELECT count(*) FROM runs WHERE command = 'locker'")" 1 "the locker's committed row"
assert_eq "$(q "SELECT count(*) FROM runs WHERE command = 'verify'")" 1 "no run row from the failed attempts"
# And the next run works.
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >/dev/null || fail "run after the lock"
assert_eq "$(q "SELECT count(*) FROM observations")" 2 "observations after the lock"
assert_eq "$(q "PRAGMA integrity_check")" ok "integrity"
echo "locked database ok"
