#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/fuzz/run.sh BUILD SECONDS [HARNESS...] - runs each libFuzzer harness
# for SECONDS over its seed corpus (BUILD/fuzz/corpus/<harness>, regenerated
# from the test fixtures) and its regression inputs (tests/fuzz/regress/
# <harness>/: every crash ever found, kept in the repository). A crash or a
# failed property stops it: the input is saved under BUILD/fuzz/artifacts/;
# once fixed, copy it into tests/fuzz/regress/<harness>/.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?BUILD}
secs=${2:?SECONDS}
shift 2
cd "$root"
python3 tests/fuzz/seeds.py "$build/fuzz/seeds" "$build/isotier-probe" || exit 1
mkdir -p "$build/fuzz/artifacts"
dict_of() {
  case $1 in
    fuzz_htmltext) echo html ;;
    fuzz_churn_md) echo markdown ;;
    fuzz_probe_replay) echo probe ;;
    fuzz_redact_stream) echo redact ;;
    *) echo json ;;
  esac
}
names=("$@")
# Every harness in tests/fuzz/ (not only those that happen to be built): one
# that is not built is a failure, never silently left out.
[ "${#names[@]}" -gt 0 ] || names=($(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//'))
[ "${#names[@]}" -gt 0 ] || { echo "fuzz: no harness in tests/fuzz" >&2; exit 1; }
for h in "${names[@]}"; do
  [ -x "$build/fuzz/$h" ] || { echo "fuzz: $h is not built under $build/fuzz (make fuzz-build)" >&2; exit 1; }
done
failed=()
for h in "${names[@]}"; do
  corpus=$build/fuzz/corpus/$h
  mkdir -p "$corpus" "tests/fuzz/regress/$h"
  cp -n "$build/fuzz/seeds/$h"/* "$corpus"/ 2>/dev/null
  log=$build/fuzz/$h.log
  start=$(date +%s)
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$build/fuzz/$h" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -max_len=70000 \
    -print_final_stats=1 -dict="tests/fuzz/dict/$(dict_of "$h").dict" \
    -artifact_prefix="$build/fuzz/artifacts/$h-" "$corpus" "tests/fuzz/regress/$h" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $h: ok, ${execs:-?} executions in $(( $(date +%s) - start )) s"
  else
    failed+=("$h")
    echo "fuzz $h: FAILED (rc $rc); log $log:"
    grep -E 'property failed|ERROR: |SUMMARY|Test unit written|runtime error' "$log" | head -n 20 | sed 's/^/    /'
  fi
done
[ "${#failed[@]}" -eq 0 ] || { echo "fuzz: failing harnesses: ${failed[*]}" >&2; exit 1; }
