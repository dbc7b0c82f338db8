#!/usr/bin/env bash
# isotier-test: slow; uses: quiet kvm
# SPDX-License-Identifier: Apache-2.0
# A VMM counts for a run only when it is the host's own program, started for this run, and the
# one the sandbox names (reference/evidence/host_sighting.c). Lying bwrap runtimes that answer with a
# forged microVM report carrying this run's nonce, each with a "VMM" to vouch for it:
#   decoy-path   a copy of sleep named firecracker, first on PATH, started by the runtime
#   decoy-qemu   the host's real qemu-system-x86_64 (-machine none -S: runs nothing), started by
#                the runtime's wrapper beside the sandbox
#   cross-job    nothing of its own: an honest qemu-microvm verification runs beside it in the
#                same `verify --jobs 2`
# None may be CONFIRMED or CONSISTENT, the reason must say the VMM did not count (or saw none of
# this run's), and `run --require-verified 7 --attest` must refuse (78) without running its command.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v bwrap >/dev/null || skip "bwrap is not installed"
wrappers=$TMP/bin
mkdir -p "$wrappers"
real_bwrap=$(command -v bwrap)
qemu=$(command -v qemu-system-x86_64 || true)
probe_fixture=$ISOTIER_ROOT/tests/fixtures/probe/real-qemu-microvm-tcg
variant() { python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$ISOTIER_ROOT/catalogue/providers" "$TMP/$1" "$2" "$3"; }

# A recorded genuine microVM report (qemu's): the lies answer with it, this run's nonce put in.
"$ISOTIER_PROBE" --json --root "$probe_fixture" >"$TMP/recorded.json"
cp "$(command -v sleep)" "$wrappers/firecracker"

cat >"$wrappers/bwrap" <<EOF
#!/usr/bin/python3
import json, os, subprocess, sys, time
lie, args = os.environ["LIE"], sys.argv[1:]
cmd = args[args.index("--") + 1:] if "--" in args else []
if "--nonce" not in cmd:
    os.execv("$real_bwrap", ["$real_bwrap"] + args)  # not the probe: run it as asked
nonce = cmd[cmd.index("--nonce") + 1]
if lie == "decoy-path":
    subprocess.Popen(["firecracker", "20"])  # found on PATH: the wrappers' copy of sleep
elif lie == "decoy-qemu":
    subprocess.Popen(["$qemu", "-machine", "none", "-S", "-display", "none", "-nodefaults"],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
doc = json.load(open("$TMP/recorded.json"))
doc["run"] = {"nonce": nonce}
if lie == "decoy-path":
    for l in doc["layers"]:
        if l["kind"] == "vm":
            l["vendor"] = "firecracker"
time.sleep(1.0)  # the decoys run while the host watches
print(json.dumps(doc))
EOF
chmod +x "$wrappers/bwrap"

checked=0
# judge_lie LIE CLAIM JSON: the bwrap result in JSON is neither CONFIRMED nor CONSISTENT.
judge_lie() {
  local lie=$1 claim=$2 json=$3 verdict reason
  verdict=$(python3 -c 'import json,sys; r=[r for r in json.load(open(sys.argv[1]))["results"] if r["backend"]=="bwrap"][0]; print(r["verdict"])' "$json") ||
    fail "$lie: no bwrap verdict in $(head -c 2000 "$json")"
  reason=$(python3 -c 'import json,sys; r=[r for r in json.load(open(sys.argv[1]))["results"] if r["backend"]=="bwrap"][0]; print(r["reason"])' "$json")
  case $verdict in
    CONFIRMED | CONSISTENT | EXCEEDS) fail "$lie: bwrap claimed $claim is $verdict: $reason" ;;
  esac
  echo "ok: $lie -> $verdict"
  echo "  $reason"
  printf '%s' "$reason" >"$TMP/reason"
}

# run_refused LIE CATALOGUE TIER: the gate refuses and the command never runs.
run_refused() {
  local lie=$1 cat=$2 tier=$3 marker=isotier-lie-$$-$RANDOM rc
  set +e
  LIE=$lie PATH="$wrappers:$PATH" "$ISOTIER_BIN" run --backend bwrap --catalogue "$cat" --db "$TMP/$lie.db" \
    --require-isolation "$tier" --require-verified 7 --attest -- /bin/echo "$marker" >"$TMP/run.out" 2>"$TMP/run.err"
  rc=$?
  set -e
  assert_eq "$rc" 78 "$lie: run --require-isolation $tier ($(cat "$TMP/run.err"))"
  ! grep -q "$marker" "$TMP/run.out" || fail "$lie: the command ran"
  checked=$((checked + 1))
}

# 1. A renamed binary first on PATH is not the host's firecracker.
variant cat-fc bubblewrap "claim=MICROVM/firecracker"
set +e
LIE=decoy-path PATH="$wrappers:$PATH" "$ISOTIER_BIN" verify --backend bwrap --catalogue "$TMP/cat-fc" \
  --db "$TMP/decoy-path.db" --json >"$TMP/fc.json" 2>"$TMP/fc.err"
set -e
judge_lie decoy-path MICROVM/firecracker "$TMP/fc.json"
assert_contains "$(cat "$TMP/reason")" "firecracker (pid"
assert_contains "$(cat "$TMP/reason")" "not a program in isotier's trusted directories"
run_refused decoy-path "$TMP/cat-fc" MICROVM

variant cat-qemu bubblewrap "claim=MICROVM/qemu"
if [ -n "$qemu" ]; then
  # 2. The host's real qemu, started by the runtime's wrapper: not the runtime isotier started.
  set +e
  LIE=decoy-qemu PATH="$wrappers:$PATH" "$ISOTIER_BIN" verify --backend bwrap --catalogue "$TMP/cat-qemu" \
    --db "$TMP/decoy-qemu.db" --json >"$TMP/qemu.json" 2>"$TMP/qemu.err"
  set -e
  judge_lie decoy-qemu MICROVM/qemu "$TMP/qemu.json"
  assert_contains "$(cat "$TMP/reason")" "qemu-system-x86_64 (pid"
  assert_contains "$(cat "$TMP/reason")" "not started for this run"
  run_refused decoy-qemu "$TMP/cat-qemu" MICROVM
  pkill -f -- "-machine none -S -display none -nodefaults" || true

  # 3. Another job's honest VM in the same verify: not this job's.
  set +e
  LIE=cross-job PATH="$wrappers:$PATH" timeout 300 "$ISOTIER_BIN" verify --jobs 2 --backend qemu-microvm --backend bwrap \
    --catalogue "$TMP/cat-qemu" --db "$TMP/cross.db" --json >"$TMP/cross.json" 2>"$TMP/cross.err"
  set -e
  judge_lie cross-job MICROVM/qemu "$TMP/cross.json"
  if grep -q "it saw qemu-system" "$TMP/reason"; then fail "cross-job: the other job's VM was credited: $(cat "$TMP/reason")"; fi
  # The honest job beside it still saw its own VM.
  python3 -c 'import json,sys; r=[r for r in json.load(open(sys.argv[1]))["results"] if r["backend"]=="qemu-microvm"][0]; assert "it saw qemu-system-x86_64 (pid" in r["reason"], r["reason"]' "$TMP/cross.json" ||
    fail "cross-job: the honest qemu-microvm job did not see its own VM"
  checked=$((checked + 1))
else
  not_run="the real-qemu decoy and cross-job cases (no qemu-system-x86_64)"
fi
[ -z "${not_run:-}" ] || skip "everything else passed, but not run: $not_run"
echo "lies_sighting: $checked lying setups refused"
