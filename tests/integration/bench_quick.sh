#!/usr/bin/env bash
# isotier-test: slow; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# Every bench/*.sh in its quick mode (BENCH_QUICK=1: one run of each command,
# tiny generated inputs): a bench that no longer runs on a fresh checkout fails
# here, not on the day someone wants the figures (issue 17, finding 8: the
# backends bench reused one capture directory and stopped at its first run).
. "$ISOTIER_ROOT/tests/lib.sh"
command -v hyperfine >/dev/null || skip "hyperfine is not installed (scripts/deps.sh)"
cd "$ISOTIER_ROOT"
failed=()
for b in bench/*.sh; do
  start=$(date +%s.%N)
  rc=0
  BENCH_QUICK=1 BUILD=$BUILD timeout -k 5 300 bash "$b" >"$TMP/out" 2>&1 || rc=$?
  printf '%s: rc %d, %.1f s\n' "$b" "$rc" "$(echo "$(date +%s.%N) - $start" | bc)"
  if [ "$rc" -ne 0 ]; then
    failed+=("$b")
    tail -n 15 "$TMP/out" | sed 's/^/    /'
  fi
done
[ "${#failed[@]}" -eq 0 ] || fail "bench scripts failing in quick mode: ${failed[*]}"
echo "bench quick: every script ran"
