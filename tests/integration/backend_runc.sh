#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# The runc backend for real: the probe sees CONTAINER inside (under this machine's own VM layer) and
# its capture replays to the same verdict; a read-only host view; timeout, SIGINT and a missing
# binary leave nothing behind.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
backend_setup runc
check_probe claim container
check_outer_vm
check_host_view
check_timeout 2
check_sigint 1
check_sigint 1 TERM
check_missing_binary runc
