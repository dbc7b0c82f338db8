#!/usr/bin/env bash
# isotier-test: normal; uses: challenge sleep30
# SPDX-License-Identifier: Apache-2.0
# `isotier run --backend B -- /bin/echo hi` works on every local backend over a
# read-only view of the host root, relaying output and exit status; the
# tier is in the repr. A command that is not there: 127 where the backend can
# tell (host, qemu-microvm's guest init); bwrap, runc and runsc fail to exec it
# themselves and exit with their own status (1, 1, 128), as `run --help` says.
. "$ISOTIER_ROOT/tests/lib.sh"
for backend in bwrap runc runsc qemu-microvm; do
  out=$(ISOTIER_VERBOSE=1 "$ISOTIER_BIN" run --new-db --backend "$backend" -- /bin/echo hi 2>"$TMP/err") \
    || fail "$backend: run failed: $(cat "$TMP/err")"
  assert_eq "$(tr -d '\r' <<<"$out")" hi "$backend output"
  assert_contains "$(cat "$TMP/err")" "backend=$backend tier=" "$backend repr"
  set +e
  "$ISOTIER_BIN" run --new-db --backend "$backend" -- /bin/sh -c 'exit 7' >/dev/null 2>&1
  rc=$?
  set -e
  assert_eq "$rc" 7 "$backend exit status"
  # Read-only: the host root cannot be written from inside.
  set +e
  "$ISOTIER_BIN" run --new-db --backend "$backend" -- /bin/sh -c "touch /isotier-rw-test-$$" >/dev/null 2>&1
  set -e
  [ ! -e "/isotier-rw-test-$$" ] || { rm -f "/isotier-rw-test-$$"; fail "$backend: host root is writable"; }
  case $backend in bwrap | runc) want=1 ;; runsc) want=128 ;; *) want=127 ;; esac
  set +e
  "$ISOTIER_BIN" run --new-db --backend "$backend" -- /nonexistent/cmd >/dev/null 2>&1
  rc=$?
  set -e
  assert_eq "$rc" "$want" "$backend: command not found"
done
set +e
"$ISOTIER_BIN" run --new-db --backend host -- /nonexistent/cmd >/dev/null 2>&1
rc=$?
set -e
assert_eq "$rc" 127 "host: command not found"
# SIGINT mid-command: the sandbox is torn down, exit 130, nothing left running.
marker=isotier-run-sigint-$$-$RANDOM
"$ISOTIER_BIN" run --new-db --backend runc -- /bin/sh -c "sleep 30; : $marker" >/dev/null 2>&1 &
pid=$!
# Anchored: the sandboxed shell, not isotier's own argv, which holds the marker too.
inside="^/bin/sh -c sleep 30; : $marker"
for _ in $(seq 50); do pgrep -f "$inside" >/dev/null && break; sleep 0.1; done
pgrep -f "$inside" >/dev/null || fail "the command never started"
kill -INT "$pid"
set +e
wait "$pid"
rc=$?
set -e
assert_eq "$rc" 130 "interrupted run exit status"
sleep 0.2
! pgrep -f "$marker" >/dev/null || fail "left running after SIGINT: $(pgrep -af "$marker")"
! pgrep -f '^sleep 30$' >/dev/null || fail "sleep left running: $(pgrep -af '^sleep 30$')"
echo "ok: run works on every backend"
