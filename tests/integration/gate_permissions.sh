#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# gate_permissions.sh - absent means ENOENT and nothing else (resolve.c,
# history.c's isotier__history_present). A program that is not root, on a host
# whose history holds a CONTRADICTED observation of bwrap in a directory it may
# not read (as the Debian package lays it out: 0750), is refused with 77 naming
# the path and EACCES, never let through as if there were no history; the same
# program in the history's group (the package's `isotier` group: directory 0750
# root:GROUP, database 0640) reads the contradiction and is refused with 78; a
# $ISOTIER_DB or --db that does not exist, a directory and a newer schema each
# refuse with their own code. Nothing runs, the history is not changed.
. "$ISOTIER_ROOT/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to lay out the history as the package does and run as nobody"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"

# A group no account uses: setpriv hands it to nobody without a system change.
gid=$((40000 + RANDOM % 20000))
while getent group "$gid" >/dev/null; do gid=$((gid + 1)); done
chmod 0755 "$TMP"
lib=$TMP/lib
mkdir -m 0750 "$lib"
db=$lib/isotier.db

# The history: a real one, as `verify` writes it (the host backend: no sandbox),
# plus bwrap's latest judgement CONTRADICTED, as the judge records it.
"$ISOTIER_BIN" verify --backend host --db "$db" >"$TMP/v.out" 2>&1 || [ $? -le 2 ] ||
  fail "verify --backend host: $(cat "$TMP/v.out")"
sql "$db" "INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier,
  claimed_mechanism, observed_tier, verdict, reason, ceiling_tier, host_id, uuid)
  SELECT run_id, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), 'bwrap', 'bubblewrap', 'CONTAINER',
  'bubblewrap', 'UNKNOWN', 'CONTRADICTED', 'no boundary seen', 'NONE', host_id,
  '00000000-0000-4000-8000-000000000036' FROM observations LIMIT 1"
# ... and a commit left in the write-ahead log, as the job leaves it.
"$ISOTIER_BIN" verify --backend host --db "$db" >/dev/null 2>&1 || true
chmod 0640 "$db"*
state() { sql "$db" "SELECT count(*), max(id), group_concat(verdict) FROM observations; SELECT count(*) FROM audit_events"; }
before=$(state)

# gate [SETPRIV ARGS...] -- [ENV...]: `isotier run` requiring CONTAINER of bwrap
# (verified within $VERIFIED days when set), as the given user; prints the exit status, stderr in $TMP/gate.err.
gate() {
  local who=()
  while [ "$1" != -- ]; do who+=("$1"); shift; done
  shift
  set +e
  (cd / && env "$@" setpriv "${who[@]}" "$ISOTIER_BIN" run --backend bwrap \
    --require-isolation CONTAINER ${VERIFIED:+--require-verified "$VERIFIED"} -- sh -c 'exit 0') \
    >"$TMP/gate.out" 2>"$TMP/gate.err"
  echo $?
  set -e
}
nobody=(--reuid=65534 --regid=65534 --clear-groups)
member=(--reuid=65534 --regid=65534 "--groups=$gid")

echo "== root reads the contradiction: 78"
assert_eq "$(gate --reuid=0 -- ISOTIER_DB="$db")" 78 "root: $(cat "$TMP/gate.err")"
assert_contains "$(cat "$TMP/gate.err")" "CONTRADICTED the claim"

echo "== not root, directory 0750 root:root: 77 (EACCES), not 'no history'"
chown -R root:root "$lib"
assert_eq "$(gate "${nobody[@]}" -- ISOTIER_DB="$db")" 77 "nobody, unreadable history: $(cat "$TMP/gate.err")"
assert_contains "$(cat "$TMP/gate.err")" "history $db (EACCES)"
# --require-verified says why, not "absent".
assert_eq "$(VERIFIED=7 gate "${nobody[@]}" -- ISOTIER_DB="$db")" 77 "nobody, --require-verified"
if grep -q absent "$TMP/gate.err"; then fail "an unreadable history called absent: $(cat "$TMP/gate.err")"; fi

# The readers say the same: not "no history database".
for cmd in history "report --format text"; do
  set +e
  # shellcheck disable=SC2086
  (cd / && setpriv "${nobody[@]}" env ISOTIER_DB="$db" "$ISOTIER_BIN" $cmd >/dev/null 2>"$TMP/r.err"); rc=$?
  set -e
  assert_eq "$rc" 77 "isotier $cmd as nobody: $(cat "$TMP/r.err")"
  assert_contains "$(cat "$TMP/r.err")" "(EACCES)"
done

echo "== the history's group (0750 root:GROUP, database 0640): the contradiction is honoured, 78"
chgrp -R "$gid" "$lib"
assert_eq "$(gate "${member[@]}" -- ISOTIER_DB="$db")" 78 "group member: $(cat "$TMP/gate.err")"
assert_contains "$(cat "$TMP/gate.err")" "CONTRADICTED the claim"
# A database the group may not read (0600) in a directory it may: 77 again.
chmod 0600 "$db"
assert_eq "$(gate "${member[@]}" -- ISOTIER_DB="$db")" 77 "group member, database 0600: $(cat "$TMP/gate.err")"
assert_contains "$(cat "$TMP/gate.err")" "EACCES"
chmod 0640 "$db"

echo "== a \$ISOTIER_DB or --db that does not exist: 66, never 'no history'"
assert_eq "$(gate "${member[@]}" -- ISOTIER_DB="$db.typo")" 66 "typo in ISOTIER_DB: $(cat "$TMP/gate.err")"
assert_contains "$(cat "$TMP/gate.err")" "named by \$ISOTIER_DB, does not exist"
[ ! -e "$db.typo" ] || fail "the gate created the mistyped history"
assert_eq "$(gate --reuid=0 -- ISOTIER_DB="$TMP/nodir/isotier.db")" 66 "ISOTIER_DB in a missing directory"

echo "== a directory, a newer schema: their own codes"
assert_eq "$(gate --reuid=0 -- ISOTIER_DB="$lib")" 66 "ISOTIER_DB a directory: $(cat "$TMP/gate.err")"
assert_contains "$(cat "$TMP/gate.err")" "a directory, not a database file (EISDIR)"
cp "$db" "$TMP/newer.db"
sql "$TMP/newer.db" "PRAGMA user_version = 999"
assert_eq "$(gate --reuid=0 -- ISOTIER_DB="$TMP/newer.db")" 65 "newer schema: $(cat "$TMP/gate.err")"
assert_contains "$(cat "$TMP/gate.err")" "schema version 999"

echo "== nothing granted, nothing lost"
for f in "$TMP"/gate.out; do [ ! -s "$f" ] || fail "a command ran: $(cat "$f")"; done
assert_eq "$(state)" "$before" "the history changed"
echo "ok: an unreadable, mistyped or newer history refuses; the group reads it"
