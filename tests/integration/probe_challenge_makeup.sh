#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# probe_challenge_makeup: the probe's challenge window makes up the stretches its sampler went
# unread (probes/challenge.c): the real probe, on this host, is stopped (SIGSTOP) for a while in
# the middle of its --challenge sampling. Its answer must list that stretch, and its window must
# have grown by every listed stretch (or reached the bound, 4 times the window asked for); a
# stall longer than that bound must end the window as soon as the probe runs again, not a whole
# window later. Lower bounds only, and one upper bound with 100 ms of slack: a loaded host
# lengthens stalls, which the formula counts from the probe's own list.
source "$ISOTIER_ROOT/tests/lib.sh"
probe=${ISOTIER_PROBE:?}
[ -x "$probe" ] || fail "no probe binary at $probe (run make first)"

# run_stalled OUT DELAY_MS STOP_MS: the probe with --challenge 150, SIGSTOPped DELAY_MS after its
# start for STOP_MS (the delay is past its setup: the sampler starts first thing).
run_stalled() {
  timeout -k 5 30 python3 - "$probe" "$1" "$2" "$3" <<'PY' || fail "the probe did not run ($1)"
import signal, subprocess, sys, time
probe, out, delay, stop = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with open(out, "wb") as f:
    p = subprocess.Popen([probe, "--json", "--nonce", "0123456789abcdef0123", "--challenge", "150"],
                         stdout=f)
    time.sleep(delay / 1000)
    p.send_signal(signal.SIGSTOP)
    time.sleep(stop / 1000)
    p.send_signal(signal.SIGCONT)
    sys.exit(p.wait(timeout=20))
PY
}

# check OUT MIN_STALL_MS CAPPED: the window's length against the make-up rule.
check() {
  python3 - "$1" "$2" "$3" <<'PY' || fail "$1: the window does not follow the make-up rule"
import json, sys
c = json.load(open(sys.argv[1]))["run"]["challenge"]
min_stall, capped = int(sys.argv[2]) * 1000, sys.argv[3] == "capped"
window, asked, bound = c["end_us"] - c["start_us"], 150000, 4 * 150000
gaps = [(a, b) for a, b in c["gaps"]]
assert not c["stopped"] and not c["gaps_truncated"], c
longest = max((b - a for a, b in gaps), default=0)
assert longest >= min_stall, f"the stall ({min_stall} us) is not listed: longest {longest}"
# Every stretch but one ending the window (the last read to the end) grows it.
inside = [(a, b) for a, b in gaps if b < c["end_us"]]
want = min(asked + sum(b - a for a, b in inside), bound)
assert window >= want - 1000, f"window {window} us, under the {want} us its stretches ask"
if capped:
    resumed = max(b for a, b in gaps)
    assert c["end_us"] - resumed <= 100000, \
        f"the window ran {c['end_us'] - resumed} us past a stall longer than its bound"
print(f"window {window // 1000} ms, {len(gaps)} stretches unread (longest {longest // 1000} ms)")
PY
}

# A 100 ms stall early in the window: made up, the window is at least 250 ms.
run_stalled "$TMP/short.json" 40 100
check "$TMP/short.json" 90 free
# A stall of 900 ms, past the 600 ms bound: the window ends when the probe runs again.
run_stalled "$TMP/long.json" 40 900
check "$TMP/long.json" 800 capped
# Without a stall nothing changes: the window asked for, and its own short stretches made up.
timeout -k 5 30 "$probe" --json --nonce 0123456789abcdef0123 --challenge 150 >"$TMP/free.json" ||
  fail "the probe did not run"
check "$TMP/free.json" 0 free
echo "ok: the challenge window makes up its unread stretches, within its bound"
