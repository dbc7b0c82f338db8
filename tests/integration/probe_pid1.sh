#!/usr/bin/env bash
# isotier-test: normal; uses: vmm
# SPDX-License-Identifier: Apache-2.0
# The probe as PID 1 of an initramfs, with nothing else in it: Debian's kernel
# under qemu -M microvm (TCG) boots it as /init; it mounts what it needs,
# prints its report between markers and powers the VM off. (The qemu-microvm
# backend boots its own guest init instead; this is the probe's own init mode.)
. "$ISOTIER_ROOT/tests/lib.sh"
guest=${ISOTIER_GUEST_DIR:-$ISOTIER_ROOT/.deps/guest}
kernel=$guest/vmlinux; [ -r "$kernel" ] || kernel=$guest/vmlinuz
[ -r "$kernel" ] || skip "no guest kernel in $guest (scripts/deps.sh fetches it)"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing"
command -v cpio >/dev/null || skip "cpio missing"
mkdir "$TMP/initramfs"
cp "$ISOTIER_PROBE" "$TMP/initramfs/init"
(cd "$TMP/initramfs" && echo init | cpio -o -H newc --quiet | gzip) >"$TMP/init.cpio.gz"
# Arguments after "--" on the kernel command line reach /init as argv.
timeout --kill-after=5 120 qemu-system-x86_64 -M microvm -accel tcg -cpu max -m 256 -smp 1 \
  -nodefaults -no-user-config -display none -serial stdio -no-reboot \
  -kernel "$kernel" -initrd "$TMP/init.cpio.gz" \
  -append "console=ttyS0 panic=-1 quiet loglevel=1 tsc_early_khz=2000000 tsc=reliable lpj=8000000 no_timer_check -- --json" \
  </dev/null >"$TMP/console" 2>"$TMP/qemu.err" || fail "qemu exited $?: $(tail -5 "$TMP/qemu.err")"
tr -d '\r' <"$TMP/console" | sed -n '/^----- BEGIN ISOTIER PROBE -----$/,/^----- END ISOTIER PROBE -----$/p' \
  | sed '1d;$d' >"$TMP/report.json"
[ -s "$TMP/report.json" ] || fail "no report between the markers: $(tail -c 2000 "$TMP/console")"
python3 - "$TMP/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "isotier.probe/1", d["schema"]
assert d["observed_tier"] == "MICROVM", (d["observed_tier"], d["layers"])
vm = d["layers"][-1]
assert vm["kind"] == "vm" and vm["vendor"] == "qemu" and vm["hypervisor"] == "tcg", vm
assert d["kernel"]["release"].endswith("-amd64"), d["kernel"]["release"]
PY
echo "ok: probe as /init: MICROVM qemu/tcg, and the VM powered off"
