#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# An auditor reads an archived history they cannot write (another user, a
# read-only directory): history, report and backends still work, and a file
# that is not a database is named as such, not as a schema problem.
. "$ISOTIER_ROOT/tests/lib.sh"
id nobody >/dev/null 2>&1 || skip "no 'nobody' user to read as"
[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
chmod 755 "$TMP"
mkdir "$TMP/archive"
"$ISOTIER_BIN" run --new-db --db "$TMP/archive/h.db" --backend host -- /bin/true
sqlite3 "$TMP/archive/h.db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
rm -f "$TMP/archive/h.db-wal" "$TMP/archive/h.db-shm"
chmod 755 "$TMP/archive"; chmod 644 "$TMP/archive/h.db"
# The checkout may sit where nobody cannot reach it: run a copy from $TMP,
# and report on the database alone.
cp "$ISOTIER_BIN" "$TMP/isotier"; chmod 755 "$TMP/isotier"
as_nobody() { su nobody -s /bin/sh -c "$*"; }
out=$(as_nobody "'$TMP/isotier' history --db '$TMP/archive/h.db'") || fail "history as nobody: $out"
assert_contains "$out" "no observations"
as_nobody "'$TMP/isotier' report --db '$TMP/archive/h.db' --no-catalogue --format md" >"$TMP/report.md" \
  || fail "report as nobody failed"
assert_contains "$(cat "$TMP/report.md")" "isotier isolation report"
[ ! -e "$TMP/archive/h.db-shm" ] || fail "a read-only reader created files in the archive"

# A refusal committed since: in the write-ahead log beside the archive, not
# in its file. A reader that cannot apply the log refuses, whether it names
# the file or a symlink to it (SQLite looks for the log beside the target).
set +e
"$ISOTIER_BIN" run --db "$TMP/archive/h.db" --backend host --require-isolation MICROVM --trust-history -- /bin/true >/dev/null 2>&1
set -e
rm -f "$TMP/archive/h.db-shm"
[ -s "$TMP/archive/h.db-wal" ] || fail "no write-ahead log beside the archive"
chmod 644 "$TMP/archive/h.db-wal"
ln -s archive/h.db "$TMP/link.db"
for db in "$TMP/archive/h.db" "$TMP/link.db"; do
  set +e
  out=$(as_nobody "'$TMP/isotier' report --db '$db' --no-catalogue --format json" 2>&1); rc=$?
  set -e
  [ "$rc" -ne 0 ] || fail "report --db $db read the file without its log: $(head -c 300 <<<"$out")"
  assert_contains "$out" "write-ahead log"
done
[ ! -e "$TMP/archive/h.db-shm" ] || fail "a read-only reader created files in the archive"

head -c 65536 /dev/urandom >"$TMP/junk.db"
set +e
err=$("$ISOTIER_BIN" history --db "$TMP/junk.db" 2>&1); rc=$?
set -e
assert_eq "$rc" 65 "history --db a file that is not a database"
assert_contains "$err" "not an SQLite database"
echo "ok: read-only histories"
