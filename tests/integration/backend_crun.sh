#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# The crun backend for real: the OCI bundle of the runc backend run by crun (on this machine kind's
# hybrid cgroups, in a private mount namespace without the cgroup2 mount). The probe sees
# CONTAINER (under the machine's own VM layer) and its capture replays to the same verdict; the
# read-only host view; timeout, SIGINT, SIGTERM and a missing binary leave nothing behind.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
backend_setup crun >"$TMP/why"; why=$(cat "$TMP/why")
# On hybrid cgroups the availability says how crun is run; crun alone would refuse to start.
if [ "$(stat -f -c %T /sys/fs/cgroup)" = tmpfs ] && [ -n "$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null)" ]; then
  assert_contains "$why" "hybrid cgroups" "crun: availability on hybrid cgroups"
fi
check_probe claim container
check_outer_vm
check_host_view
check_timeout 2
check_sigint 1
check_sigint 1 TERM
check_missing_binary crun
# No crun state or cgroup of ours is left: crun keeps containers under the bundle's private
# state dir, which is gone with the bundle (assert_nothing_left), and our ids never reach crun's
# default root.
[ -z "$(ls /run/crun 2>/dev/null | grep isotier || true)" ] || fail "crun: containers left in /run/crun"
