#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make test`: unit suites then integration tests; one closing line for CI.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
cd "$root"
unit_rc=0 int_rc=0
out=$(mktemp)
# The suites only: beside them are their dependency (.d) and link-trace files.
suites=()
for t in "$build"/tests/test_*; do
  case ${t##*/} in *.*) continue ;; esac
  [ -x "$t" ] && suites+=("$t")
done
t0=$SECONDS
tests/run-unit.sh "${suites[@]}" 2>&1 | tee "$out"; unit_rc=${PIPESTATUS[0]}
t1=$SECONDS
BUILD=$build tests/run-integration.sh 2>&1 | tee -a "$out"; int_rc=${PIPESTATUS[0]}
t2=$SECONDS
# Totals over suites and scripts: Check's own per-suite lines are above.
p=$(sed -n 's/^\(unit suites\|integration\): \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p' "$out" | paste -sd+ | bc)
f=$(sed -n 's/^\(unit suites\|integration\): \([0-9]*\) passed, \([0-9]*\) failed.*/\3/p' "$out" | paste -sd+ | bc)
s=$(sed -n 's/^integration: .* \([0-9]*\) skipped$/\1/p' "$out")
rm -f "$out"
# Where the time went (wall): the build before this script is make's own.
echo "time: unit suites $((t1 - t0)) s, integration $((t2 - t1)) s"
echo "${p:-0} passed, ${f:-0} failed, ${s:-0} skipped"
[ "$unit_rc" -eq 0 ] && [ "$int_rc" -eq 0 ]
