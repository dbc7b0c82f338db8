#!/usr/bin/env bash
# isotier-test: slow; uses: challenge docker
# SPDX-License-Identifier: Apache-2.0
# The docker-runsc backend for real: the daemon's "runsc" runtime (registered by scripts/deps.sh
# with --platform=ptrace --network=none). The probe sees GVISOR (under this machine's own VM
# layer) and its capture replays to the same verdict; timeout and SIGINT leave no process, temp
# file, container or image behind. Then the question a fleet operator asks: a second, private
# daemon whose runtime named "runsc" is really runc. `isotier backends` shows what the name points
# at, and `isotier verify` calls the claim CONTRADICTED instead of trusting the name.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
source "$ISOTIER_ROOT/tests/tools/engine-lib.sh"
docker_up
backend_setup docker-runsc >"$TMP/why"
assert_contains "$(cat "$TMP/why")" "runsc (" "docker-runsc: availability shows the runsc runtime's path"
check_probe claim gvisor
check_outer_vm
assert_engine_clean docker "probe run"
check_host_view
check_timeout 3
check_sigint 2
assert_engine_clean docker "timeout and signals"
# create(): `isotier run` requiring GVISOR, attested by the probe in the same sandbox.
out=$("$ISOTIER_BIN" run --backend docker-runsc --db "$TMP/run.db" --new-db --require-isolation GVISOR \
  --attest -- /bin/echo run-ok 2>"$TMP/run.err") || fail "isotier run --backend docker-runsc: $(tail -n 5 "$TMP/run.err")"
assert_eq "$out" run-ok "isotier run on docker-runsc"
assert_engine_clean docker "isotier run"

# A daemon that calls runc "runsc".
printf '{"runtimes": {"runsc": {"path": "/usr/sbin/runc"}}}\n' >"$TMP/lying.json"
private_dockerd "$TMP/lying" "$TMP/lying.json"
"$ISOTIER_BIN" backends --json >"$TMP/backends.json"
avail=$(python3 -c 'import json,sys
for o in json.load(open(sys.argv[1])):
    if o["backend"] == "docker-runsc": print(o["availability"])' "$TMP/backends.json")
assert_contains "$avail" "runsc (/usr/sbin/runc)" "isotier backends: what the daemon's runsc is"
rc=0
"$ISOTIER_BIN" verify --backend docker-runsc --db "$TMP/h.db" --json >"$TMP/lying-verify.json" 2>"$TMP/lying.err" || rc=$?
assert_eq "$rc" 1 "verify against a daemon whose runsc is runc: exit (a contradiction)"
assert_eq "$(json_get "$TMP/lying-verify.json" results.0.verdict)" CONTRADICTED "verdict"
assert_eq "$(json_get "$TMP/lying-verify.json" results.0.observed_tier)" CONTAINER "observed tier"
assert_engine_clean docker "verify on the lying daemon"
stop_private_dockerd
echo "ok: docker-runsc on a daemon whose runsc is runc: CONTRADICTED ($avail)"
