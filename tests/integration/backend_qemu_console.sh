#!/usr/bin/env bash
# isotier-test: fast; uses: kvm vmm
# SPDX-License-Identifier: Apache-2.0
# The qemu-microvm backend reads the guest's serial console as hostile input. A stand-in
# qemu-system-x86_64 (first in PATH) prints canned transcripts; the real backend code must relay
# the framed output, decode the capture into the capture dir, and refuse path traversal, absolute
# paths, oversize or overlong files, symlinked directories and a missing exit status, in both
# framings of the capture (per file, and one zlib stream of records).
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

# 6. The compressed capture (ISOTIER-CAPTURE-DEFLATE <raw> <compressed>): one zlib stream of
# "<relpath> <size>\n" + bytes records. deflated RAW [RAW_SIZE [PACKED_SIZE [TAIL]]] prints the
# frame; sizes default to the true ones, TAIL is appended to the compressed bytes.
deflated() {
  python3 - "$@" <<'PY'
import base64, sys, zlib
raw = sys.argv[1].encode().decode('unicode_escape').encode('latin-1')
z = zlib.compress(raw, 1) + (sys.argv[4].encode() if len(sys.argv) > 4 else b'')
rs = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else str(len(raw))
zs = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else str(len(z))
print('ISOTIER-CAPTURE-DEFLATE %s %s' % (rs, zs))
for i in range(0, len(z), 57):
    print(base64.b64encode(z[i:i + 57]).decode())
PY
}
kmsg=$(head -c 40000 /dev/urandom | base64 -w 100)
records="proc/version 6\nLinux\n.probe/empty 0\n.probe/kmsg ${#kmsg}\n${kmsg}"
run_console $'ISOTIER-START\n'"$(deflated "$records")"$'\nISOTIER-CAPTURE-END\nISOTIER-EXIT 0\n'
assert_eq "$rc" "0" "compressed capture: exit status ($(cat "$TMP/err"))"
assert_eq "$(cat "$TMP/cap/proc/version")" "Linux" "compressed capture: a small file"
assert_eq "$(cat "$TMP/cap/.probe/kmsg")" "$kmsg" "compressed capture: a file over many lines"
[ -f "$TMP/cap/.probe/empty" ] && [ ! -s "$TMP/cap/.probe/empty" ] || fail "compressed capture: empty file missing"
echo "ok: compressed capture"

# 7. Hostile compressed captures: each is refused (70, EDATA), nothing lands outside.
check_refused() { # WHAT TRANSCRIPT EXPECTED-TEXT
  run_console "$2"
  assert_eq "$rc" "70" "compressed capture, $1: accepted"
  assert_contains "$(cat "$TMP/err")" "$3" "compressed capture, $1"
  [ -z "$(ls -A "$TMP/outside")" ] || fail "compressed capture, $1: wrote outside the capture dir"
}
end=$'\nISOTIER-CAPTURE-END\nISOTIER-EXIT 0\n'
check_refused "traversal" "$(deflated '../outside/evil 4\nevil')$end" "rejected file header"
check_refused "absolute path" "$(deflated '/tmp/evil 4\nevil')$end" "rejected file header"
check_refused "raw size understated" "$(deflated 'f 4\nevil' 3)$end" "more than its header says"
check_refused "raw size overstated" "$(deflated 'f 4\nevil' 99)$end" "cut short"
check_refused "packed size understated" "$(deflated 'f 4\nevil' '' 2)$end" "more data than its header says"
check_refused "file larger than the stream" "$(deflated 'f 40\nevil')$end" "ends inside a file"
check_refused "header without newline" "$(deflated 'f 4')$end" "ends inside a file"
check_refused "data after the stream" "$(deflated 'f 4\nevil' '' '' 'junk')$end" "after the end of the stream"
check_refused "size beyond every limit" "$(deflated 'f 4\nevil' 99999999999999)$end" "larger than the capture's limits"
check_refused "no end" $'ISOTIER-START\n'"$(deflated 'f 4\nevil')"$'\nISOTIER-EXIT 0\n' "cut short"
check_refused "two streams" "$(deflated 'f 4\nevil')"$'\n'"$(deflated 'g 4\nevil')$end" "a second stream"
check_refused "a plain header inside" $'ISOTIER-CAPTURE-DEFLATE 9 9\nISOTIER-CAPTURE-FILE f 4\n'"$end" "a file header inside"
check_refused "not zlib" $'ISOTIER-CAPTURE-DEFLATE 9 12\n'"$(b64 'not a stream')$end" "compressed capture"
# A bomb: 64 MiB of zeros in a few KB, declared honestly: over the file limit, refused
# before it is written (the limit is checked on its header, not after inflating it).
bomb=$(python3 -c 'import base64,zlib
r=b"f %d\n" % (64 << 20) + bytes(64 << 20)
z=zlib.compress(r,9)
print("ISOTIER-CAPTURE-DEFLATE %d %d" % (len(r), len(z)))
[print(base64.b64encode(z[i:i+57]).decode()) for i in range(0,len(z),57)]')
check_refused "a bomb" "$bomb$end" "over the size or count limit"
[ ! -e "$TMP/cap/f" ] || [ "$(stat -c %s "$TMP/cap/f")" = 0 ] || fail "the bomb was written"
# A file sent twice would replace the first: refused in both framings.
check_refused "a file twice" "$(deflated 'f 4\nevilf 4\nevil')$end" "cannot write f"
run_console $'ISOTIER-CAPTURE-FILE f 4\n'"$(b64 evil)"$'\nISOTIER-CAPTURE-FILE f 4\n'"$(b64 evil)"$'\nISOTIER-CAPTURE-END\nISOTIER-EXIT 0\n'
assert_eq "$rc" "70" "a plain file twice"
assert_contains "$(cat "$TMP/err")" "cannot write f" "a plain file twice"
echo "ok: hostile compressed captures refused"
