#!/usr/bin/env bash
# bench/challenge.sh - what proof costs: per local backend, side by side (hyperfine, medians),
#   floor   the runtime's own start-up running the probe (backend-run: provision, one probe run,
#           destroy; no catalogue, no history, no host view)
#   verify  `isotier verify --backend B`: the same run with the run's nonce, the host watching
#           its process table and the probe answering the host's task-count challenge
#           (ISOTIER_CHALLENGE_MS of sampling), judged and stored in a SQLite history
# and the difference: the challenge's added cost (target: under 1 s added per backend, issue 21).
set -euo pipefail
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
driver="$root/$build/tests/backend-run"
probe="$root/$build/isotier-probe"
cli="$root/$build/isotier"
[ -x "$driver" ] && [ -x "$probe" ] && [ -x "$cli" ] || { echo "bench/challenge: build first (make BUILD=$build)" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench/challenge: hyperfine not installed" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isotier-bench-challenge.XXXXXX)
chmod 711 "$tmp"
trap 'rm -rf "$tmp"' EXIT
for b in bwrap runc crun runsc nspawn qemu-microvm; do
  if ! why=$("$driver" --backend "$b" --available); then
    echo "== $b: SKIPPED (unavailable: $why)"
    continue
  fi
  runs=$(q 10 1)
  case $b in qemu-*) runs=${QEMU_RUNS:-$(q 5 1)} ;; esac
  echo "== $b"
  hyperfine -N --style basic --warmup "$(q 1 0)" --runs "$runs" --export-json "$tmp/$b.json" \
    -n floor "$driver --backend $b --minimal --probe $probe -- /.isotier/isotier-probe --json" \
    -n verify "$cli verify --backend $b --db $tmp/$b.db" \
    2>&1 | grep -v '^ *$' | sed "s#$driver#backend-run#; s#$probe#isotier-probe#; s#$cli#isotier#; s#$tmp/##"
  python3 - "$tmp/$b.json" "$b" <<'PY'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) * 1000 for x in json.load(open(sys.argv[1]))["results"]}
floor, verify = r["floor"], r["verify"]
added = verify - floor
print(f"{sys.argv[2]}: floor {floor:.0f} ms, verify {verify:.0f} ms: {verify / floor:.2f}x the floor, "
      f"{added:+.0f} ms added ({'within' if added < 1000 else 'OVER'} the 1 s target)")
PY
done
