#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/challenge.sh - what proof costs: per local backend, side by side (interleaved pairs,
# bench/pair.c; medians),
#   alone   the bare runtime running the probe alone (backend-run: provision, one probe run
#           without a challenge, destroy; no catalogue, no history, no host view)
#   verify  `isotier verify --backend B`: the same run with the run's nonce, the host watching
#           its process table and the probe answering the host's task-count challenge
#           (ISOTIER_CHALLENGE_MS of sampling beside the detection; stopped as soon as the host
#           sees the probe), judged and stored in a SQLite history
# and the difference: the proof's added milliseconds (the median of the pairs' own differences)
# and its ratio (target: at most 150 ms added, issue 43). A pair this host could not measure is named NOT MEASURED and the next runs.
# The ratio against the runtime running the probe with its challenge, with its verdict, is
# bench/floor.sh's.
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
target_ms=150
# As root every isotier shares the host's challenge lock: each pair holds it (pair -L) so no
# other verification's pattern loads the CPU meanwhile, and the timed verify takes a lock of its
# own so it never queues behind one (as bench/floor.sh does).
hold=() timed="$cli verify"
if [ "$(id -u)" = 0 ]; then
  mkdir -p /run/isotier
  hold=(-L /run/isotier/challenge.lock)
  timed="env ISOTIER_CHALLENGE_LOCK=$tmp/challenge.lock $cli verify"
fi
backends=(${BENCH_BACKENDS:-bwrap runc crun runsc nspawn docker podman qemu-microvm})
[ -z "${BENCH_QUICK:-}" ] || backends=(bwrap) # quick: the bench works; figures need the rest
table=$tmp/table
printf '%-14s %10s %10s %10s %7s  %s\n' backend alone verify added ratio "target <= +${target_ms} ms" >"$table"
for b in "${backends[@]}"; do
  if ! why=$("$driver" --backend "$b" --available 2>&1); then
    echo "== $b: SKIPPED (unavailable: $(echo "$why" | head -c 200))"
    printf '%-14s %s\n' "$b" "SKIPPED (unavailable)" >>"$table"
    continue
  fi
  runs=$(q 10 1)
  # A TCG guest's boot spreads by about a second from run to run: with 5 pairs the median of the
  # differences moves by more than the target; two benches of 40 (about 2.5 minutes each) gave
  # +87 and +88 ms (README, Performance).
  case $b in qemu-*) runs=${QEMU_RUNS:-$(q 40 1)} ;; esac
  echo "== $b"
  # Interleaved pairs (bench/pair.c): run one after the other, load drift would decide.
  if ! "$tmp/pair" -n "$runs" -w "$(q 1 0)" -a 0,2 -T 300 "${hold[@]}" -l "verify $b / $b alone" \
    verify "$timed --backend $b --db $tmp/$b.db" \
    alone "$driver --backend $b --minimal --probe $probe -- /.isotier/isotier-probe --json" \
    >"$tmp/$b.out" 2>&1; then
    sed "s#$tmp/##g" "$tmp/$b.out" | tail -5
    echo "== $b: NOT MEASURED (a run failed or outlived its bound; above)"
    printf '%-14s %s\n' "$b" "NOT MEASURED (a run failed or outlived its bound)" >>"$table"
    echo "proof's price $b: NOT MEASURED (a run failed or outlived its bound)" >>"${BENCH_SUMMARY:-/dev/null}"
    continue
  fi
  sed "s#$driver#backend-run#; s#$probe#isotier-probe#; s#$cli#isotier#; s#$tmp/##g" "$tmp/$b.out"
  # added: the median of the pairs' own differences (pair.c), not the difference of the two
  # medians, which moves with each side's spread (a TCG guest's boot spreads by a second).
  awk -v b="$b" -v t="$target_ms" -v quick="${BENCH_QUICK:-}" '$1 == "verify" {v = $3} $1 == "alone" {f = $3}
    $1 == "added" {a = $3}
    END {
      verdict = quick != "" ? "(quick: one pair, no figure)" : (a <= t ? "met" : "MISSED (over)")
      printf "%-14s %7.0f ms %7.0f ms %+7.0f ms %6.2fx  %s\n", b, f, v, a, v / f, verdict
    }' "$tmp/$b.out" | tee -a "$table" | sed 's/^/proof'"'"'s price /' >>"${BENCH_SUMMARY:-/dev/null}"
done
echo
echo "the proof's price per local backend (medians over interleaved pairs, added: of the pairs' differences; host CPU pressure in each pair's output above):"
cat "$table"
