#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# probe_identity: a sandbox that lies about its kernel identity. Real bwrap sandboxes bind fake
# files over /proc/sys/kernel/random/boot_id and /proc/stat, bind procfs's own random/uuid over
# boot_id, bind the host's namespace files over the probe's, or replace /proc by a directory of
# static files (boot_id, btime, initial namespace links); isotier-probe --json inside must report kernel.identity.trusted false, and a static
# /proc must not hide the container (its namespace readings are forged: no MICROVM). The honest
# bwrap sandbox (and runsc, when it runs here) must still be trusted and keep its tier: a probe
# that distrusts everything fails too. A capture replayed is never trusted.
source "$ISOTIER_ROOT/tests/lib.sh"
probe=${ISOTIER_PROBE:?}
[ -x "$probe" ] || fail "no probe binary at $probe (run make first)"
command -v bwrap >/dev/null || skip "bwrap is not installed"
schema="$ISOTIER_ROOT/probes/probe.schema.json"

# Prints "tier confidence trusted first-problem" of a report, checked against the schema.
summary() {
  python3 - "$1" "$schema" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
try:
    import jsonschema
    jsonschema.validate(doc, json.load(open(sys.argv[2])))
except ImportError:
    pass
ident = doc["kernel"]["identity"]
assert isinstance(ident["trusted"], bool)
assert len(ident["problems"]) <= 8 and all(len(p) <= 160 for p in ident["problems"])
assert ident["trusted"] == (not ident["problems"]), "trusted with problems listed"
print(doc["observed_tier"], doc["confidence"], "trusted" if ident["trusted"] else "untrusted",
      (ident["problems"] or ["-"])[0])
EOF
}

bw=(bwrap --unshare-all --die-with-parent --bind / / --dev /dev --new-session)
run() { # name, then bwrap arguments before the command
  local name=$1
  shift
  "${bw[@]}" "$@" "$probe" --json >"$TMP/$name.json" 2>"$TMP/$name.err" ||
    fail "$name: probe exited $? ($(head -c 500 "$TMP/$name.err"))"
  summary "$TMP/$name.json" || fail "$name: report invalid"
}

# 0. Honest: a fresh procfs, nothing bound over it.
honest=$(run honest --proc /proc) || exit 1
echo "honest bwrap: $honest"
read -r tier conf trusted _ <<<"$honest"
assert_eq "$tier" CONTAINER "honest bwrap tier"
assert_eq "$trusted" trusted "honest bwrap identity"

# The lies' material: a boot_id and a /proc/stat of the provider's choosing.
echo 0c4a1b2e-3d4f-4a5b-8c6d-7e8f9a0b1c2d >"$TMP/boot_id"
printf 'cpu  1 2 3 4 5 6 7 0 0 0\nbtime 1600000000\nprocesses 1\n' >"$TMP/stat"
printf 'cpu  1 2 3 4 5 6 7 0 0 0\nprocesses 1\n' >"$TMP/stat-nobtime"

# 1. Fake boot_id and /proc/stat bound over procfs's (an OCI hook does the same for runc/crun).
out=$(run bound --proc /proc --ro-bind "$TMP/boot_id" /proc/sys/kernel/random/boot_id \
  --ro-bind "$TMP/stat" /proc/stat) || exit 1
echo "bound boot_id and stat: $out"
read -r tier conf trusted problem <<<"$out"
assert_eq "$trusted" untrusted "bound files: identity"
assert_eq "$tier" CONTAINER "bound files: the container is still seen"
assert_contains "$(json_get "$TMP/bound.json" kernel.identity.problems)" "/proc/sys/kernel/random/boot_id"
assert_eq "$(json_get "$TMP/bound.json" kernel.boot_id)" 0c4a1b2e-3d4f-4a5b-8c6d-7e8f9a0b1c2d \
  "the forged boot_id is what the probe read (and reported untrusted)"

# 2. procfs's own random/uuid bound over boot_id: procfs magic, but another mount, and it changes.
out=$(run uuid --proc /proc --ro-bind /proc/sys/kernel/random/uuid /proc/sys/kernel/random/boot_id) || exit 1
echo "uuid over boot_id: $out"
read -r tier conf trusted problem <<<"$out"
assert_eq "$trusted" untrusted "uuid over boot_id: identity"

# 3. A /proc/stat without btime: never an identity.
out=$(run nobtime --proc /proc --ro-bind "$TMP/stat-nobtime" /proc/stat) || exit 1
echo "stat without btime: $out"
read -r tier conf trusted problem <<<"$out"
assert_eq "$trusted" untrusted "no btime: identity"
assert_eq "$(json_get "$TMP/nobtime.json" kernel.btime)" None "no btime reported"

# 4. A tmpfs /proc holding fake files and initial-namespace links: not procfs at all.
fake=(--tmpfs /proc --dir /proc/sys/kernel/random --dir /proc/self/ns
  --ro-bind "$TMP/boot_id" /proc/sys/kernel/random/boot_id --ro-bind "$TMP/stat" /proc/stat
  --ro-bind /proc/version /proc/version --ro-bind /proc/cpuinfo /proc/cpuinfo)
for ns in pid:4026531836 user:4026531837 uts:4026531838 ipc:4026531839 cgroup:4026531835 \
  mnt:4026531841 net:4026531840 time:4026531834; do
  fake+=(--symlink "${ns%%:*}:[${ns#*:}]" "/proc/self/ns/${ns%%:*}")
done
out=$(run tmpfsproc "${fake[@]}") || exit 1
echo "tmpfs /proc with fake files: $out"
read -r tier conf trusted problem <<<"$out"
assert_eq "$trusted" untrusted "tmpfs /proc: identity"
assert_contains "$problem" "/proc: not procfs" "tmpfs /proc: first problem"
assert_eq "$tier" UNKNOWN "tmpfs /proc: forged namespaces hide nothing"
assert_contains "$(json_get "$TMP/tmpfsproc.json" unanswered)" "forged"

# 4b. The host's namespace files bound over the probe's own (it is PID 1 with --as-pid-1).
"${bw[@]}" --as-pid-1 --proc /proc --bind /proc/1/ns /proc/1/ns "$probe" --json >"$TMP/nsbind.json" 2>"$TMP/nsbind.err" ||
  fail "nsbind: probe exited $? ($(head -c 500 "$TMP/nsbind.err"))"
out=$(summary "$TMP/nsbind.json") || fail "nsbind: report invalid"
echo "host namespaces bound over /proc/1/ns: $out"
read -r tier conf trusted problem <<<"$out"
assert_eq "$trusted" untrusted "ns bind: identity"
assert_eq "$tier" UNKNOWN "ns bind: forged namespaces hide nothing"
assert_contains "$problem" "a mount at /proc/1/ns"

# 5. A static directory bound at /proc (a copy of a VM's /proc, say).
mkdir -p "$TMP/static/sys/kernel/random" "$TMP/static/self/ns" "$TMP/static/self"
cp "$TMP/boot_id" "$TMP/static/sys/kernel/random/boot_id"
cp "$TMP/stat" "$TMP/static/stat"
grep -v '^Seccomp' /proc/self/status >"$TMP/static/self/status"
printf 'Seccomp:\t0\n' >>"$TMP/static/self/status"
for ns in pid:4026531836 user:4026531837 uts:4026531838 ipc:4026531839 cgroup:4026531835; do
  ln -s "${ns%%:*}:[${ns#*:}]" "$TMP/static/self/ns/${ns%%:*}"
done
out=$(run staticproc --bind "$TMP/static" /proc) || exit 1
echo "static /proc: $out"
read -r tier conf trusted problem <<<"$out"
assert_eq "$trusted" untrusted "static /proc: identity"
[ "$tier" != MICROVM ] && [ "$tier" != GVISOR ] || fail "static /proc: claimed $tier"

# 6. Replay of the honest capture: the checks cannot run on a capture.
"${bw[@]}" --proc /proc "$probe" --json --capture "$TMP/cap" >/dev/null 2>&1 ||
  fail "capture run failed"
"$probe" --json --root "$TMP/cap" >"$TMP/replay.json" || fail "replay failed"
out=$(summary "$TMP/replay.json") || fail "replay report invalid"
echo "replayed: $out"
read -r tier conf trusted problem <<<"$out"
assert_eq "$tier" CONTAINER "replayed tier"
assert_eq "$trusted" untrusted "replay: identity"
assert_contains "$problem" "replayed input"

# 7. Honest gVisor keeps its tier and confidence (its identity files do not exist there).
if command -v runsc >/dev/null && [ "$(id -u)" = 0 ]; then
  if timeout 120 runsc --platform=ptrace --network=none --ignore-cgroups do "$probe" --json \
    >"$TMP/runsc.json" 2>"$TMP/runsc.err"; then
    out=$(summary "$TMP/runsc.json") || fail "runsc report invalid"
    echo "runsc: $out"
    read -r tier conf trusted problem <<<"$out"
    assert_eq "$tier $conf" "GVISOR high" "honest runsc"
  else
    echo "note: runsc did not run here ($(head -c 300 "$TMP/runsc.err"))"
  fi
fi
echo "probe_identity: ok"
