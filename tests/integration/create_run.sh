#!/usr/bin/env bash
# `isotier run --backend B -- /bin/echo hi` works on every local backend over a
# read-only view of the host root, relaying output and exit status; the
# tier is in the repr.
. "$ISOTIER_ROOT/tests/lib.sh"
for backend in bwrap runc runsc qemu-microvm; do
  out=$(ISOTIER_VERBOSE=1 "$ISOTIER_BIN" run --backend "$backend" -- /bin/echo hi 2>"$TMP/err") \
    || fail "$backend: run failed: $(cat "$TMP/err")"
  assert_eq "$(tr -d '\r' <<<"$out")" hi "$backend output"
  assert_contains "$(cat "$TMP/err")" "backend=$backend tier=" "$backend repr"
  set +e
  "$ISOTIER_BIN" run --backend "$backend" -- /bin/sh -c 'exit 7' >/dev/null 2>&1
  rc=$?
  set -e
  assert_eq "$rc" 7 "$backend exit status"
  # Read-only: the host root cannot be written from inside.
  set +e
  "$ISOTIER_BIN" run --backend "$backend" -- /bin/sh -c "touch /isotier-rw-test-$$" >/dev/null 2>&1
  set -e
  [ ! -e "/isotier-rw-test-$$" ] || { rm -f "/isotier-rw-test-$$"; fail "$backend: host root is writable"; }
done
echo "ok: run works on every backend"
