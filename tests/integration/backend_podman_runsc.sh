#!/usr/bin/env bash
# isotier-test: normal; uses: vmm podman
# SPDX-License-Identifier: Apache-2.0
# The podman-runsc backend for real: rootful `podman --runtime runsc` with --runtime-flag
# platform=ptrace and network=none. The probe sees GVISOR and its capture replays to the same
# verdict; timeout and SIGINT leave no process, temp file or container behind.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
source "$ISOTIER_ROOT/tests/tools/engine-lib.sh"
backend_setup podman-runsc
check_probe claim gvisor
check_outer_vm
check_host_view
check_timeout 3
check_sigint 2
assert_engine_clean podman "probe run, timeout and signals"
