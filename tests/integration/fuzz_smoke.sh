#!/usr/bin/env bash
# Every libFuzzer harness in tests/fuzz/ for a few seconds over its seed
# corpus and its regression inputs (FUZZ_SMOKE_SECONDS, default 5): CI keeps
# them building and green, and a crash found once stays fixed. `make fuzz`
# runs them for real (FUZZ_SECONDS, default 60).
. "$ISOTIER_ROOT/tests/lib.sh"
fuzz=$ISOTIER_ROOT/$BUILD/fuzz
command -v "${FUZZ_CC:-clang}" >/dev/null || skip "clang is not installed (scripts/deps.sh): no fuzz harnesses"
n=0
for src in "$ISOTIER_ROOT"/tests/fuzz/fuzz_*.c; do
  h=$(basename "$src" .c)
  [ -x "$fuzz/$h" ] || fail "harness $h not built (make fuzz-build)"
  n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "expected at least 10 harnesses, found $n"
"$ISOTIER_ROOT/tests/fuzz/run.sh" "$BUILD" "${FUZZ_SMOKE_SECONDS:-5}" || fail "a fuzz harness failed"
echo "fuzz smoke: $n harnesses green"
