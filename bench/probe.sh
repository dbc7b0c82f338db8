#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/probe.sh - isotier-probe's binary size and median wall time: natively against its floors
# (interleaved pairs, with verdicts: see below), in bubblewrap, and under runsc --platform=ptrace (next
# to `runsc do /bin/true`, so the probe's own share is visible).
# Targets: binary <= 256 KiB (issue 2); native <= 1.5x its own system calls and <= 1.0x
# systemd-detect-virt (issue 24); whole runsc ptrace run <= 150 ms (figure only).
set -euo pipefail
# BENCH_QUICK=1 (make test): one run of everything, tiny inputs; checks the bench works, no figures.
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
probe="$root/$build/isotier-probe"
[ -x "$probe" ] || { echo "bench/probe: build first (make BUILD=$build)" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench/probe: hyperfine not installed" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isotier-bench-probe.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
cp "$probe" "$tmp/isotier-probe"

size=$(stat -c %s "$probe")
printf '== binary size: %d bytes (%.1f KiB; target <= 256 KiB) %s\n' "$size" "$(echo "$size/1024" | bc -l)" \
  "$([ "$size" -le 262144 ] && echo OK || echo OVER)"

# The arm64 probe (cross-built, static): musl for arm64 when musl-dev:arm64 is installed.
if [ -x "$probe-aarch64" ]; then
  asize=$(stat -c %s "$probe-aarch64")
  libc=glibc
  # a static musl binary carries no libc name; glibc's carries "GNU C Library"
  grep -qa 'GNU C Library' "$probe-aarch64" || libc=musl
  printf '== binary size, aarch64 (%s, static): %d bytes (%.1f KiB; target <= 256 KiB) %s\n' "$libc" "$asize" \
    "$(echo "$asize/1024" | bc -l)" "$([ "$asize" -le 262144 ] && echo OK || echo OVER)"
else
  echo "== binary size, aarch64: SKIPPED (no $build/isotier-probe-aarch64: no aarch64 cross compiler)"
fi

median() { # hyperfine JSON -> "name median_ms" per command
  python3 - "$1" <<'PY'
import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%s\t%.2f" % (r["command"], statistics.median(r["times"]) * 1000))
PY
}

# The probe against its floors, in interleaved pairs (bench/pair.c: A B, B A, ...), so load
# that drifts over the run weighs on both sides alike (issue 24: run one after the other, the
# drift decided the verdict):
#   a static program making exactly the probe's system calls (bench/syscall_twin.c replaying an
#   strace of this probe on this host: the same opens, reads, listings, stats, maps, writes),
#   target <= 1.5x: what the probe's own analysis may add;
#   systemd-detect-virt, target <= 1.0x (issue 2: no slower).
pair=$tmp/pair
cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$pair" "$root/bench/pair.c" -lm
# At least RUNS pairs, more while the ratio's 99% interval straddles the target, up to RUNS_MAX.
# -c: each side is one program doing all its own work (no daemon), so met needs its CPU ratio under the
# target too: at a few ms a run, the waits a loaded CPU adds to both sides pull the wall ratio
# toward 1 (three reruns gave 1.27-1.65x wall against a steady 1.58-1.60x CPU).
pairs=${RUNS:-$(q 100 1)}
max_pairs=${RUNS_MAX:-$(q 800 1)}
echo "== native: isotier-probe against its floors ($pairs to $max_pairs interleaved pairs each)"
if command -v strace >/dev/null; then
  twin_cc=$(command -v musl-gcc || echo cc)
  "$twin_cc" -std=gnu11 -O2 -Wall -Wextra -Werror -static -o "$tmp/syscall-twin" "$root/bench/syscall_twin.c"
  strace -f -qq -o "$tmp/trace" "$tmp/isotier-probe" --json >/dev/null
  python3 "$root/bench/syscall_twin.py" "$tmp/trace" >"$tmp/twin.script"
  echo "   (the twin replays $(grep -c . "$tmp/twin.script") of the $(grep -c . "$tmp/trace") traced calls)"
  "$pair" -n "$pairs" -N "$max_pairs" -w "$(q 5 0)" -t 1.5 -c -l "probe / its syscalls (static twin)" \
    isotier-probe "$tmp/isotier-probe --json" syscall-twin "$tmp/syscall-twin $tmp/twin.script" | sed "s#$tmp/##g"
else
  echo "   probe vs its syscalls: SKIPPED (strace not installed: the twin replays a trace)"
fi
if command -v systemd-detect-virt >/dev/null; then
  "$pair" -n "$pairs" -N "$max_pairs" -w "$(q 5 0)" -t 1.0 -c -l "probe / systemd-detect-virt" \
    isotier-probe "$tmp/isotier-probe --json" systemd-detect-virt "$(command -v systemd-detect-virt)" | sed "s#$tmp/##g"
else
  echo "   probe vs systemd-detect-virt: SKIPPED (not installed)"
fi

if command -v bwrap >/dev/null; then
  echo "== bubblewrap (whole run, median ms)"
  hyperfine -N --style basic --warmup "$(q 2 0)" --runs "${RUNS_BWRAP:-$(q 30 1)}" --export-json "$tmp/bwrap.json" \
    "bwrap --unshare-all --die-with-parent --tmpfs / --ro-bind $tmp/isotier-probe /isotier-probe --proc /proc --dev /dev --new-session /isotier-probe --json" \
    2>&1 | grep -v '^ *$' | sed "s#$tmp#DIR#g"
  median "$tmp/bwrap.json" | sed "s#$tmp#DIR#g"
else
  echo "== bubblewrap: SKIPPED (bwrap not installed)"
fi

if command -v runsc >/dev/null; then
  echo "== runsc --platform=ptrace (whole run incl. sandbox start, median ms; target <= 150 ms)"
  rs=(runsc --platform=ptrace --network=none --ignore-cgroups --root "$tmp/runsc-state" do)
  mkdir -p "$tmp/runsc-state"
  if "${rs[@]}" /bin/true >/dev/null 2>&1; then
    hyperfine -N --style basic --warmup "$(q 2 0)" --runs "${RUNS_RUNSC:-$(q 15 1)}" --export-json "$tmp/runsc.json" \
      "${rs[*]} /bin/true" "${rs[*]} $tmp/isotier-probe --json" 2>&1 | grep -v '^ *$' | sed "s#$tmp#DIR#g"
    median "$tmp/runsc.json" | sed "s#$tmp#DIR#g"
    # The probe's own time inside gVisor, from its report.
    "${rs[@]}" "$tmp/isotier-probe" --json 2>/dev/null | python3 -c \
      'import json,sys; d=json.load(sys.stdin); print("probe duration_us inside runsc: %d (tier %s)" % (d["duration_us"], d["observed_tier"]))'
  else
    echo "   SKIPPED (runsc do cannot start here)"
  fi
else
  echo "== runsc: SKIPPED (runsc not installed)"
fi
