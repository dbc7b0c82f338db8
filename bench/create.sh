#!/usr/bin/env bash
# isotier_create(): refusal latency (target <= 1 ms, nothing touched) and
# create+exec+destroy per backend through `isotier run`.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${BUILD:-build}
make -s -C "$root" BUILD="${BUILD:-build}" "${BUILD:-build}/bench/bench_create" >/dev/null
"$build/bench/bench_create" runc 2000
"$build/bench/bench_create" bwrap 2000
hyperfine -N --warmup 2 --runs 10 --style basic \
  "$build/isotier run --new-db --backend bwrap -- /bin/true" \
  "$build/isotier run --new-db --backend runc -- /bin/true" \
  "$build/isotier run --new-db --backend runsc -- /bin/true" 2>&1 | grep -E 'Benchmark|Time'
hyperfine -N --runs 3 --style basic "$build/isotier run --new-db --backend qemu-microvm -- /bin/true" 2>&1 | grep -E 'Benchmark|Time'
