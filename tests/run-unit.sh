#!/usr/bin/env bash
# Runs each Check unit suite binary (built with ASan+UBSan). CK_FORK=no keeps
# every test in one process so LeakSanitizer sees the whole run.
set -u
pass=0 fail=0
export CK_FORK=no
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for bin in "$@"; do
  if "$bin"; then pass=$((pass + 1)); else echo "FAIL unit suite: $bin" >&2; fail=$((fail + 1)); fi
done
echo "unit suites: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
