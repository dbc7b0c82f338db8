#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# The host backend (no sandbox): the probe runs on this machine, itself a Firecracker microVM, and
# sees MICROVM (firecracker); guest paths in argv map to the host's; capture replays the same.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
backend_setup host
check_probe MICROVM vm
assert_eq "$(json_get "$TMP/live.json" layers.0.vendor)" "firecracker" "host: vendor"
out=$("$DRIVER" --backend host -- /bin/echo hi)
assert_eq "$out" "hi" "host: /bin/echo hi"
rc=0; "$DRIVER" --backend host -- /bin/sh -c 'exit 9' 2>/dev/null || rc=$?
assert_eq "$rc" "9" "host: exit status"
rc=0; "$DRIVER" --backend host -- /nonexistent/cmd 2>/dev/null || rc=$?
assert_eq "$rc" "127" "host: command not found"
check_timeout 2
check_sigint 1
check_sigint 1 TERM
