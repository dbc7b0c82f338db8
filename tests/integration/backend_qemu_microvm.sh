#!/usr/bin/env bash
# isotier-test: slow; uses: kvm vmm
# SPDX-License-Identifier: Apache-2.0
# The qemu-microvm backend for real (TCG here): the probe sees MICROVM, vendor qemu, hypervisor
# tcg, and its capture (one zlib stream on QEMU's debug port) replays to the same verdict; the
# host root over virtio-9p read-only; timeout, SIGINT and a missing binary leave nothing behind.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
backend_setup qemu-microvm
# ISOTIER_QEMU_DEBUG copies the guest's framed lines to stderr: the guest init sent its capture
# as one compressed stream (a build that lost zlib would send it file by file, 3x the bytes).
ISOTIER_QEMU_DEBUG=1 check_probe claim vm
grep -q '^ISOTIER-CAPTURE-DEFLATE [0-9]* [0-9]*' "$TMP/live.err" || fail "qemu-microvm: no compressed capture"
! grep -q '^ISOTIER-CAPTURE-FILE ' "$TMP/live.err" || fail "qemu-microvm: a capture sent file by file"
# The probe streamed its capture to the init (descriptor 3, probes/capture_stream.c) before its
# report: the capture went out first (while a challenge's sampler would still be waiting out its
# window), and replays all the same (above).
end=$(awk '/^ISOTIER-CAPTURE-END/ {print NR; exit}' "$TMP/live.err")
out=$(awk '/^ISOTIER-OUT / {print NR; exit}' "$TMP/live.err")
[ -n "$end" ] && [ -n "$out" ] && [ "$end" -lt "$out" ] ||
  fail "qemu-microvm: the capture did not precede the report (end line ${end:-none}, report ${out:-none})"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["layers"]))' "$TMP/live.json")
assert_eq "$n" "1" "qemu-microvm: one layer (the guest sees only its own VM)"
assert_eq "$(json_get "$TMP/live.json" layers.0.vendor)" "qemu" "qemu-microvm: vendor"
# TCG unless KVM was forced or the trial found it working: the decision is cached in the state
# directory (reference/backends/kvm_trial.c: STATE/cache/kvm-<key>, "kvm" or "tcg").
state=${ISOTIER_STATE_DIR:-}
[ -n "$state" ] || { [ "$(id -u)" = 0 ] && state=/var/lib/isotier; } ||
  state=${XDG_STATE_HOME:-$HOME/.local/state}/isotier
if [ "${ISOTIER_QEMU_ACCEL:-}" != kvm ] && ! grep -qx kvm "$state"/cache/kvm-* 2>/dev/null; then
  assert_eq "$(json_get "$TMP/live.json" layers.0.hypervisor)" "tcg" "qemu-microvm: hypervisor"
fi
check_host_view
check_timeout 8
check_sigint 2
check_stuck_reader 15
check_missing_binary qemu-system-x86_64
# No guest kernel: unavailable with the reason, nothing started.
rc=0
out=$(ISOTIER_GUEST_DIR="$TMP/no-guest" "$DRIVER" --backend qemu-microvm --available) || rc=$?
assert_eq "$rc" "69" "qemu-microvm without a guest kernel"
assert_contains "$out" "no guest kernel" "qemu-microvm: reason"
echo "ok: qemu-microvm without a kernel: $out"
