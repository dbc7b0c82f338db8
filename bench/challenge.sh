#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/challenge.sh - what proof costs: per local backend, side by side (hyperfine, medians),
#   floor   the runtime's own start-up running the probe (backend-run: provision, one probe run,
#           destroy; no catalogue, no history, no host view)
#   verify  `isotier verify --backend B`: the same run with the run's nonce, the host watching
#           its process table and the probe answering the host's task-count challenge
#           (ISOTIER_CHALLENGE_MS of sampling), judged and stored in a SQLite history
# and the difference: the challenge's added cost (target: under 1 s added per backend, issue 21).
# The two run as interleaved pairs (bench/pair.c; medians). The ratio against the bare runtime,
# with its verdict, is bench/floor.sh's.
set -euo pipefail
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
driver="$root/$build/tests/backend-run"
probe="$root/$build/isotier-probe"
cli="$root/$build/isotier"
[ -x "$driver" ] && [ -x "$probe" ] && [ -x "$cli" ] || { echo "bench/challenge: build first (make BUILD=$build)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isotier-bench-challenge.XXXXXX)
chmod 711 "$tmp"
trap 'rm -rf "$tmp"' EXIT
cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$tmp/pair" "$root/bench/pair.c" -lm
backends=(bwrap runc crun runsc nspawn qemu-microvm)
[ -z "${BENCH_QUICK:-}" ] || backends=(bwrap) # quick: the bench works; figures need the rest
for b in "${backends[@]}"; do
  if ! why=$("$driver" --backend "$b" --available); then
    echo "== $b: SKIPPED (unavailable: $why)"
    continue
  fi
  runs=$(q 10 1)
  case $b in qemu-*) runs=${QEMU_RUNS:-$(q 5 1)} ;; esac
  echo "== $b"
  # Interleaved pairs (bench/pair.c): run one after the other, load drift would decide.
  "$tmp/pair" -n "$runs" -w "$(q 1 0)" -a 0,2 -T 300 \
    verify "$cli verify --backend $b --db $tmp/$b.db" \
    floor "$driver --backend $b --minimal --probe $probe -- /.isotier/isotier-probe --json" \
    >"$tmp/$b.out"
  sed "s#$driver#backend-run#; s#$probe#isotier-probe#; s#$cli#isotier#; s#$tmp/##" "$tmp/$b.out"
  awk -v b="$b" '$1 == "verify" {v = $3} $1 == "floor" {f = $3}
    END {printf "%s: floor %.0f ms, verify %.0f ms: %.2fx the floor, %+.0f ms added (%s the 1 s target)\n",
      b, f, v, v / f, v - f, (v - f < 1000 ? "within" : "OVER")}' "$tmp/$b.out"
done
