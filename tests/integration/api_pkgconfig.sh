#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# The public API as an outside user sees it: one header, pkg-config, the
# shared library; the example refuses an indefensible tier and runs an
# honest one, with the tier in the repr.
. "$ISOTIER_ROOT/tests/lib.sh"
export PKG_CONFIG_PATH=$ISOTIER_ROOT/$BUILD
cc -std=c11 -Wall -Wextra -Werror "$ISOTIER_ROOT/reference/examples/require_microvm.c" \
  $(pkg-config --cflags --libs isotier) -o "$TMP/require_microvm" \
  || fail "the example does not build against the installed header and pkg-config file"
export LD_LIBRARY_PATH=$ISOTIER_ROOT/$BUILD
set +e
"$TMP/require_microvm" bwrap MICROVM /bin/echo no >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
assert_eq "$rc" 78 "refusal exit"
assert_contains "$(cat "$TMP/err")" "ConfigurationError: backend bwrap resolves to CONTAINER, weaker than the required MICROVM"
[ ! -s "$TMP/out" ] || fail "refused sandbox produced output"
out=$("$TMP/require_microvm" runc CONTAINER /bin/echo yes)
assert_contains "$out" "backend=runc tier=CONTAINER"
assert_contains "$out" "yes"
echo "ok: public API via pkg-config"
