#!/usr/bin/env bash
# isotier-test: normal; uses: quiet
# SPDX-License-Identifier: Apache-2.0
# Lying local sandboxes: runtimes configured by a provider that wants a stronger tier than it has.
# Each lie is a real sandbox (bwrap or runc, reached through a wrapper earlier in PATH, as a
# provider's runtime configuration would be) whose claim is raised in a catalogue variant. None
# may be CONFIRMED or CONSISTENT for the lying tier, and `run --require-verified 7 --attest`
# must refuse (78) without running the command. The verifier decides kernel sharing from the
# host: the workload in the host's process table, or the host's random task pattern in the
# sandbox's own task count. Honest backends are held to CONFIRMED by their own tests.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v bwrap >/dev/null || skip "bwrap is not installed"
probe_fixture=$ISOTIER_ROOT/tests/fixtures/probe/real-qemu-microvm-tcg
wrappers=$TMP/bin
mkdir -p "$wrappers" "$TMP/fake"
real_bwrap=$(command -v bwrap)
real_runc=$(command -v runc || true)
variant() { python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$ISOTIER_ROOT/catalogue/providers" "$TMP/$1" "$2" "$3"; }

# A fake identity: another boot_id, a /proc/stat with another btime (or none).
python3 - "$TMP/fake" <<'PY'
import sys, uuid
d = sys.argv[1]
open(d + "/boot_id", "w").write(str(uuid.uuid4()) + "\n")
stat = open("/proc/stat").read()
lines = stat.splitlines(True)
open(d + "/stat", "w").write("".join(l if not l.startswith("btime ") else "btime 1500000000\n" for l in lines))
open(d + "/stat-nobtime", "w").write("".join(l for l in lines if not l.startswith("btime ")))
PY

# A decoy "VMM": sleep under a VMM's name.
mkdir -p "$TMP/fake/decoy"
cp "$(command -v sleep)" "$TMP/fake/decoy/qemu-system-x86_64"

# A recorded genuine microVM report (the qemu fixture's, with an identity of its own).
"$ISOTIER_PROBE" --json --root "$probe_fixture" >"$TMP/recorded.json"
python3 - "$TMP/recorded.json" <<'PY'
import json, sys, uuid
p = sys.argv[1]
d = json.load(open(p))
d["kernel"]["boot_id"], d["kernel"]["btime"] = str(uuid.uuid4()), 1600000000
json.dump(d, open(p, "w"))
PY

notif=$ISOTIER_ROOT/$BUILD/tests/notif-supervisor
[ -x "$notif" ] || fail "no $notif (run make first)"

# The lying bwrap: LIE selects what it adds to the sandbox the verifier asked for.
cat >"$wrappers/bwrap" <<EOF
#!/usr/bin/python3
import json, os, sys, time, random
real, fake, lie = "$real_bwrap", "$TMP/fake", os.environ["LIE"]
args = sys.argv[1:]
probe = "/.isotier/isotier-probe"
# bwrap's own options end at "--"; the command follows.
at = args.index("--") if "--" in args else len(args)
opts, cmd = args[:at], args[at:]
nonce = cmd[cmd.index("--nonce") + 1] if "--nonce" in cmd else None
binds = ["--ro-bind", fake + "/boot_id", "/proc/sys/kernel/random/boot_id",
         "--ro-bind", fake + ("/stat-nobtime" if lie == "nobtime" else "/stat"), "/proc/stat"]
shell = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
         "--symlink", "usr/lib64", "/lib64"]
if lie in ("identity", "nobtime"):
    os.execv(real, [real] + opts + binds + cmd)
if lie == "staticproc":
    # A /proc of plain files: the initial namespaces' inode numbers, a boot_id and stat of its own.
    static = ["--tmpfs", "/proc", "--dir", "/proc/self/ns", "--dir", "/proc/sys/kernel/random"]
    for ns, ino in (("pid", 4026531836), ("mnt", 4026531841), ("net", 4026531840),
                    ("user", 4026531837), ("uts", 4026531838), ("ipc", 4026531839),
                    ("cgroup", 4026531835)):
        static += ["--symlink", "%s:[%d]" % (ns, ino), "/proc/self/ns/" + ns]
    static += ["--ro-bind", fake + "/boot_id", "/proc/sys/kernel/random/boot_id",
               "--ro-bind", fake + "/stat", "/proc/stat"]
    os.execv(real, [real] + opts + static + cmd)
if lie == "decoy":
    # The probe hidden by another argv[0], sysinfo(2) refused by a seccomp filter so no task
    # count can show the host's pattern, and a process named like a VMM running beside it.
    import struct
    prog = [(0x20, 0, 0, 4), (0x15, 0, 3, 0xc000003e), (0x20, 0, 0, 0), (0x15, 0, 1, 99),
            (0x06, 0, 0, 0x00050001), (0x06, 0, 0, 0x7fff0000)]
    open(fake + "/filter.bpf", "wb").write(b"".join(struct.pack("HBBI", *i) for i in prog))
    fd = os.open(fake + "/filter.bpf", os.O_RDONLY)
    os.set_inheritable(fd, True)
    inner = [real] + opts + binds + shell + ["--ro-bind", fake + "/decoy", "/decoy",
             "--seccomp", str(fd), "--", "/bin/bash", "-c",
             '/decoy/qemu-system-x86_64 5 & exec -a hidden "\$0" "\$@"'] + cmd[1:]
    os.execv(real, inner)
if lie == "ptrace":
    # The same answers from a ptrace(2) tracer inside the sandbox.
    inner = [real] + opts + binds + shell + ["--ro-bind", "$notif", "/.notif", "--", "/.notif", "--ptrace"] + cmd
    os.execv(real, inner)
if lie == "notif":
    # A supervisor inside the sandbox answers sysinfo(2) with a constant task count and
    # statfs(2) with procfs' magic, over bind-mounted identity files, the probe unnamed.
    inner = [real] + opts + binds + shell + ["--ro-bind", "$notif", "/.notif", "--", "/.notif"] + cmd
    os.execv(real, inner)
if lie in ("hidden", "timens"):
    # The probe runs under another argv[0], so its name is not what the host looks for.
    inner = [real] + opts + binds + shell + ["--", "/bin/bash", "-c", 'exec -a hidden "\$0" "\$@"'] + cmd[1:]
    if lie == "timens":
        inner = ["unshare", "--time", "--monotonic", "86400", "--fork"] + inner
    os.execvp(inner[0], inner)
if lie.startswith("replay"):
    doc = json.load(open("$TMP/recorded.json"))
    if lie != "replay":
        doc["run"] = {"nonce": nonce}
        if "--challenge" in cmd:
            t = int(time.monotonic() * 1e6)
            w = int(cmd[cmd.index("--challenge") + 1]) * 1000
            doc["run"]["challenge"] = {"counter": "sysinfo.procs", "clock": "monotonic",
                "start_us": t, "end_us": t + w, "samples": w // 1000, "truncated": False,
                "changes": [[t, 120]]}
            time.sleep(w / 1e6 + 0.2)
    if lie == "replay-gvisor":
        doc["layers"] = [{"kind": "gvisor", "vendor": "gvisor", "confidence": "high",
                          "evidence": "behaviour", "signals": []}]
        doc["observed_tier"] = "GVISOR"
    print(json.dumps(doc))
    sys.exit(0)
sys.exit("unknown LIE " + lie)
EOF
chmod +x "$wrappers/bwrap"

# The lying runc: an OCI bundle edited before the container is created (what a provider's
# runtime configuration can do): its own /proc/stat, boot_id masked.
if [ -n "$real_runc" ]; then
cat >"$wrappers/runc" <<EOF
#!/usr/bin/python3
import json, os, sys
real, fake = "$real_runc", "$TMP/fake"
args = sys.argv[1:]
for i, a in enumerate(args):
    b = None
    if a in ("--bundle", "-b") and i + 1 < len(args): b = args[i + 1]
    elif a.startswith("--bundle="): b = a.split("=", 1)[1]
    if b and os.path.exists(os.path.join(b, "config.json")):
        p = os.path.join(b, "config.json")
        c = json.load(open(p))
        # runc lets a bundle mount over /proc/stat (LXCFS does) and mask boot_id.
        c["mounts"] += [{"destination": "/proc/stat", "type": "bind",
                         "source": fake + "/stat", "options": ["rbind", "ro"]}]
        c.setdefault("linux", {}).setdefault("maskedPaths", []).append("/proc/sys/kernel/random/boot_id")
        json.dump(c, open(p, "w"))
os.execv(real, [real] + args)
EOF
chmod +x "$wrappers/runc"
fi

# lie BACKEND CATALOGUE-ID LIE TIER/MECH EXPECTED: the lie is neither CONFIRMED nor CONSISTENT
# (it is EXPECTED: CONTRADICTED where the host proves the workload on its own kernel), and run
# refuses.
checked=0
lie() {
  local backend=$1 id=$2 lie=$3 claim=$4 expected=$5 tier=${4%%/*} db=$TMP/$3-$1-${4%%/*}.db rc verdict
  variant "cat-$lie-$backend-$tier" "$id" "claim=$claim"
  set +e
  LIE=$lie PATH="$wrappers:$PATH" "$ISOTIER_BIN" verify --backend "$backend" --catalogue "$TMP/cat-$lie-$backend-$tier" \
    --db "$db" --json >"$TMP/v.json" 2>"$TMP/v.err"
  rc=$?
  set -e
  verdict=$(json_get "$TMP/v.json" results.0.verdict) || fail "$lie on $backend: no verdict ($(cat "$TMP/v.err"))"
  case $verdict in
    CONFIRMED|CONSISTENT|EXCEEDS) fail "$lie on $backend claimed $claim: $verdict ($(cat "$TMP/v.json"))" ;;
  esac
  [ "$verdict" = "$expected" ] || fail "$lie on $backend claimed $claim: $verdict, expected $expected ($(json_get "$TMP/v.json" results.0.reason))"
  [ "$rc" != 0 ] || fail "$lie on $backend: verify exit 0 for a lie ($verdict)"
  echo "ok: $lie on $backend claimed $claim -> $verdict (verify exit $rc)"
  local marker=isotier-lie-$$-$RANDOM
  set +e
  LIE=$lie PATH="$wrappers:$PATH" "$ISOTIER_BIN" run --backend "$backend" --catalogue "$TMP/cat-$lie-$backend-$tier" \
    --db "$db" --require-isolation "$tier" --require-verified 7 --attest -- /bin/echo "$marker" \
    >"$TMP/run.out" 2>"$TMP/run.err"
  rc=$?
  set -e
  assert_eq "$rc" 78 "$lie on $backend: run --require-isolation $tier ($(cat "$TMP/run.err"))"
  ! grep -q "$marker" "$TMP/run.out" || fail "$lie on $backend: the command ran"
  checked=$((checked + 1))
}

# Kernel identity is what the sandbox prints: forged by bind mounts.
lie bwrap bubblewrap identity MICROVM/firecracker CONTRADICTED
lie bwrap bubblewrap nobtime MICROVM/firecracker CONTRADICTED
# A static /proc whose namespace links read the initial namespaces': the probe cannot tell (UNKNOWN)
# and the host sees the workload on its kernel.
lie bwrap bubblewrap staticproc MICROVM/firecracker INCONCLUSIVE
# ...with the probe hidden from the host's process table by another argv[0]: the host's task
# pattern still shows in the sandbox's task count, under a time namespace too.
lie bwrap bubblewrap hidden MICROVM/firecracker CONTRADICTED
lie bwrap bubblewrap timens MICROVM/firecracker CONTRADICTED
# ...and with the task count refused by a seccomp filter and a decoy VMM beside it: nothing
# shows the sharing, but nothing shows a VM of its own either (the decoy is not the host's qemu).
lie bwrap bubblewrap decoy MICROVM/firecracker INCONCLUSIVE
LIE=decoy PATH="$wrappers:$PATH" "$ISOTIER_BIN" verify --backend bwrap --catalogue "$TMP/cat-decoy-bwrap-MICROVM" \
  --db "$TMP/decoy.db" >"$TMP/decoy.out" 2>&1 || true
assert_contains "$(cat "$TMP/decoy.out")" "it saw no VMM or runsc of this run start"
! grep -q "it saw qemu-system-x86_64 (pid" "$TMP/decoy.out" || fail "the decoy counted as a VMM: $(cat "$TMP/decoy.out")"
# A seccomp user-notification supervisor inside the sandbox imitates a kernel of its own (a task
# count no pattern moves, procfs' statfs magic for bind-mounted identity files): no VMM of this
# run, nothing to prove a VM, for a microVM or a gVisor claim.
lie bwrap bubblewrap notif MICROVM/firecracker INCONCLUSIVE
lie bwrap bubblewrap notif GVISOR/gvisor INCONCLUSIVE
lie bwrap bubblewrap ptrace MICROVM/firecracker INCONCLUSIVE
# The runtime answers with a recorded genuine microVM report: without this run's nonce, with it
# (and a made-up challenge answer), or a recorded gVisor report.
lie bwrap bubblewrap replay MICROVM/qemu INCONCLUSIVE
lie bwrap bubblewrap replay-nonce MICROVM/qemu INCONCLUSIVE
lie bwrap bubblewrap replay-gvisor GVISOR/gvisor INCONCLUSIVE
# An OCI bundle edited before create: the container's own boot_id and /proc/stat. The bundle is
# not what isotier wrote: the report is rejected, whatever it shows (reference/backends/oci.c).
if [ -n "$real_runc" ]; then
  lie runc runc identity MICROVM/firecracker INCONCLUSIVE
  assert_contains "$(json_get "$TMP/v.json" results.0.reason)" "config.json is not what isotier wrote"
fi

# The hidden probe is caught by the challenge, not by its name: the reason says so.
LIE=hidden PATH="$wrappers:$PATH" "$ISOTIER_BIN" verify --backend bwrap --catalogue "$TMP/cat-hidden-bwrap-MICROVM" \
  --db "$TMP/why.db" >"$TMP/why.out" 2>&1 || true
assert_contains "$(cat "$TMP/why.out")" "task pattern shows in the sandbox's own task count"
echo "lies: $checked lying setups refused"
