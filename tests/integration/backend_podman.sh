#!/usr/bin/env bash
# isotier-test: normal; uses: challenge podman
# SPDX-License-Identifier: Apache-2.0
# The podman backend for real: rootful Podman with its default runtime (crun), the probe in a root
# directory (--rootfs), --ulimit within this machine's hard limits. The probe sees CONTAINER with
# vendor podman and its capture replays to the same verdict; the read-only host view; timeout,
# SIGINT, SIGTERM and a missing CLI leave no process, temp file or container behind.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
source "$ISOTIER_ROOT/tests/tools/engine-lib.sh"
backend_setup podman
check_probe claim container
check_outer_vm
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["layers"]))' "$TMP/live.json")
assert_eq "$(json_get "$TMP/live.json" "layers.$((n - 1)).vendor")" podman "podman: innermost vendor"
assert_engine_clean podman "probe run"
check_host_view
out=$("$ISOTIER_BIN" run --backend podman --db "$TMP/run.db" --new-db --require-isolation CONTAINER \
  -- /bin/echo run-ok 2>"$TMP/run.err") || fail "isotier run --backend podman: $(tail -n 5 "$TMP/run.err")"
assert_eq "$out" run-ok "isotier run on podman"
check_timeout 3
check_sigint 2
check_sigint 2 TERM
assert_engine_clean podman "timeout and signals"
check_missing_binary podman
