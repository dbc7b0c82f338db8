#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/bench.sh - what `make bench` runs: every bench/*.sh in turn, in the foreground (no
# background job of make's to wait for), each bounded by BENCH_SCRIPT_TIMEOUT seconds (default
# 3600), then the verdicts of every pair. A script that fails or outlives its bound is named and
# the next one runs; the exit status is 1 when any did, after all have run.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
summary=$root/$build/bench-verdicts.txt
rm -f "$summary"
failed=()
for b in "$root"/bench/*.sh; do
  name=bench/$(basename "$b")
  echo "== $name"
  BUILD=$build BENCH_SUMMARY=$summary timeout -k 10 "${BENCH_SCRIPT_TIMEOUT:-3600}" "$b"
  rc=$?
  if [ "$rc" != 0 ]; then
    why="exit $rc"
    [ "$rc" != 124 ] || why="over ${BENCH_SCRIPT_TIMEOUT:-3600} s"
    echo "== $name: FAILED ($why)"
    echo "$name: FAILED ($why)" >>"$summary"
    failed+=("$name")
  fi
done
echo "== verdicts (median ratio to the floor over interleaved pairs; met only when its 99% interval is under the target)"
cat "$summary" 2>/dev/null
if [ "${#failed[@]}" -gt 0 ]; then
  echo "bench: ${#failed[@]} script(s) failed: ${failed[*]}" >&2
  exit 1
fi
