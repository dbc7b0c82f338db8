#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# isotier_create(): refusal latency (target <= 1 ms, nothing touched) and
# create+exec+destroy per backend through `isotier run`.
set -eu
# BENCH_QUICK=1 (make test): one run of everything, tiny inputs; checks the bench works, no figures.
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${BUILD:-build}
make -s -C "$root" BUILD="${BUILD:-build}" "${BUILD:-build}/bench/bench_create" >/dev/null
"$build/bench/bench_create" runc "$(q 2000 20)"
"$build/bench/bench_create" bwrap "$(q 2000 20)"
hyperfine -N --warmup "$(q 2 0)" --runs "$(q 10 1)" --style basic \
  "$build/isotier run --new-db --backend bwrap -- /bin/true" \
  "$build/isotier run --new-db --backend runc -- /bin/true" \
  "$build/isotier run --new-db --backend runsc -- /bin/true" 2>&1 | grep -E 'Benchmark|Time'
if "$build/tests/backend-run" --backend qemu-microvm --available >/dev/null 2>&1; then
  hyperfine -N --runs "$(q 3 1)" --style basic "$build/isotier run --new-db --backend qemu-microvm -- /bin/true" 2>&1 | grep -E 'Benchmark|Time'
else
  echo "qemu-microvm: SKIPPED (unavailable)"
fi
