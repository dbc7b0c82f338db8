#!/usr/bin/env bash
# isotier-test: normal; uses: challenge nspawn
# SPDX-License-Identifier: Apache-2.0
# The nspawn backend for real: systemd-nspawn (--register=no --keep-unit, the command as PID 2).
# The probe sees CONTAINER (under the machine's own VM layer) named systemd-nspawn, and its capture
# replays to the same verdict; the read-only host view, exit status, timeout, SIGINT, SIGTERM and a
# missing binary leave no process, no temp dir, no machine and no nspawn lock behind. `verify`
# CONFIRMS the CONTAINER claim, and decides that the sandbox runs on the host's kernel although
# nspawn gives it a boot_id of its own (nspawn's default).
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
command -v systemd-nspawn >/dev/null || skip "systemd-nspawn is not installed (Debian package systemd-container)"
backend_setup nspawn

# What nspawn itself could leave on the host: its machine registrations and lock files, a
# container whose stub init survived nspawn. Counted before, compared after every check.
nspawn_traces() {
  { ls /run/systemd/machines 2>/dev/null | grep -F isotier || true; } | wc -l
  { find /run/systemd/nspawn -mindepth 2 2>/dev/null || true; } | wc -l
  { pgrep -x '(sd-stubinit)' 2>/dev/null || true; } | wc -l
}
traces_before=$(nspawn_traces)
check_no_traces() {
  local i now
  for i in $(seq 1 50); do  # a killed container's processes are reaped by init
    now=$(nspawn_traces)
    [ "$now" = "$traces_before" ] && break
    sleep 0.1
  done
  assert_eq "$(echo $now)" "$(echo $traces_before)" "nspawn: $1: machines/locks/stub inits left (before vs after)"
  # With systemd as PID 1, machined is the authority: no machine of ours may be listed.
  if machinectl list --no-legend >"$TMP/machines" 2>/dev/null; then
    ! grep -q isotier "$TMP/machines" || fail "nspawn: $1: machinectl lists: $(cat "$TMP/machines")"
  fi
}

check_probe claim container
check_outer_vm
assert_eq "$(json_get "$TMP/live.json" layers.1.vendor)" "systemd-nspawn" "nspawn: container vendor"
check_no_traces "probe run"
check_host_view
check_no_traces "host view"

# stdin reaches the command, and the caller's environment does not reach PID 1's (nspawn's stub
# init is forked from nspawn: its /proc/1/environ is whatever nspawn was given).
# (`isotier run` passes its stdin on; the driver gives none.)
out=$(ISOTIER_TEST_SECRET="$MARK" "$ISOTIER_BIN" run --backend nspawn --db "$TMP/run.db" --new-db -- \
  /bin/sh -c 'read -r line; echo "in:$line"; tr "\0" "\n" </proc/1/environ' <<<"piped-$MARK" 2>"$TMP/env.err") ||
  fail "nspawn: stdin run: $(tail -n 5 "$TMP/env.err")"
assert_contains "$out" "in:piped-$MARK" "nspawn: stdin"
! grep -q ISOTIER_TEST_SECRET <<<"$out" || fail "nspawn: the caller's environment is in PID 1's: $out"
# The boot_id nspawn shows inside is its own, not the host's (what the verdict must see through).
inner_boot=$("$DRIVER" --backend nspawn -- /bin/cat /proc/sys/kernel/random/boot_id 2>/dev/null)
[ -n "$inner_boot" ] && [ "$inner_boot" != "$(cat /proc/sys/kernel/random/boot_id)" ] ||
  fail "nspawn: expected a boot_id of nspawn's own inside, got '$inner_boot'"
check_no_traces "stdin and boot_id"

check_timeout 2
check_no_traces "timeout"
check_sigint 1
check_no_traces "SIGINT"
check_sigint 1 TERM
check_no_traces "SIGTERM"
check_missing_binary systemd-nspawn
out=$(PATH=/nonexistent "$DRIVER" --backend nspawn --available || true)
assert_contains "$out" "systemd-container" "nspawn: unavailable reason names the package"

# verify: CONFIRMED as CONTAINER, the kernel decided shared.
db=$TMP/nspawn.db
rc=0
"$ISOTIER_BIN" verify --backend nspawn --db "$db" --json >"$TMP/v.json" 2>"$TMP/v.err" || rc=$?
assert_eq "$rc" 0 "nspawn: verify exit ($(tail -n 5 "$TMP/v.err"))"
assert_eq "$(json_get "$TMP/v.json" results.0.verdict)" "CONFIRMED" "nspawn: verdict"
assert_eq "$(json_get "$TMP/v.json" results.0.observed_tier)" "CONTAINER" "nspawn: observed tier"
assert_eq "$(json_get "$TMP/v.json" results.0.claimed_tier)" "CONTAINER" "nspawn: claimed tier"
assert_nothing_left "verify"
check_no_traces "verify"
echo "ok: nspawn verify: CONFIRMED CONTAINER ($(json_get "$TMP/v.json" results.0.kernel_relation))"
# Last, so every check above has run: nspawn's own boot_id must not pass for a kernel of the
# sandbox's own; the verifier decides sharing from the host's side.
assert_contains "$(json_get "$TMP/v.json" results.0.reason)" "runs on the host's kernel" "nspawn: verify reason"
assert_eq "$(json_get "$TMP/v.json" results.0.kernel_relation)" "shared" "nspawn: kernel relation"
echo "ok: nspawn on the host's kernel: shared"
