#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# probe_native: isotier-probe run directly on this machine (no sandbox launcher here: the
# bwrap/runc/runsc/qemu runs belong to the backend tests). On this machine kind (a Firecracker
# microVM with a stray /.dockerenv) it must say MICROVM/firecracker with /.dockerenv as a conflict;
# its capture must replay to the same verdict; it must work as non-root and without /proc; bad
# arguments are errors; symlinks in a capture or replay directory are never followed.
source "$ISOTIER_ROOT/tests/lib.sh"
probe=${ISOTIER_PROBE:?}
[ -x "$probe" ] || fail "no probe binary at $probe (run make first)"
schema="$ISOTIER_ROOT/probes/probe.schema.json"

# Checks a report against probes/probe.schema.json (jsonschema when installed, else the
# required fields and enums by hand) and prints "tier confidence layers conflicts".
check_report() {
  python3 - "$1" "$schema" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
schema = json.load(open(sys.argv[2]))
try:
    import jsonschema
    jsonschema.validate(doc, schema)
except ImportError:
    for k in schema["required"]:
        assert k in doc, "missing " + k
    assert doc["observed_tier"] in schema["properties"]["observed_tier"]["enum"]
ids = {s["id"] for s in doc["signals"]}
for l in doc["layers"]:
    assert set(l["signals"]) <= ids, "layer cites an unknown signal"
for c in doc["conflicts"]:
    assert c["signal"] in ids and set(c["overruled_by"]) <= ids
layers = ",".join("%s:%s%s" % (l["kind"], l["vendor"], ":" + l["hypervisor"] if "hypervisor" in l else "")
                  for l in doc["layers"])
print(doc["observed_tier"], doc["confidence"], layers or "-", ",".join(c["signal"] for c in doc["conflicts"]) or "-")
EOF
}

# cpuid_hypervisor: CPUID leaf 0x40000000's 12-byte vendor as this machine shows it (empty when
# the CPU has no hypervisor leaf, the compiler is missing or this is not x86).
cpuid_hypervisor() {
  local cc=${CC:-cc}
  case $(uname -m) in x86_64|i?86) ;; *) return 0 ;; esac
  command -v "$cc" >/dev/null || return 0
  cat >"$TMP/cpuid.c" <<'EOC'
#include <cpuid.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	unsigned a, b, c, d;
	char v[13] = {0};
	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31)))
		return 0; /* no hypervisor bit */
	__cpuid(0x40000000, a, b, c, d);
	memcpy(v, &b, 4), memcpy(v + 4, &c, 4), memcpy(v + 8, &d, 4);
	fputs(v, stdout);
	return 0;
}
EOC
  "$cc" -o "$TMP/cpuid" "$TMP/cpuid.c" 2>/dev/null && "$TMP/cpuid"
}

# 1. Native run.
"$probe" --json >"$TMP/native.json" || fail "probe exited $?"
native=$(check_report "$TMP/native.json") || fail "native report invalid"
echo "native: $native"
read -r tier conf layers conflicts <<<"$native"
firecracker=no
if dmesg 2>/dev/null | grep -q 'ACPI: .*FIRECK' || head -c 16 /sys/firmware/acpi/tables/DSDT 2>/dev/null | grep -q FIRECK; then
  firecracker=yes
fi
if [ "$firecracker" = yes ]; then
  assert_eq "$tier" MICROVM "native tier on a Firecracker microVM"
  assert_eq "$conf" high "native confidence"
  # The hypervisor under Firecracker is whatever this machine's CPUID says (KVM on one host,
  # bhyve on another): read it here, never assume the machine the test was written on.
  hv=$(cpuid_hypervisor)
  case $hv in
    KVMKVMKVM*|"Linux KVM Hv"*) want_hv=kvm ;;
    "bhyve bhyve "*|"BHyVE BHyVE "*) want_hv=bhyve ;;
    TCGTCGTCGTCG*) want_hv=tcg ;;
    "Microsoft Hv"*) want_hv=hyperv ;;
    *) want_hv="" ;;
  esac
  echo "cpuid hypervisor vendor: '${hv:-none}' -> '${want_hv:-?}'"
  if [ -n "$want_hv" ]; then
    assert_eq "$layers" "vm:firecracker:$want_hv" "native layers"
  else
    case $layers in vm:firecracker:?*) ;; *) fail "native layers: want vm:firecracker:<hypervisor>, got $layers" ;; esac
  fi
  if [ -e /.dockerenv ]; then
    assert_contains "$conflicts" container.dockerenv "the stray /.dockerenv is a conflict"
  fi
  # The vm layer rests on the CPU itself, and every question was answered.
  assert_eq "$(json_get "$TMP/native.json" layers.0.confidence)" high "vm layer confidence"
  assert_eq "$(json_get "$TMP/native.json" layers.0.evidence)" hardware "vm layer evidence class"
  assert_eq "$(json_get "$TMP/native.json" unanswered)" "[]" "no unanswered question natively"
else
  echo "note: not a Firecracker microVM; only the machine-independent checks run"
  case $tier in UNKNOWN|NONE|CONTAINER|GVISOR|MICROVM) ;; *) fail "bad tier $tier" ;; esac
fi

# 2. Capture, then replay from the capture alone: same verdict.
"$probe" --json --capture "$TMP/cap" >"$TMP/live.json" || fail "capture run failed"
[ -s "$TMP/cap/.probe/uname" ] && [ -s "$TMP/cap/.probe/syscalls" ] || fail "capture lacks .probe inputs"
"$probe" --json --root "$TMP/cap" >"$TMP/replay.json" || fail "replay failed"
assert_eq "$(check_report "$TMP/replay.json")" "$(check_report "$TMP/live.json")" "replay verdict"

# 3. --emit-capture with --markers: the stream decodes to the captured bytes and replays the same.
"$probe" --json --markers --emit-capture >"$TMP/emit.out" || fail "emit run failed"
python3 - "$TMP/emit.out" "$TMP/emitted" "$TMP/emit.json" <<'EOF' || fail "emit stream malformed"
import base64, os, sys
lines = open(sys.argv[1], "rb").read().decode().replace("\r\n", "\n").split("\n")
b, e = lines.index("----- BEGIN ISOTIER PROBE -----"), lines.index("----- END ISOTIER PROBE -----")
open(sys.argv[3], "w").write("\n".join(lines[b + 1:e]))
i, n = e + 1, 0
while i < len(lines):
    if lines[i].startswith("ISOTIER-CAPTURE-FILE "):
        _, rel, size = lines[i].split(" ")
        assert not rel.startswith("/") and ".." not in rel, rel
        body = []
        i += 1
        while lines[i] != "ISOTIER-CAPTURE-END":
            assert len(lines[i]) <= 76
            body.append(lines[i]); i += 1
        data = base64.b64decode("".join(body))
        assert len(data) == int(size), rel
        p = os.path.join(sys.argv[2], rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "wb").write(data); n += 1
    else:
        assert lines[i] == "", "stray line: %r" % lines[i]
    i += 1
assert n >= 5, n
EOF
"$probe" --json --root "$TMP/emitted" >"$TMP/emit-replay.json" || fail "replay of the emitted capture failed"
assert_eq "$(check_report "$TMP/emit-replay.json")" "$(check_report "$TMP/emit.json")" "emitted capture verdict"

# 4. Non-root.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  # A copy in a world-searchable directory: the checkout may not be reachable by uid 65534.
  mkdir -p "$TMP/pub" && chmod 755 "$TMP" "$TMP/pub" && cp "$probe" "$TMP/pub/isotier-probe"
  (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/pub/isotier-probe" --json) \
    >"$TMP/nobody.json" || fail "non-root run exited $?"
  nobody=$(check_report "$TMP/nobody.json") || fail "non-root report invalid"
  echo "non-root: $nobody"
  [ "$firecracker" = yes ] && assert_eq "${nobody%% *}" MICROVM "non-root tier"
else
  echo "note: not root, the probe already ran unprivileged above"
fi

# 5. No /proc at all (a chroot holding only the probe, in a private mount namespace): UNKNOWN, exit 0.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
  mkdir -p "$TMP/tiny"
  cp "$probe" "$TMP/tiny/isotier-probe"
  unshare -m chroot "$TMP/tiny" /isotier-probe --json >"$TMP/noproc.json" || fail "no-/proc run exited $?"
  noproc=$(check_report "$TMP/noproc.json") || fail "no-/proc report invalid"
  echo "no /proc: $noproc"
  assert_eq "${noproc%% *}" UNKNOWN "tier without /proc"
  unshare -m chroot "$TMP/tiny" /isotier-probe >"$TMP/noproc.txt" || fail "no-/proc human run exited $?"
  assert_contains "$(cat "$TMP/noproc.txt")" "observed tier UNKNOWN"
  # PID 1 of a fresh PID namespace on a tmpfs root without /proc looks like an initramfs /init:
  # it mounts /proc, reports between markers, and must exit 0 without "rebooting" (in a child
  # PID namespace reboot(2) would kill it with SIGINT).
  mkdir -p "$TMP/initish"
  unshare -m -p -f sh -c "mount -t tmpfs none '$TMP/initish' && cp '$probe' '$TMP/initish/init' && exec chroot '$TMP/initish' /init" >"$TMP/initish.txt" ||
    fail "PID-1 run without /proc exited $?"
  assert_contains "$(head -n 1 "$TMP/initish.txt")" "----- BEGIN ISOTIER PROBE -----"
  assert_contains "$(cat "$TMP/initish.txt")" "----- END ISOTIER PROBE -----"
  assert_contains "$(cat "$TMP/initish.txt")" "observed tier CONTAINER"
else
  not_run="the no-/proc checks (need root for unshare + chroot)"
fi

# 6. A seccomp filter that kills on sysfs(2) and answers modify_ldt with EPERM: the probe survives
#    (the call ran in a child), records SIGSYS, and the EPERM does not make it gVisor.
cc=${CC:-cc}
if command -v "$cc" >/dev/null && [ -e /usr/include/linux/seccomp.h ]; then
  cat >"$TMP/seckill.c" <<'EOF2'
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sysfs, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_modify_ldt, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {sizeof(f) / sizeof(f[0]), f};
	(void)argc;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p))
		return 2;
	execv(argv[1], argv + 1);
	return 3;
}
EOF2
  "$cc" -o "$TMP/seckill" "$TMP/seckill.c" || fail "cannot build the seccomp helper"
  "$TMP/seckill" "$probe" --json >"$TMP/seccomp.json" || fail "probe under a killing seccomp filter exited $?"
  sec=$(check_report "$TMP/seccomp.json") || fail "seccomp report invalid"
  echo "seccomp: $sec"
  [ "${sec%% *}" != GVISOR ] || fail "a seccomp EPERM made it GVISOR"
  [ "$firecracker" = yes ] && assert_eq "${sec%% *}" MICROVM "tier under seccomp"
  assert_eq "$(json_get "$TMP/seccomp.json" signals | python3 -c 'import json,sys; print([s["value"] for s in json.load(sys.stdin) if s["id"]=="syscall.sysfs"][0])')" SIGSYS "killed call"
else
  echo "note: no C compiler or seccomp headers: seccomp check not run"
fi

# 7. Usage and data errors: each a nonzero sysexits status with a message, never a normal-looking
#    UNKNOWN report.
# expect_exit STATUS TEXT ARGS...: the probe exits STATUS, prints TEXT on stderr, no report.
expect_exit() {
  local want=$1 text=$2 rc
  shift 2
  set +e
  "$probe" "$@" >"$TMP/err.out" 2>"$TMP/err.txt"
  rc=$?
  set -e
  assert_eq "$rc" "$want" "exit status of: isotier-probe $*"
  assert_contains "$(cat "$TMP/err.txt")" "$text" "message of: isotier-probe $*"
  if grep -q "observed" "$TMP/err.out"; then fail "isotier-probe $* printed a report"; fi
}
expect_exit 64 "unknown argument" --bogus
expect_exit 66 "cannot open it" --json --root "$TMP/does-not-exist"
expect_exit 66 "not a directory" --json --root /etc/passwd
expect_exit 64 "not an option" --root --json
expect_exit 64 "not an option" --capture --json
expect_exit 64 "missing value" --json --root
expect_exit 64 "exclusive" --root "$TMP/cap" --capture "$TMP/cap-other"
expect_exit 73 "cannot create it" --capture /proc/nope
expect_exit 73 "not a directory" --capture /etc/passwd
[ ! -e "$TMP/cap-other" ] || fail "--root with --capture created the capture directory"
assert_contains "$("$probe" --help)" "exit status:" "--help documents the exit statuses"

# 8. Symlinks in a capture directory are never written through (the reviewer's repro): a capture
#    directory that is not empty is refused, and nothing appears in the victim directory.
mkdir -p "$TMP/sym/cap" "$TMP/sym/victim"
ln -s "$TMP/sym/victim" "$TMP/sym/cap/proc"
expect_exit 73 "not empty" --json --capture "$TMP/sym/cap"
assert_eq "$(ls -A "$TMP/sym/victim")" "" "nothing written through cap/proc -> victim"
ln -s "$TMP/sym/victim" "$TMP/sym/caplink"
expect_exit 73 "symlink" --json --capture "$TMP/sym/caplink"
assert_eq "$(ls -A "$TMP/sym/victim")" "" "nothing written through a symlinked capture directory"
"$probe" --json --capture "$TMP/sym/fresh" >/dev/null || fail "a fresh capture directory was refused"
assert_eq "$(stat -c %a "$TMP/sym/fresh")" 700 "capture directory mode"
if [ "$(id -u)" = 0 ]; then
  mkdir -m 777 "$TMP/sym/theirs" && chown 65534:65534 "$TMP/sym/theirs"
  expect_exit 73 "not owned" --json --capture "$TMP/sym/theirs"
fi

# 9. A replay root whose proc and sys are symlinks to the live /proc and /sys reads nothing live:
#    UNKNOWN, no signal, and --emit-capture re-emits no host file.
mkdir "$TMP/cap1"
ln -s /proc "$TMP/cap1/proc"
ln -s /sys "$TMP/cap1/sys"
"$probe" --json --root "$TMP/cap1" --emit-capture >"$TMP/cap1.out" || fail "symlinked replay exited $?"
if grep -q "ISOTIER-CAPTURE-FILE" "$TMP/cap1.out"; then fail "replay re-emitted files read through symlinks"; fi
sed '/^ISOTIER-CAPTURE-/,$d' "$TMP/cap1.out" >"$TMP/cap1.json"
assert_eq "$(check_report "$TMP/cap1.json")" "UNKNOWN none - -" "replay through symlinks to /proc, /sys"
assert_eq "$(json_get "$TMP/cap1.json" signals)" "[]" "no live signal through the symlinks"
if grep -qi firecracker "$TMP/cap1.json"; then fail "the live machine's firecracker signals leaked into the replay"; fi

# 10. Replay redacts PID 1's environment just as the live run does.
mkdir -p "$TMP/envcap/proc/1"
printf 'SECRET_KEY=hunter2\0container=docker\0' >"$TMP/envcap/proc/1/environ"
"$probe" --json --root "$TMP/envcap" --emit-capture >"$TMP/env.out" || fail "environ replay exited $?"
python3 - "$TMP/env.out" <<'EOF' || fail "replay re-emitted PID 1's secrets"
import base64, sys
text = open(sys.argv[1]).read()
lines = text.split("\n")
i = lines.index("ISOTIER-CAPTURE-FILE proc/1/environ 17")
assert base64.b64decode(lines[i + 1]) == b"container=docker\0", lines[i + 1]
assert "hunter2" not in text and "U0VDUkVU" not in text
EOF
# A report that cannot be written is not a success.
set +e
"$probe" --json >/dev/full 2>"$TMP/full.err"
rc=$?
set -e
assert_eq "$rc" 74 "report to a full device"
assert_contains "$(cat "$TMP/full.err")" "writing the report failed"

# 11. The capture as one stream of records on a descriptor the guest init names
# ($ISOTIER_CAPTURE_FD, probes/capture_stream.c): no directory is made, the records
# ("<relative-path> <size>\n" + bytes) unpack into a capture that replays to the same report;
# asked no capture, nothing is written; a value that names no open descriptor of 3 or more is
# ignored and the directory is made as before.
rm -rf "$TMP/streamcap" "$TMP/streamed"
ISOTIER_CAPTURE_FD=9 "$probe" --json --capture "$TMP/streamcap" >"$TMP/stream.json" 9>"$TMP/stream.rec" ||
  fail "probe with a capture descriptor exited $?"
[ ! -e "$TMP/streamcap" ] || fail "capture descriptor: a capture directory was made as well"
python3 - "$TMP/stream.rec" "$TMP/streamed" <<'EOF' || fail "capture descriptor: the records do not unpack"
import os, sys
data, out = open(sys.argv[1], "rb").read(), sys.argv[2]
off, names = 0, []
while off < len(data):
    nl = data.index(b"\n", off)
    rel, size = data[off:nl].decode().rsplit(" ", 1)
    size = int(size)
    body = data[nl + 1:nl + 1 + size]
    assert len(body) == size, "record %s cut short" % rel
    assert not rel.startswith("/") and ".." not in rel.split("/"), rel
    os.makedirs(os.path.join(out, os.path.dirname(rel)), exist_ok=True)
    with open(os.path.join(out, rel), "xb") as f:  # a name twice is refused, as the host does
        f.write(body)
    names.append(rel)
    off = nl + 1 + size
assert "proc/cpuinfo" in names and ".probe/cpuid" in names, names
EOF
"$probe" --root "$TMP/streamed" --json >"$TMP/stream-replay.json" || fail "capture descriptor: replay exited $?"
assert_eq "$(json_get "$TMP/stream-replay.json" layers)" "$(json_get "$TMP/stream.json" layers)" \
  "capture descriptor: the records replay to the same layers"
ISOTIER_CAPTURE_FD=9 "$probe" --json >/dev/null 9>"$TMP/stream-none.rec" || fail "no capture: exited $?"
assert_eq "$(stat -c %s "$TMP/stream-none.rec")" "0" "capture descriptor without --capture: nothing written"
for v in 0 1 2 8 -1 3x 99999999999 ""; do
  rm -rf "$TMP/streamcap"
  ISOTIER_CAPTURE_FD=$v "$probe" --json --capture "$TMP/streamcap" >"$TMP/stream-bad.json" 2>&1 ||
    fail "capture descriptor '$v': exited $?"
  [ -s "$TMP/streamcap/proc/cpuinfo" ] || fail "capture descriptor '$v': no capture directory"
done

[ -z "${not_run:-}" ] || skip "everything else passed, but not run: $not_run"
echo "probe_native: all checks passed"
