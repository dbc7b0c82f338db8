#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# Paths a user names are never waited on, never misread and never followed
# through a symbolic link (issue 17, findings 1 and 7; issue 25, defect 3): a
# FIFO, device, directory or symbolic link given as --audit-log, --otlp-file,
# --db or --out is refused with an error naming it, in bounded time (each
# command runs under `timeout`: a hang is rc 124/137); a file that is not an
# SQLite database is never turned into one; wrong inputs get their sysexits code.
. "$ISOTIER_ROOT/tests/lib.sh"
cd "$TMP"
bin=$ISOTIER_BIN
mkfifo fifo
mkdir adir
printf x >one-byte
"$bin" verify --backend host --db h.db >/dev/null 2>&1 || fail "verify on host to seed h.db"

# run: the audit log, the span file and the history. SIGKILL after 10 s: a
# blocked SIGTERM must not keep a hang alive.
t() { rc=0; out=$(timeout -k 2 10 "$@" 2>&1) || rc=$?; }
t "$bin" run --backend host --audit-log ./fifo --db h.db -- true
assert_eq "$rc" 64 "run --audit-log FIFO"
assert_contains "$out" "audit log ./fifo: a FIFO, not a regular file"
t "$bin" run --backend host --audit-log ./adir --db h.db -- true
assert_eq "$rc" 64 "run --audit-log directory"
assert_contains "$out" "audit log ./adir: a directory"
t "$bin" run --backend host --audit-log /dev/null --db h.db -- true
assert_eq "$rc" 64 "run --audit-log device"
assert_contains "$out" "a character device, not a regular file"
# A span file that cannot be written: a warning by default, fatal with --otlp-required.
t "$bin" run --backend host --otlp-file ./fifo --db h.db -- true
assert_eq "$rc" 0 "run --otlp-file FIFO (telemetry not required)"
assert_contains "$out" "warning: span file ./fifo: a FIFO, not a regular file"
t "$bin" run --backend host --otlp-file ./fifo --otlp-required --db h.db --audit-log a.jsonl -- true
assert_eq "$rc" 64 "run --otlp-file FIFO --otlp-required"
assert_contains "$out" "span file ./fifo: a FIFO"
t "$bin" run --backend host --otlp-endpoint http://127.0.0.1:9/v1/traces --otlp-required --db h.db -- true
assert_eq "$rc" 74 "run with an unreachable collector, --otlp-required"
assert_contains "$out" "OTLP export to http://127.0.0.1:9/v1/traces failed"
t "$bin" run --backend host --otlp-endpoint http://127.0.0.1:9/v1/traces --db h.db -- true
assert_eq "$rc" 0 "run with an unreachable collector, telemetry not required"
assert_contains "$out" "warning: OTLP export"

# --db: a FIFO, directory or device in every command that takes one (66); a
# file that is not a database (65), left as it was.
for cmd in "history" "report --format json" "backends" "verify --backend host" "sources check --provider none" \
           "run --backend host"; do
  for p in ./fifo ./adir /dev/zero; do
    extra=(); [ "${cmd%% *}" = run ] && extra=(-- true)
    # shellcheck disable=SC2086
    t "$bin" $cmd --db "$p" "${extra[@]}"
    assert_eq "$rc" 66 "$cmd --db $p"
    assert_contains "$out" "--db: history $p: a"
  done
  # shellcheck disable=SC2086
  t "$bin" $cmd --db one-byte "${extra[@]}"
  assert_eq "$rc" 65 "$cmd --db a 1-byte file"
  assert_contains "$out" "not an SQLite database"
  assert_eq "$(cat one-byte)" x "$cmd --db changed a file that is not a database"
done
long=/$(head -c 5000 /dev/zero | tr '\0' a)
t "$bin" report --format json --db "$long"
assert_eq "$rc" 66 "report --db with a too-long path"
t "$bin" history --db "$long"
assert_eq "$rc" 66 "history --db with a too-long path"
# The library refuses too, for a caller that did not check first (the
# default history, $ISOTIER_DB, is one): a FIFO there is never opened.
ln -s fifo isotier.db
t env ISOTIER_DB=isotier.db "$bin" history
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "history with \$ISOTIER_DB a FIFO: rc $rc"
assert_contains "$out" "history isotier.db: a FIFO, not a database file"
rm isotier.db

# --out / --junit: a FIFO nobody reads is refused after a bounded wait (73).
t "$bin" report --format json --db h.db --out ./fifo
assert_eq "$rc" 73 "report --out a FIFO with no reader"
assert_contains "$out" "a FIFO with no reader"
t "$bin" report --format json --db h.db --out ./adir
assert_eq "$rc" 73 "report --out a directory"

# Issue 25, defect 3: a symbolic link as --out, --audit-log or --otlp-file is
# refused (64, naming the path), never followed: the file it names keeps its
# owner, mode and content, and a dangling link creates nothing.
printf 'victim\n' >victim
chmod 0600 victim
[ "$(id -u)" -ne 0 ] || chown nobody victim 2>/dev/null || true
victim_state() { stat -c '%U %a' victim; sha256sum victim | cut -d' ' -f1; }
before=$(victim_state)
ln -s victim link
ln -s "$TMP/absent" dangling
for p in link dangling; do
  t "$bin" report --format json --db h.db --out "./$p"
  assert_eq "$rc" 64 "report --out a symlink ($p)"
  assert_contains "$out" "--out ./$p: a symbolic link; not following it"
  t "$bin" run --backend host --audit-log "./$p" --db h.db -- true
  assert_eq "$rc" 64 "run --audit-log a symlink ($p)"
  assert_contains "$out" "audit log ./$p: a symbolic link; not following it"
  t "$bin" run --backend host --otlp-file "./$p" --otlp-required --db h.db --audit-log a.jsonl -- true
  assert_eq "$rc" 64 "run --otlp-file a symlink ($p), --otlp-required"
  assert_contains "$out" "span file ./$p: a symbolic link; not following it"
  t "$bin" run --backend host --otlp-file "./$p" --db h.db --audit-log a.jsonl -- true
  assert_eq "$rc" 0 "run --otlp-file a symlink ($p), telemetry not required"
  assert_contains "$out" "warning: span file ./$p: a symbolic link"
  [ -L "$p" ] || fail "the symlink $p was replaced"
done
assert_eq "$(victim_state)" "$before" "the file a refused symlink names changed"
[ ! -e absent ] || fail "a dangling symlink's target was created"

# Finding 7: the remaining exit codes.
t "$bin" backends --catalogue /dev/zero --db h.db
assert_eq "$rc" 66 "backends --catalogue /dev/zero"
t "$bin" backends --catalogue ./one-byte --db h.db
assert_eq "$rc" 66 "backends --catalogue a file"
rc=0; out=$(ISOTIER_PROBE=$TMP/adir timeout -k 2 30 "$bin" verify --backend host --db h.db 2>&1) || rc=$?
assert_eq "$rc" 69 "ISOTIER_PROBE naming a directory"
assert_contains "$out" "no isotier-probe"
echo "hostile paths: all checks passed"
