#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/verify.sh - `isotier verify` figures on the real backends:
#   end-to-end `verify --all` wall time with --jobs 1 and --jobs 4 (hyperfine),
#   and per backend the tool's own timer (provision + probe + destroy, from
#   --json), median of several single-backend runs.
# Targets (issue 4): bwrap, runc <= 50 ms; runsc <= 300 ms; qemu-microvm (TCG)
# <= 2 s; verify --all --jobs 4 <= 2.5 s. Figures only: nothing here fails on a miss.
set -euo pipefail
# BENCH_QUICK=1 (make test): one run of everything, tiny inputs; checks the bench works, no figures.
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
bin=$root/$build/isotier
export ISOTIER_PROBE=${ISOTIER_PROBE:-$root/$build/isotier-probe}
tmp=$(mktemp -d /tmp/ivb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/bench.db
runs_small=${BENCH_RUNS:-$(q 10 1)}

# Quick mode (bench_quick.sh, under `make test`): two backends, no `verify --all`: the bench
# works; the figures need the full run.
warm=(--all)
[ -z "${BENCH_QUICK:-}" ] || warm=(--backend bwrap --backend host)
rc=0
"$bin" verify "${warm[@]}" --db "$db" --json >"$tmp/warm.json" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 2 ] || {
  echo "verify --all failed; figures would be meaningless:" >&2
  cat "$tmp/warm.json" >&2
  exit 1
}

# Runs one backend n times; prints the median of the tool's own duration_ms,
# then (tab) the median of each phase and of the probe's own duration.
median_ms() {
  local b=$1 n=$2 i
  for i in $(seq 1 "$n"); do
    "$bin" verify --backend "$b" --db "$db" --json >"$tmp/one.json" || [ $? = 2 ]
    cp "$tmp/one.json" "$tmp/$b.$i.json"
  done
  python3 - "$b" "$tmp"/"$b".*.json <<'EOF'
import json, statistics, sys
rs = [json.load(open(f))["results"][0] for f in sys.argv[2:]]
for r in rs:
    assert r["verdict"] in ("CONFIRMED", "INCONCLUSIVE"), r
med = lambda xs: int(statistics.median(xs))
phases = " ".join(f"{k} {med([r['timings_ms'][k] for r in rs])}"
                  for k in ("available", "provision", "exec", "destroy", "evidence"))
probe = med([r.get("probe_duration_us", 0) for r in rs]) // 1000
print(f"{med([r['duration_ms'] for r in rs])}\t{phases}; probe itself {probe}")
EOF
}

printf '%-14s %8s %8s  %-5s %-6s  %s\n' backend median target runs result "median phases (ms)"
row() { # name "median<TAB>phases" target runs
  local flag=ok ms=${2%%$'\t'*} phases=${2#*$'\t'}
  [ "$ms" -le "$3" ] || flag="MISSED"
  printf '%-14s %6s ms %5s ms  %-5s %-6s  %s\n' "$1" "$ms" "$3" "$4" "$flag" "$phases"
}
row bwrap "$(median_ms bwrap "$runs_small")" 50 "$runs_small"
if [ -n "${BENCH_QUICK:-}" ]; then
  row host "$(median_ms host 1)" 50 1
  exit 0
fi
row runc "$(median_ms runc "$runs_small")" 50 "$runs_small"
row runsc "$(median_ms runsc "$runs_small")" 300 "$runs_small"
if "$root/$build/tests/backend-run" --backend qemu-microvm --available >/dev/null 2>&1; then
  row qemu-microvm "$(median_ms qemu-microvm "$(q 3 1)")" 2000 "$(q 3 1)"
else
  echo "qemu-microvm: SKIPPED (unavailable)"
fi
row host "$(median_ms host "$runs_small")" 50 "$runs_small"

echo
echo "verify --all, end to end (target --jobs 4 <= 2500 ms):"
if command -v hyperfine >/dev/null; then
  # Quick mode times --jobs 4 only: the bench is exercised, the suite kept short.
  jobs1=(-n 'verify --all --jobs 1' "$bin verify --all --jobs 1 --db $db --json")
  [ -z "${BENCH_QUICK:-}" ] || jobs1=()
  hyperfine --style basic --warmup "$(q 1 0)" --runs "${BENCH_ALL_RUNS:-$(q 3 1)}" \
    "${jobs1[@]}" \
    -n 'verify --all --jobs 4' "$bin verify --all --jobs 4 --db $db --json" \
    --export-json "$tmp/all.json" >/dev/null 2>"$tmp/hyperfine.err" || { cat "$tmp/hyperfine.err" >&2; exit 1; }
  grep -q 'outliers' "$tmp/hyperfine.err" && echo "  (hyperfine saw statistical outliers: the machine is shared)"
  python3 - "$tmp/all.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f'  {r["command"]:24} median {r["median"]*1000:7.0f} ms  (min {r["min"]*1000:.0f}, max {r["max"]*1000:.0f}, {len(r["times"])} runs)')
EOF
else
  for j in 1 4; do
    "$bin" verify --all --jobs "$j" --db "$db" --json >"$tmp/all.json"
    echo "  verify --all --jobs $j: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_ms"])' "$tmp/all.json") ms (tool's own timer, 1 run)"
  done
fi
