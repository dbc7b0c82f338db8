#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# The library writes nothing to stderr: a warning (a span export to a
# collector that is down) goes to the program's own log handler.
. "$ISOTIER_ROOT/tests/lib.sh"
bin=$ISOTIER_ROOT/$BUILD/tests/log-handler
[ -x "$bin" ] || fail "$bin not built"
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
"$bin" bwrap "http://127.0.0.1:$closed/v1/traces" >"$TMP/out" 2>"$TMP/err" || fail "log-handler: $(cat "$TMP/out" "$TMP/err")"
assert_contains "$(cat "$TMP/out")" "warning: OTLP export to http://127.0.0.1:$closed/v1/traces failed"
[ ! -s "$TMP/err" ] || fail "the library wrote to stderr: $(cat "$TMP/err")"
echo "ok: warnings reach the log handler, never stderr"
