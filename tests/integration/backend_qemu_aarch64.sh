#!/usr/bin/env bash
# isotier-test: slow; uses: challenge kvm
# SPDX-License-Identifier: Apache-2.0
# The qemu-aarch64 backend for real: qemu-system-aarch64 -M virt -cpu max under TCG booting
# Debian's arm64 kernel, the aarch64 guest init and the aarch64 probe (cross-built, static) in the
# initramfs. The probe reports MICROVM, vendor qemu, hypervisor tcg from arm64 evidence (MIDR
# implementer 0 of QEMU's emulated CPU, strong; the device tree QEMU wrote), and its capture
# (streamed over the serial console) replays to the same verdict. The x86_64 probe named by the
# caller is replaced by the aarch64 one beside it, and refused when there is none; host commands
# do not exist in the guest; a rootfs is refused; timeout, SIGINT, a missing binary and a missing
# kernel leave nothing behind.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
backend_setup qemu-aarch64
[ -x "$PROBE-aarch64" ] || fail "no aarch64 probe at $PROBE-aarch64 (make builds it)"
check_probe claim vm
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["layers"]))' "$TMP/live.json")
assert_eq "$n" "1" "qemu-aarch64: one layer (the guest sees only its own VM)"
assert_eq "$(json_get "$TMP/live.json" layers.0.vendor)" qemu "qemu-aarch64: vendor"
assert_eq "$(json_get "$TMP/live.json" layers.0.hypervisor)" tcg "qemu-aarch64: hypervisor"
assert_eq "$(json_get "$TMP/live.json" confidence)" high "qemu-aarch64: confidence"
sigs=$(json_get "$TMP/live.json" layers.0.signals)
for s in virt.midr virt.dt_compatible virt.dt_psci virt.dt_layout; do
  assert_contains "$sigs" "\"$s\"" "qemu-aarch64: VM layer signal"
done
assert_contains "$(json_get "$TMP/live.json" kernel.machine 2>/dev/null || cat "$TMP/capture-qemu-aarch64/.probe/uname")" aarch64 "qemu-aarch64: guest machine"
# create(): `isotier run` requiring MICROVM, attested; the command is the probe the initramfs holds.
"$ISOTIER_BIN" run --backend qemu-aarch64 --db "$TMP/run.db" --new-db --require-isolation MICROVM \
  --attest -- /.isotier/isotier-probe --json >"$TMP/run.json" 2>"$TMP/run.err" ||
  fail "isotier run --backend qemu-aarch64: $(tail -n 5 "$TMP/run.err")"
assert_eq "$(json_get "$TMP/run.json" observed_tier)" MICROVM "isotier run on qemu-aarch64"
assert_nothing_left "isotier run"
# An x86_64 probe with no aarch64 one beside it: refused, nothing started.
cp "$PROBE" "$TMP/lone-probe"
rc=0
out=$("$DRIVER" --backend qemu-aarch64 --minimal --probe "$TMP/lone-probe" -- /.isotier/isotier-probe 2>&1) || rc=$?
assert_eq "$rc" 69 "qemu-aarch64 with an x86_64 probe only"
assert_contains "$out" "is not an aarch64 binary" "qemu-aarch64: reason"
# The guest holds only its initramfs: a host program is not there (127), the exit status passes.
rc=0
"$DRIVER" --backend qemu-aarch64 -- /bin/true 2>"$TMP/true.err" || rc=$?
assert_eq "$rc" 127 "qemu-aarch64: a host command in the guest"
rc=0
"$DRIVER" --backend qemu-aarch64 --rootfs / -- /bin/true 2>"$TMP/rootfs.err" || rc=$?
assert_eq "$rc" 70 "qemu-aarch64 with a rootfs"
assert_contains "$(cat "$TMP/rootfs.err")" "rootfs cannot be shown" "qemu-aarch64: rootfs refusal"
assert_nothing_left "refusals"
# A guest command that never ends (the fault probe's hang mode, built for aarch64; the guest has
# no shell): killed at the timeout, or on SIGINT, with qemu and its temp dir gone.
HANGER="$ISOTIER_ROOT/$BUILD/tests/fault-probe-hang-aarch64"
[ -x "$HANGER" ] || fail "no $HANGER (make builds it)"
rc=0
start=$(date +%s)
"$DRIVER" --backend qemu-aarch64 --minimal --probe "$HANGER" --timeout 8 -- /.isotier/isotier-probe \
  >/dev/null 2>"$TMP/timeout.err" || rc=$?
assert_eq "$rc" 124 "qemu-aarch64: hang: exit"
assert_contains "$(cat "$TMP/timeout.err")" "timed out" "qemu-aarch64: timeout message"
[ $(($(date +%s) - start)) -lt 23 ] || fail "qemu-aarch64: timeout took $(($(date +%s) - start)) s"
assert_nothing_left "timeout"
rc=0
"$DRIVER" --backend qemu-aarch64 --minimal --probe "$HANGER" -- /.isotier/isotier-probe >/dev/null 2>"$TMP/sigint.err" &
pid=$!
sleep 3
kill -0 "$pid" 2>/dev/null || fail "qemu-aarch64: driver ended before SIGINT: $(cat "$TMP/sigint.err")"
kill -INT "$pid"
wait "$pid" || rc=$?
assert_eq "$rc" 130 "qemu-aarch64: driver exit after SIGINT"
assert_nothing_left "SIGINT"
echo "ok: qemu-aarch64 timeout and SIGINT"
check_missing_binary qemu-system-aarch64
rc=0
out=$(ISOTIER_GUEST_ARM64_DIR="$TMP/no-guest" "$DRIVER" --backend qemu-aarch64 --available) || rc=$?
assert_eq "$rc" "69" "qemu-aarch64 without a guest kernel"
assert_contains "$out" "no guest kernel" "qemu-aarch64: reason"
echo "ok: qemu-aarch64 without a kernel: $out"
