#!/usr/bin/env bash
# isotier-test: fast; uses: sleep30
# SPDX-License-Identifier: Apache-2.0
# The library holds no signal state (issue 10): an application with its own
# SIGTERM handler (tests/tools/cancel-exec.c, public API only) gets the
# signal that lands during isotier_sandbox_exec, cancels the exec through its
# cancel_fd (ISOTIER_EINTR, the command killed) and runs the next exec to
# exit 0; a handler that only records leaves the exec alone. On host and
# bwrap; nothing the cancelled commands started is left running.
. "$ISOTIER_ROOT/tests/lib.sh"
prog=$ISOTIER_ROOT/$BUILD/tests/cancel-exec
[ -x "$prog" ] || fail "$prog is not built (make all)"
live_with() {
  local pid
  for pid in $(pgrep -f -- "$1"); do
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] || echo "$pid"
  done
}
ran=
for backend in host bwrap; do
  marker=$$$RANDOM
  rc=0
  timeout -k 5 120 "$prog" "$backend" "$marker" >"$TMP/out" 2>&1 || rc=$?
  if [ "$rc" = 77 ]; then
    echo "$backend skipped: $(tail -n 1 "$TMP/out")"
    continue
  fi
  [ "$rc" = 0 ] || fail "$backend: cancel-exec exited $rc: $(cat "$TMP/out")"
  cat "$TMP/out"
  assert_eq "$(grep -c '^ok: ' "$TMP/out")" 4 "$backend: every step reported"
  # `sleep 3000.MARKER` and its shell, from both cancelled execs: killed (bounded wait:
  # a sandbox's pid namespace is torn down after its bwrap is killed).
  for _ in $(seq 1 50); do [ -z "$(live_with "3000\\.$marker")" ] && break; sleep 0.1; done
  [ -z "$(live_with "3000\\.$marker")" ] \
    || fail "$backend: left running: $(ps -o pid,pgid,args -p "$(live_with "3000\\.$marker" | paste -sd,)")"
  ran="$ran $backend"
done
[ -n "$ran" ] || fail "no backend ran (host is always available)"
echo "ok: SIGTERM reached the application's handler, cancelled the exec, next exec worked on:$ran"
