#!/usr/bin/env bash
# Runs tests/integration/*.sh. Each script exits 0 (pass), 77 (skipped: it
# prints why, loudly) or anything else (fail). ISOTIER_TESTS=glob narrows.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
export ISOTIER_ROOT="$root" BUILD="${BUILD:-build}"
export ISOTIER_BIN="$root/$BUILD/isotier" ISOTIER_PROBE="$root/$BUILD/isotier-probe"
pass=0 fail=0 skip=0 failed=()
for t in "$root"/tests/integration/${ISOTIER_TESTS:-*}.sh; do
  [ -e "$t" ] || continue
  name=$(basename "$t" .sh)
  start=$(date +%s.%N)
  log=$(mktemp)
  timeout --kill-after=10 900 bash "$t" >"$log" 2>&1
  rc=$?
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  case $rc in
    0) pass=$((pass + 1)); echo "PASS $name (${secs}s)" ;;
    77) skip=$((skip + 1)); echo "SKIP $name (${secs}s): $(tail -n 1 "$log")" ;;
    *) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (rc=$rc, ${secs}s)"; sed 's/^/    /' "$log" | tail -n 60 ;;
  esac
  rm -f "$log"
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
