#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# runner_timeout: the test runners end every test by themselves. A unit suite that never returns
# and an integration script that sleeps are killed past their limit (ISOTIER_UNIT_TIMEOUT,
# ISOTIER_TEST_TIMEOUT) and named as timed out; the run fails; a quick neighbour still passes.
source "$ISOTIER_ROOT/tests/lib.sh"

# A "unit suite" that hangs (as a suite blocked on a pipe it holds itself would) beside one that
# passes. The hanging one ignores SIGTERM: --kill-after must end it.
mkdir -p "$TMP/unit"
printf '#!/bin/sh\ntrap "" TERM\nwhile :; do sleep 1; done\n' >"$TMP/unit/test_hangs_forever"
printf '#!/bin/sh\necho suite ok\n' >"$TMP/unit/test_quick"
chmod +x "$TMP/unit/"*
t0=$(date +%s)
set +e
ISOTIER_UNIT_TIMEOUT=2 timeout 60 bash "$ISOTIER_ROOT/tests/run-unit.sh" "$TMP/unit/test_hangs_forever" "$TMP/unit/test_quick" >"$TMP/unit.out" 2>&1
rc=$?
set -e
cat "$TMP/unit.out"
[ "$rc" != 124 ] || fail "run-unit.sh itself hung: the suite was never killed"
[ "$rc" != 0 ] || fail "a hanging unit suite passed"
assert_contains "$(cat "$TMP/unit.out")" "TIMEOUT unit suite: $TMP/unit/test_hangs_forever still running after 2 s, killed"
assert_contains "$(cat "$TMP/unit.out")" "unit suites: 1 passed, 1 failed"
[ $(($(date +%s) - t0)) -lt 30 ] || fail "the unit runner took $(($(date +%s) - t0)) s to end a 2 s suite"

# An integration script that sleeps, beside one that passes, in a folder of their own.
mkdir -p "$TMP/integ" "$TMP/locks"
printf '#!/usr/bin/env bash\n# isotier-test: fast\nsleep 600\n' >"$TMP/integ/sleeps.sh"
printf '#!/usr/bin/env bash\n# isotier-test: fast\necho fine\n' >"$TMP/integ/passes.sh"
set +e
ISOTIER_TESTS= ISOTIER_TESTS_SPEED= ISOTIER_TEST_DIR="$TMP/integ" ISOTIER_TEST_TIMEOUT=2 ISOTIER_TEST_LOCK_DIR="$TMP/locks" \
  timeout 60 bash "$ISOTIER_ROOT/tests/run-integration.sh" >"$TMP/integ.out" 2>&1
rc=$?
set -e
cat "$TMP/integ.out"
[ "$rc" != 124 ] || fail "run-integration.sh itself hung: the script was never killed"
[ "$rc" != 0 ] || fail "a hanging integration script passed"
assert_contains "$(cat "$TMP/integ.out")" "FAIL sleeps (TIMEOUT: still running after 2 s, killed"
assert_contains "$(cat "$TMP/integ.out")" "PASS passes"
if pgrep -f "$TMP/integ/sleeps.sh" >/dev/null; then fail "the killed script's process outlived the run"; fi
echo "runner_timeout: hanging suites and scripts are killed and named"
