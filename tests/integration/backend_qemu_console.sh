#!/usr/bin/env bash
# isotier-test: fast; uses: kvm vmm
# SPDX-License-Identifier: Apache-2.0
# The qemu-microvm backend reads the guest's serial console as hostile input. A stand-in
# qemu-system-x86_64 (first in PATH) prints canned transcripts; the real backend code must relay
# the framed output, decode the capture into the capture dir, and refuse path traversal, absolute
# paths, oversize or overlong files, symlinked directories and a missing exit status.
source "$ISOTIER_ROOT/tests/lib.sh"
DRIVER="$ISOTIER_ROOT/$BUILD/tests/backend-run"
[ -x "$DRIVER" ] || fail "$DRIVER not built"
mkdir -p "$TMP/bin" "$TMP/guest" "$TMP/outside"
: >"$TMP/guest/vmlinux"
: >"$TMP/guest-init"
export ISOTIER_GUEST_DIR="$TMP/guest" ISOTIER_GUEST_INIT="$TMP/guest-init" ISOTIER_QEMU_ACCEL=tcg
export PATH="$TMP/bin:$PATH"
b64() { printf '%s' "$1" | base64 -w0; }

# run_console TRANSCRIPT -> runs the backend against a fake qemu printing TRANSCRIPT.
run_console() {
  printf '%s' "$1" >"$TMP/transcript"
  cat >"$TMP/bin/qemu-system-x86_64" <<SH
#!/bin/sh
# fake qemu: checks it was asked for a microvm with our initramfs, prints the transcript
case "\$*" in *"-M microvm"*"-initrd "*) ;; *) echo "unexpected args: \$*" >&2; exit 1;; esac
cat "$TMP/transcript"
SH
  chmod +x "$TMP/bin/qemu-system-x86_64"
  rm -rf "$TMP/cap"; mkdir "$TMP/cap"
  rc=0
  "$DRIVER" --backend qemu-microvm --minimal --capture "$TMP/cap" -- /bin/true >"$TMP/out" 2>"$TMP/err" || rc=$?
}

# 1. A good transcript: kernel noise, \r\n endings, stdout and stderr frames, a capture tree.
good=$'[    0.1] noise\r\n\r\nISOTIER-START\r\nISOTIER-OUT '"$(b64 'hello ')"$'\r\n'
good+="junk ISOTIER-OUT $(b64 $'world\n')"$'\r\n'
good+="ISOTIER-ERR $(b64 $'warn\n')"$'\n'
good+=$'ISOTIER-CAPTURE-FILE proc/version 6\r\n'"$(b64 $'Linux\n')"$'\r\n'
good+=$'ISOTIER-CAPTURE-FILE .probe/empty 0\nISOTIER-CAPTURE-END\r\nISOTIER-EXIT 3\r\n[ 2.0] reboot: Restarting system\r\n'
run_console "$good"
assert_eq "$rc" "3" "good transcript: exit status"
assert_eq "$(cat "$TMP/out")" "hello world" "good transcript: stdout"
assert_eq "$(grep -v exit-status "$TMP/err")" "warn" "good transcript: stderr"
assert_eq "$(cat "$TMP/cap/proc/version")" "Linux" "good transcript: capture file"
[ -f "$TMP/cap/.probe/empty" ] && [ ! -s "$TMP/cap/.probe/empty" ] || fail "empty capture file missing"
echo "ok: good transcript"

# 2. Hostile capture headers: each is refused (rc 70, EDATA) and nothing lands outside.
for hdr in "../outside/evil 4" "/tmp/evil 4" "a/../../evil 4" "big 99999999999" "two words 4" "a//b 4" "./x 4"; do
  run_console $'ISOTIER-START\nISOTIER-CAPTURE-FILE '"$hdr"$'\n'"$(b64 evil)"$'\nISOTIER-CAPTURE-END\nISOTIER-EXIT 0\n'
  assert_eq "$rc" "70" "header '$hdr' accepted"
  assert_contains "$(cat "$TMP/err")" "EDATA" "header '$hdr'"
  [ -z "$(ls -A "$TMP/outside")" ] || fail "header '$hdr' wrote outside the capture dir"
  [ ! -e /tmp/evil ] || fail "header '$hdr' wrote /tmp/evil"
done
echo "ok: hostile capture headers refused"

# 3. More data than the header says; bad base64; a symlinked directory inside the capture dir.
run_console $'ISOTIER-CAPTURE-FILE f 2\n'"$(b64 toolong)"$'\nISOTIER-CAPTURE-END\nISOTIER-EXIT 0\n'
assert_eq "$rc" "70" "overlong capture file"
assert_contains "$(cat "$TMP/err")" "more data than its header" "overlong capture file"
run_console $'ISOTIER-CAPTURE-FILE f 3\n@@@@\nISOTIER-CAPTURE-END\nISOTIER-EXIT 0\n'
assert_eq "$rc" "70" "bad base64"
printf '%s' $'ISOTIER-CAPTURE-FILE sub/x 4\n'"$(b64 evil)"$'\nISOTIER-CAPTURE-END\nISOTIER-EXIT 0\n' >"$TMP/transcript"
rm -rf "$TMP/cap"; mkdir "$TMP/cap"; ln -s "$TMP/outside" "$TMP/cap/sub"
rc=0; "$DRIVER" --backend qemu-microvm --minimal --capture "$TMP/cap" -- /bin/true >/dev/null 2>"$TMP/err" || rc=$?
assert_eq "$rc" "70" "symlinked capture subdir"
[ -z "$(ls -A "$TMP/outside")" ] || fail "capture followed a symlink out of the capture dir"
echo "ok: overlong, bad base64, symlink refused"

# 4. No exit status (the guest died): an error naming it; a guest init failure is reported.
run_console $'[ 0.5] Kernel panic - not syncing: oops\n'
assert_eq "$rc" "70" "no exit status"
assert_contains "$(cat "$TMP/err")" "no exit status from the guest" "no exit status"
run_console $'ISOTIER-FAIL mount 9p isotier-root: No such device\n'
assert_eq "$rc" "70" "guest init failure"
assert_contains "$(cat "$TMP/err")" "mount 9p isotier-root" "guest init failure"
# 5. A line of 100 KB without a newline, then a valid end: bounded, still parsed.
run_console "$(head -c 100000 /dev/zero | tr '\0' x)"$'\nISOTIER-EXIT 0\n'
assert_eq "$rc" "0" "overlong console line"
echo "ok: missing exit status, guest failure, overlong line"
