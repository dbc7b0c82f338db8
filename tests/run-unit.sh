#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs each Check unit suite binary (built with ASan+UBSan), ISOTIER_UNIT_JOBS at a time (a job
# per core by default; 1 runs them one by one). CK_FORK=no keeps every test in one process so
# LeakSanitizer sees the whole run. Each suite's output prints whole when it ends, so two
# suites' lines never interleave. A suite whose source (tests/unit/NAME.c) opens with the line
# `/* isotier-unit: alone ... */` runs first, by itself: its task-count patterns and their
# timing (the host's challenge) fail closed beside another suite's load.
# Every suite ends by itself: CK_FORK=no turns Check's own per-test timeouts off, so each suite
# runs under timeout(1), ISOTIER_UNIT_TIMEOUT seconds (300), then is killed and named.
# ISOTIER_UNIT_CHANGED=1 (make check) runs a suite only when it changed since it last passed here:
# SUITE.passed is touched after a pass and removed on a failure, and a suite is run again when the
# stamp is missing or older than the suite (relinked when a member it links changed), or than any
# file of the tree that is not C source (what a suite reads: fixtures, the catalogue, docs held to
# the code such as SIGNALS.md) or the probe binaries the suites execute. A skip is printed; every
# other caller (make unit, make test) runs every suite it names.
set -u
jobs=${ISOTIER_UNIT_JOBS:-$(nproc 2>/dev/null || echo 2)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run-unit.sh: ISOTIER_UNIT_JOBS must be a positive number, not '$jobs'" >&2; exit 2; }
limit=${ISOTIER_UNIT_TIMEOUT:-300}
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "run-unit.sh: ISOTIER_UNIT_TIMEOUT must be a positive number of seconds, not '$limit'" >&2; exit 2; }
export CK_FORK=no
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
declare -A running=() logs=()
start() { # BIN: runs it in the background, its output to its log
  local log=$out/${1##*/}.log
  timeout --kill-after=5 "$limit" "$1" >"$log" 2>&1 &
  running[$!]=$1 logs[$!]=$log
}
reap() { # waits for one running suite to end: its output, then its verdict
  local rc
  wait -n -p done_pid "${!running[@]}"
  rc=$?
  cat "${logs[$done_pid]}"
  if [ "$rc" -eq 0 ]; then
    pass=$((pass + 1))
    [ "$changed_only" != 1 ] || touch "${running[$done_pid]}.passed"
  else
    rm -f "${running[$done_pid]}.passed"
    # 124: timeout(1) ended it; 137: it ignored SIGTERM and was killed.
    case $rc in
      124 | 137) echo "TIMEOUT unit suite: ${running[$done_pid]} still running after ${limit} s, killed" >&2 ;;
    esac
    echo "FAIL unit suite: ${running[$done_pid]}" >&2
    fail=$((fail + 1))
  fi
  unset "running[$done_pid]" "logs[$done_pid]"
}
root=$(cd "$(dirname "$0")/.." && pwd)
changed_only=${ISOTIER_UNIT_CHANGED:-0}
# Whether the suite passed here since it and everything it reads last changed (see above):
# its stamp is newer than the suite and than the newest of what it may read (found once).
newest_input=
if [ "$changed_only" = 1 ] && [ "$#" -gt 0 ]; then
  build=$(cd "$(dirname "$(dirname "$1")")" && pwd)
  newest_input=$({ find "$root" \( -path "$root/.git" -o -path "$build" \) -prune -o \
    -type f ! -name '*.[ch]' -printf '%T@ %p\n'
    find "$build" -maxdepth 2 -type f \( -name 'isotier-probe*' -o -name 'fault-probe*' \) -printf '%T@ %p\n'
  } 2>/dev/null | sort -n | tail -n 1 | cut -d' ' -f2-)
fi
unchanged() {
  local stamp=$1.passed
  [ -e "$stamp" ] && [ "$stamp" -nt "$1" ] && { [ -z "$newest_input" ] || [ "$stamp" -nt "$newest_input" ]; }
}
alone=() together=()
skipped=0
for bin in "$@"; do
  if [ "$changed_only" = 1 ] && unchanged "$bin"; then
    skipped=$((skipped + 1))
    continue
  fi
  if head -n 1 "$root/tests/unit/${bin##*/}.c" 2>/dev/null | grep -q '^/\* isotier-unit: alone'; then
    alone+=("$bin")
  else
    together+=("$bin")
  fi
done
for bin in "${alone[@]}"; do
  start "$bin"
  reap
done
for bin in "${together[@]}"; do
  [ "${#running[@]}" -lt "$jobs" ] || reap
  start "$bin"
done
while [ "${#running[@]}" -gt 0 ]; do reap; done
[ "$skipped" -eq 0 ] || echo "unit suites: $skipped unchanged since they last passed here, not run (make unit runs them)"
echo "unit suites: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
