#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# A verify run's fixed cost (issue #24): over an existing SQLite history it
# syncs exactly once, the write-ahead log, after the run's last commit (its
# observation survives a power loss once verify says "stored"), and never
# at close. The log stays beside the database: every reader still sees the
# run (history, export, a .backup copy), and a reader that cannot apply the
# log refuses rather than show an older history.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh installs it)"
command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
db=$TMP/h.db
q() { sql "$db" "$1"; }

# An existing history: one run already in it.
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/v0" 2>&1 || fail "first verify: $(cat "$TMP/v0")"

# Every sync call of the whole process tree (the sandbox's too), with the
# writes to the history's files around them.
traced() {
  strace -f -qq -y --seccomp-bpf -o "$1" \
    -e trace=fsync,fdatasync,sync,syncfs,sync_file_range,msync,pwrite64,write,ftruncate,unlink \
    "$ISOTIER_BIN" verify --backend bwrap --db "$db" "${@:2}"
}
count_syncs() {
  grep -cE '^[0-9]+ +(fsync|fdatasync|sync|syncfs|sync_file_range|msync)\(' "$1" || true
}
# The durability point: the one sync is the log's, and nothing is written
# to the history's files after it (no commit left unsynced, no checkpoint).
check_one_sync() {
  local trace=$1 what=$2
  assert_eq "$(count_syncs "$trace")" 1 "$what: sync calls"
  grep -qE "fdatasync\([0-9]+<$db-wal>\)" "$trace" || fail "$what: the sync is not the log's: $(grep -E 'sync' "$trace")"
  awk -v db="$db" '/fdatasync\(/ { synced = 1; next }
    synced && index($0, "<" db) && /(pwrite64|write|ftruncate)\(/ { print; bad = 1 }
    END { exit bad }' "$trace" >"$TMP/after" || fail "$what: written after the sync: $(head -c 600 "$TMP/after")"
  grep -qE "pwrite64\([0-9]+<$db-wal>" "$trace" || fail "$what: no commit in the log before the sync"
  ! grep -qE "unlink\(\"$db-(wal|shm)\"" "$trace" || fail "$what: the log was deleted at close"
}

traced "$TMP/s1" >"$TMP/v1" 2>&1 || fail "traced verify: $(cat "$TMP/v1")"
assert_contains "$(cat "$TMP/v1")" "stored in $db"
check_one_sync "$TMP/s1" "verify --backend bwrap"
traced "$TMP/s2" --no-evidence >"$TMP/v2" 2>&1 || fail "traced verify --no-evidence: $(cat "$TMP/v2")"
check_one_sync "$TMP/s2" "verify --no-evidence"
echo "ok: one sync per verify run, the log's, after its last commit"

# The runs are there, for every kind of reader, while the log still holds them.
mkdir "$TMP/archive"
[ -s "$db-wal" ] || fail "no write-ahead log beside the history"
"$ISOTIER_BIN" history --db "$db" --json >"$TMP/hist.json" || fail "history --json"
assert_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["observations"]))' "$TMP/hist.json")" 3 \
  "observations the history lists"
"$ISOTIER_BIN" history export --db "$db" >"$TMP/export.jsonl" || fail "history export"
assert_eq "$(grep -c '^{"type":"observation"' "$TMP/export.jsonl" || true)" 3 "observations exported"
# (the sqlite3 shell checkpoints and deletes the log when it closes the
# history last: copy it for the read-only reader below first)
cp "$db" "$db-wal" "$TMP/archive/"
sqlite3 "$db" ".backup '$TMP/copy.db'"
assert_eq "$(sqlite3 "$TMP/copy.db" 'SELECT count(*) FROM observations')" 3 "observations in a .backup copy"
assert_eq "$(q "SELECT count(*) FROM runs WHERE status = 'ok' AND finished_at IS NOT NULL")" 3 "finished runs"
echo "ok: every reader sees the runs the log holds"

# A sync that fails is no durability point: verify does not say "stored"
# (text or JSON) and exits with the I/O error. (The sqlite3 shell above
# deleted the log: one verify makes it again, so that the only sync left to
# fail is isotier's own.)
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/v3" 2>&1 || fail "verify: $(cat "$TMP/v3")"
set +e
strace -f -qq -o /dev/null -e trace=fdatasync -e inject=fdatasync:error=EIO \
  "$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/eio" 2>&1
rc=$?
strace -f -qq -o /dev/null -e trace=fdatasync -e inject=fdatasync:error=EIO \
  "$ISOTIER_BIN" verify --backend bwrap --db "$db" --json >"$TMP/eio.json" 2>/dev/null
jrc=$?
set -e
assert_eq "$rc" 74 "verify whose sync failed ($(cat "$TMP/eio"))"
assert_eq "$jrc" 74 "verify --json whose sync failed"
! grep -q "stored in" "$TMP/eio" || fail "verify whose sync failed says stored: $(cat "$TMP/eio")"
assert_contains "$(cat "$TMP/eio")" "NOT stored"
assert_eq "$(json_get "$TMP/eio.json" stored)" False "verify --json whose sync failed: stored"
echo "ok: a failed sync is not reported stored"

# A reader that cannot write beside the database (no -shm there) cannot
# apply the log: it refuses, naming it, rather than read the file alone.
id nobody >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] || { echo "ok (read-only reader not tried: needs root and nobody)"; exit 0; }
chmod 755 "$TMP"
chmod 755 "$TMP/archive"; chmod 644 "$TMP/archive/"*
cp "$ISOTIER_BIN" "$TMP/isotier"; chmod 755 "$TMP/isotier"
set +e
out=$(su nobody -s /bin/sh -c "'$TMP/isotier' history --db '$TMP/archive/h.db' --json" 2>&1); rc=$?
set -e
if [ "$rc" -eq 0 ]; then
  # SQLite applied the log itself: then it must show every run.
  assert_eq "$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["observations"]))' "$out")" 3 \
    "observations a read-only reader sees"
else
  assert_contains "$out" "write-ahead log"
fi
[ ! -e "$TMP/archive/h.db-shm" ] || fail "a read-only reader created files in the archive"
echo "ok: a read-only reader never shows an older history"
