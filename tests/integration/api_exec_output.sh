#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# Exec output through callbacks (isotier_exec_opts version 2, on_output) on
# real sandboxes: every byte of stdout and stderr reaches the callback, a
# callback that wants no more stops delivery without blocking the command,
# a program built against version 1 of the struct keeps working, an unknown
# version is refused (tests/tools/exec-output.c, public API only).
. "$ISOTIER_ROOT/tests/lib.sh"
bin=$ISOTIER_ROOT/$BUILD/tests/exec-output
[ -x "$bin" ] || fail "$bin not built"
ran=0
for backend in bwrap runc; do
  if ! "$ISOTIER_BIN" backends --json | python3 -c '
import json, sys
rows = {r["backend"]: r for r in json.load(sys.stdin)}
sys.exit(0 if rows.get(sys.argv[1], {}).get("available") else 1)' "$backend"; then
    echo "$backend: not available here"
    continue
  fi
  "$bin" "$backend" >"$TMP/out" 2>"$TMP/err" || fail "$backend: $(cat "$TMP/out" "$TMP/err")"
  assert_contains "$(cat "$TMP/out")" "callback: rc 0 status 7 stdout 300000 stderr 'to-stderr"
  assert_contains "$(cat "$TMP/out")" "version 99: rc EINVAL"
  [ ! -s "$TMP/err" ] || fail "$backend: the library wrote to stderr: $(cat "$TMP/err")"
  echo "$backend: $(tr '\n' ';' <"$TMP/out")"
  ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || skip "neither bwrap nor runc is available (scripts/deps.sh installs both)"
echo "ok: exec output through on_output on $ran backend(s)"
