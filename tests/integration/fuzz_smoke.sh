#!/usr/bin/env bash
# isotier-test: slow
# SPDX-License-Identifier: Apache-2.0
# Every libFuzzer harness in tests/fuzz/ for a few seconds over its seed
# corpus and its regression inputs: CI keeps them building and green, and a
# crash found once stays fixed. The time is one budget split across the
# harnesses (FUZZ_SMOKE_TOTAL, default 14 s, at least 1 s each; with the
# seeds and each harness's start, about 30 s in all), so a new harness does
# not lengthen `make test`; FUZZ_SMOKE_SECONDS sets each harness's time
# instead. `make fuzz` runs them for real (FUZZ_SECONDS, default 60).
. "$ISOTIER_ROOT/tests/lib.sh"
fuzz=$ISOTIER_ROOT/$BUILD/fuzz
command -v "${FUZZ_CC:-clang}" >/dev/null || skip "clang is not installed (scripts/deps.sh): no fuzz harnesses"
n=0
for src in "$ISOTIER_ROOT"/tests/fuzz/fuzz_*.c; do
  h=$(basename "$src" .c)
  [ -x "$fuzz/$h" ] || fail "harness $h not built (make fuzz-build)"
  n=$((n + 1))
done
[ "$n" -ge 12 ] || fail "expected at least 12 harnesses, found $n"
each=${FUZZ_SMOKE_SECONDS:-$(( ${FUZZ_SMOKE_TOTAL:-14} / n ))}
[ "$each" -ge 1 ] || each=1
out=$("$ISOTIER_ROOT/tests/fuzz/run.sh" "$BUILD" "$each") || fail "a fuzz harness failed: $out"
echo "$out"
# run.sh ran every harness in tests/fuzz/ (one line each), not a subset.
assert_eq "$(grep -c '^fuzz fuzz_.*: ok' <<<"$out")" "$n" "harnesses run"
echo "fuzz smoke: $n harnesses green, ${each} s each"
