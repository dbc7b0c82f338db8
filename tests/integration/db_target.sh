#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# db_target.sh - a history is a file path or a postgresql:// URI, nothing else
# (history_util.c's isotier__history_target_check). A libpq key=value string
# or a URI of another scheme given as --db or $ISOTIER_DB is refused (64) by
# every command that takes one, the value (its password) never echoed and
# never turned into an SQLite file named after it; a path that merely holds
# '=' is still a file.
. "$ISOTIER_ROOT/tests/lib.sh"

secret=S3cretPw-$RANDOM$RANDOM
cwd=$TMP/cwd
mkdir "$cwd"
conninfo="host=127.0.0.1 port=5432 dbname=isotier user=isotier password=$secret"

# refused WHAT CMD...: exit 64, the secret nowhere in the output, no file made.
refused() {
  local what=$1
  shift
  set +e
  (cd "$cwd" && "$@") >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  set -e
  assert_eq "$rc" 64 "$what: exit status ($(head -c 400 "$TMP/err"))"
  if grep -qF "$secret" "$TMP/out" "$TMP/err"; then fail "$what: the password was echoed"; fi
  assert_contains "$(cat "$TMP/err")" "not shown: it may hold a password" "$what"
  [ -z "$(ls -A "$cwd")" ] || fail "$what: created $(ls -A "$cwd")"
  if find "$TMP" -name "*$secret*" | grep -q .; then fail "$what: a file named after the credential"; fi
}

echo "== --db a libpq key=value string, every command that takes one"
refused "verify" "$ISOTIER_BIN" verify --backend host --db "$conninfo"
refused "run" "$ISOTIER_BIN" run --backend host --db "$conninfo" --new-db -- true
refused "history" "$ISOTIER_BIN" history --db "$conninfo"
refused "report" "$ISOTIER_BIN" report --format text --db "$conninfo"
refused "sweep" "$ISOTIER_BIN" sweep --db "$conninfo"
refused "backends" "$ISOTIER_BIN" backends --db "$conninfo"
refused "one word" "$ISOTIER_BIN" verify --backend host --db "password=$secret"
refused "spaced" "$ISOTIER_BIN" verify --backend host --db "dbname = x password = $secret"

echo "== a URI of another scheme"
refused "mysql URI" "$ISOTIER_BIN" verify --backend host --db "mysql://u:$secret@127.0.0.1/db"

echo "== \$ISOTIER_DB a connection string: refused before anything prints it"
refused "ISOTIER_DB run" env ISOTIER_DB="$conninfo" "$ISOTIER_BIN" run --backend host -- true
refused "ISOTIER_DB verify" env ISOTIER_DB="$conninfo" "$ISOTIER_BIN" verify --backend host
refused "ISOTIER_DB help" env ISOTIER_DB="$conninfo" "$ISOTIER_BIN" run --help
refused "ISOTIER_DB paths" env ISOTIER_DB="$conninfo" "$ISOTIER_BIN" paths

echo "== a file whose name holds '=' is still a file"
(cd "$cwd" && "$ISOTIER_BIN" verify --backend host --db "$TMP/run=1.db" >/dev/null 2>&1) || [ $? -le 2 ] ||
  fail "verify into $TMP/run=1.db"
[ -s "$TMP/run=1.db" ] || fail "no history at $TMP/run=1.db"
echo "ok: --db and \$ISOTIER_DB are a file or a postgresql:// URI; connection strings refused unseen"
