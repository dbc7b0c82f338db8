#!/usr/bin/env bash
# isotier-test: normal; uses: quiet
# SPDX-License-Identifier: Apache-2.0
# One sandbox, probed then run (observe_bound.h, probes/exec.c). A lying runtime that relays the
# probe to a real gVisor (`runsc do`) and the command to a plain bwrap container, claiming gVisor:
# `run --attest` runs the command in the probe's own process, so the runtime has to split that
# process itself; the runsc it starts for the probe is not the runtime isotier started (its
# wrapper stands between), so no gVisor counts and the command never runs. Controls: the honest
# runsc backend runs its command under `run --require-isolation GVISOR --attest`; a command whose
# probe was refused never runs (the probe's own exit 77 path).
. "$ISOTIER_ROOT/tests/lib.sh"
command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v runsc >/dev/null || skip "runsc is not installed"
wrappers=$TMP/bin
mkdir -p "$wrappers"
real_bwrap=$(command -v bwrap)
real_runsc=$(command -v runsc)
python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$ISOTIER_ROOT/catalogue/providers" "$TMP/cat" bubblewrap "claim=GVISOR/gvisor"

# The relaying bwrap: the probe (its --exec -- CMD cut off) to runsc, then, on the verifier's
# word, the command to a plain bwrap sandbox with this process's remaining stdin.
cat >"$wrappers/bwrap" <<EOF
#!/usr/bin/python3
import os, subprocess, sys
args = sys.argv[1:]
at = args.index("--") if "--" in args else len(args)
opts, cmd = args[:at], args[at + 1:]
if "--exec" not in cmd:
    if "--nonce" in cmd:  # verify: the probe alone, to gVisor
        probe = ["$ISOTIER_PROBE"] + cmd[1:]
        os.execv("$real_runsc", ["$real_runsc", "--network=none", "--platform=ptrace", "do"] + probe)
    os.execv("$real_bwrap", ["$real_bwrap"] + args)
i = cmd.index("--exec")
probe, workload = ["$ISOTIER_PROBE", "--markers"] + cmd[1:i], cmd[i + 2:]
subprocess.run(["$real_runsc", "--network=none", "--platform=ptrace", "do"] + probe,
               stdin=subprocess.DEVNULL, check=False)
sys.stdout.flush()
word = sys.stdin.readline()
if not word.startswith("ISOTIER-GO "):
    sys.exit(77)
os.execv("$real_bwrap", ["$real_bwrap"] + opts + ["--"] + workload)
EOF
chmod +x "$wrappers/bwrap"

marker=isotier-relay-$$-$RANDOM
set +e
PATH="$wrappers:$PATH" "$ISOTIER_BIN" run --backend bwrap --catalogue "$TMP/cat" --require-isolation GVISOR \
  --attest -- /bin/echo "$marker" >"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
set -e
cat "$TMP/run.err"
assert_eq "$rc" 78 "relay: run --require-isolation GVISOR --attest"
! grep -q "$marker" "$TMP/run.out" || fail "relay: the command ran in the plain container"
assert_contains "$(cat "$TMP/run.err")" "the command was not run"
assert_contains "$(cat "$TMP/run.err")" "the host saw no runsc of this run"

# verify, with the probe alone relayed: not CONFIRMED either (the runsc is not this run's).
set +e
PATH="$wrappers:$PATH" "$ISOTIER_BIN" verify --backend bwrap --catalogue "$TMP/cat" --db "$TMP/v.db" --json >"$TMP/v.json" 2>"$TMP/v.err"
set -e
verdict=$(json_get "$TMP/v.json" results.0.verdict) || fail "relay verify: no verdict ($(cat "$TMP/v.err"))"
case $verdict in CONFIRMED | CONSISTENT | EXCEEDS) fail "relay verify: $verdict: $(json_get "$TMP/v.json" results.0.reason)" ;; esac
echo "ok: relay verify -> $verdict"

# Control: the honest runsc backend runs its command, with its stdin, in the proven sandbox.
set +e
echo "in-$marker" | "$ISOTIER_BIN" run --backend runsc --require-isolation GVISOR --attest -- /bin/sh -c 'echo "$0"; cat; exit 5' "$marker" \
  >"$TMP/honest.out" 2>"$TMP/honest.err"
rc=$?
set -e
assert_eq "$rc" 5 "honest runsc: the command's exit status ($(cat "$TMP/honest.err"))"
assert_eq "$(cat "$TMP/honest.out")" "$marker
in-$marker" "honest runsc: the command's output and input, and nothing of the probe's report"

# The probe's side: without the verifier's word the command never starts.
N=0123456789abcdef0123456789abcdef
set +e
echo "ISOTIER-GO fedcba9876543210fedcba9876543210" | "$ISOTIER_PROBE" --json --nonce $N --exec -- /bin/echo "$marker" >"$TMP/p.out" 2>"$TMP/p.err"
rc=$?
set -e
assert_eq "$rc" 77 "probe --exec with another nonce's word"
! grep -q "^$marker" "$TMP/p.out" || fail "probe --exec ran the command without this run's word"
"$ISOTIER_PROBE" --json --nonce $N --exec -- /bin/echo "$marker" </dev/null >"$TMP/p.out" 2>/dev/null && fail "probe --exec ran at end of input"
echo "ISOTIER-GO $N" | "$ISOTIER_PROBE" --json --nonce $N --exec -- /bin/echo "$marker" >"$TMP/p.out" || fail "probe --exec with the word exited $?"
assert_eq "$(tail -n 1 "$TMP/p.out")" "$marker" "probe --exec with the word runs the command after the report"
set +e
"$ISOTIER_PROBE" --json --exec -- /bin/true >/dev/null 2>&1
assert_eq "$?" 64 "probe --exec without --nonce"
"$ISOTIER_PROBE" --json --nonce $N --exec >/dev/null 2>&1
assert_eq "$?" 64 "probe --exec without a command"
set -e
echo "lies_relay: the relaying runtime is refused, the honest one runs"
