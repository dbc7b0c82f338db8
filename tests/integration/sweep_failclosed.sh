#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# sweep_failclosed.sh - `isotier sweep` exits non-zero whenever it could not do
# its work (cmd_sweep.c), and sweeps the leases all the same: a history whose
# schema is newer (65), locked past 5 s (75), on a read-only file system (74),
# named but absent (66), unreadable by this user (77), a lease directory it
# cannot read (74). A run left 'running' by a dead process stays 'running'
# in each of those cases, so the exit status is the only word the job gets;
# once the history can be written a sweep marks it.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
export ISOTIER_STATE_DIR=$TMP/state
db=$TMP/h.db
"$ISOTIER_BIN" verify --backend host --db "$db" >/dev/null 2>&1 || [ $? -le 2 ] || fail "the first run failed"
# A run left 'running' by a process that is gone (pid 0 never runs isotier).
sql "$db" "INSERT INTO runs(started_at, tool_version, catalogue_commit, command, host, owner_pid, owner_start)
  VALUES ('2026-01-01T00:00:00Z', 'x', 'x', 'verify', '$(uname -n)', 999999, 1)"
run=$(sql "$db" "SELECT max(id) FROM runs")
status() { sql "$db" "SELECT status FROM runs WHERE id = $run"; }

# sweep_rc EXPECTED WHAT [ENV...] -- ARGS...: runs sweep, checks its exit status.
sweep_rc() {
  local want=$1 what=$2
  shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  set +e
  env "${envs[@]}" "$ISOTIER_BIN" sweep "$@" >"$TMP/sweep.out" 2>"$TMP/sweep.err"
  local rc=$?
  set -e
  assert_eq "$rc" "$want" "$what: exit status ($(cat "$TMP/sweep.err"))"
  assert_contains "$(cat "$TMP/sweep.out")" "swept " "$what: the leases were swept all the same"
}

echo "== a newer schema: 65"
cp "$db" "$TMP/newer.db"
sql "$TMP/newer.db" "PRAGMA user_version = 999"
sweep_rc 65 "newer schema" -- --db "$TMP/newer.db"
assert_contains "$(cat "$TMP/sweep.err")" "schema version 999"

echo "== locked past 5 s: 75, the run still 'running'"
python3 - "$db" "$TMP/locked" <<'PY' &
import sqlite3, sys, time, os
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(9)
c.execute("ROLLBACK")
PY
locker=$!
for _ in $(seq 100); do [ -e "$TMP/locked" ] && break; sleep 0.05; done
[ -e "$TMP/locked" ] || fail "the lock was never taken"
sweep_rc 75 "locked" -- --db "$db"
wait "$locker"
assert_eq "$(status)" running "locked: the run was marked"

echo "== a read-only file system: 74"
if mkdir "$TMP/ro" && mount -t tmpfs -o size=8m none "$TMP/ro" 2>/dev/null; then
  sql "$db" ".backup $TMP/ro/h.db"
  mount -o remount,ro "$TMP/ro"
  trap 'umount "$TMP/ro" 2>/dev/null || true; rm -rf "$TMP"' EXIT
  sweep_rc 74 "read-only" -- --db "$TMP/ro/h.db"
  assert_contains "$(cat "$TMP/sweep.err")" "is not writable: read-only file system"
  # With its log and index there (as a writer left them): opened, but read-only.
  mount -o remount,rw "$TMP/ro"
  cp "$db" "$db-wal" "$db-shm" "$TMP/ro/" 2>/dev/null || cp "$db" "$TMP/ro/"
  mount -o remount,ro "$TMP/ro"
  sweep_rc 74 "read-only, with its log" -- --db "$TMP/ro/h.db"
  umount "$TMP/ro"
else
  echo "note: cannot mount a tmpfs: the read-only file system not covered"
fi

echo "== named but absent: 66; \$ISOTIER_DB too"
sweep_rc 66 "absent --db" -- --db "$TMP/none.db"
sweep_rc 66 "absent ISOTIER_DB" ISOTIER_DB="$TMP/none.db" --
[ ! -e "$TMP/none.db" ] || fail "sweep created the absent history"

echo "== not this user's to read: 77"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chmod 0755 "$TMP"
  mkdir -m 0700 "$TMP/private"
  cp "$db" "$TMP/private/h.db"
  mkdir -m 0777 "$TMP/nstate"
  set +e
  (cd / && ISOTIER_STATE_DIR=$TMP/nstate setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$ISOTIER_BIN" sweep --db "$TMP/private/h.db") >"$TMP/sweep.out" 2>"$TMP/sweep.err"
  rc=$?
  set -e
  assert_eq "$rc" 77 "unreadable as nobody ($(cat "$TMP/sweep.err"))"
  assert_contains "$(cat "$TMP/sweep.err")" "(EACCES)"
fi

assert_eq "$(status)" running "the run was marked by a sweep that could not write"

echo "== a lease directory that cannot be read: 74 (the history's runs are marked all the same)"
touch "$TMP/notadir"
sweep_rc 74 "lease directory" ISOTIER_STATE_DIR="$TMP/notadir" -- --db "$db"
assert_contains "$(cat "$TMP/sweep.err")" "lease directory $TMP/notadir/leases could not be read"

assert_eq "$(status)" interrupted "the stale run"
echo "== all of it done: 0"
sweep_rc 0 "writable" -- --db "$db"
echo "ok: sweep fails loudly when it could not do its work"
