#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# runner_order: tests/run-integration.sh starts the longest test first by its measured time (a
# times file), not by its speed tag, records this run's times for the next, and never starts beside
# a quiet test a companion that holds a resource the next quiet test waits for. Each fake test
# below logs its start and end in one file; the order there is the runner's.
source "$ISOTIER_ROOT/tests/lib.sh"

d=$TMP/integ
mkdir -p "$d" "$TMP/locks"
fake() { # NAME TAG SECONDS: a test that logs its start, sleeps, logs its end
  printf '#!/usr/bin/env bash\n# isotier-test: %s\necho "start %s" >>"%s"\nsleep %s\necho "end %s" >>"%s"\n' \
    "$2" "$1" "$TMP/log" "$3" "$1" "$TMP/log" >"$d/$1.sh"
}
runner() { # runs the folder's tests with the times file $TMP/times; output in $TMP/out
  rm -f "$TMP/log"
  ISOTIER_TESTS='' ISOTIER_TESTS_SPEED='' ISOTIER_TEST_DIR="$d" ISOTIER_TEST_LOCK_DIR="$TMP/locks" \
    ISOTIER_TEST_TIMES="$TMP/times" ISOTIER_TEST_JOBS=3 timeout 120 bash "$ISOTIER_ROOT/tests/run-integration.sh" \
    >"$TMP/out" 2>&1 || fail "the runner failed: $(cat "$TMP/out")"
}
starts() { sed -n 's/^start //p' "$TMP/log" | xargs; }

# One resource, so one at a time: the tag says `fast` for the long one, the times file says 60 s.
fake short "normal; uses: one" 0
fake long "fast; uses: one" 0
fake unmeasured "slow; uses: one" 0
printf 'long 60.0 1.0\nshort 2.0 0.5\nbogus line\n../evil x\n' >"$TMP/times"
runner
assert_eq "$(starts)" "long unmeasured short" "measured longest first (60 s), then the slow tag's guess, then 2 s"
# The run wrote its own figures for the next run (the ones it did not run kept).
for t in long short unmeasured; do
  grep -qE "^$t [0-9.]+ [0-9.]+$" "$TMP/times" || fail "no figure for $t in the times file: $(cat "$TMP/times")"
done
grep -q 'bogus\|evil' "$TMP/times" && fail "the times file kept lines that are no figures: $(cat "$TMP/times")"
# Without a times file: the tags (slow, normal, fast), as before.
rm -f "$TMP/times"
runner
assert_eq "$(starts)" "unmeasured short long" "by the speed tag without figures"
rm -f "$d"/*.sh

# A quiet test q1 runs; q2 (quiet, and docker) waits for it. Of the companions, od (docker,
# measured longer) must not start beside q1: it would hold docker after q1 ended. o2 runs instead.
fake q1 "normal; uses: quiet" 2
fake q2 "normal; uses: quiet docker" 0
fake od "normal; uses: docker" 0
fake o2 "normal" 1
printf 'q1 20 1\nq2 10 1\nod 30 1\no2 5 1\n' >"$TMP/times"
runner
order=$(grep -n . "$TMP/log" | tr '\n' ' ')
line() { grep -n "^$1\$" "$TMP/log" | cut -d: -f1; }
[ "$(line "start q1")" -le 2 ] || fail "q1 did not start first: $order"
[ "$(line "start o2")" -lt "$(line "end q1")" ] || fail "o2 did not run beside q1: $order"
[ "$(line "start q2")" -lt "$(line "start od")" ] || fail "od overtook the waiting quiet q2: $order"
rm -f "$d"/*.sh

# after: the dependent test (measured longest, tagged to start first) waits for the one it names;
# another test runs meanwhile.
fake user "slow; after: maker other-not-in-run" 0
fake maker "fast" 1
fake free "fast" 0
printf 'user 90 1\nmaker 2 1\nfree 1 1\n' >"$TMP/times"
runner
[ "$(line "end maker")" -lt "$(line "start user")" ] || fail "user started before maker ended: $(grep -n . "$TMP/log" | tr '\n' ' ')"
[ "$(line "start free")" -lt "$(line "start user")" ] || fail "free waited behind the blocked user: $(grep -n . "$TMP/log" | tr '\n' ' ')"
echo "runner_order: longest first by measured time, times recorded, no companion holds what a quiet test waits for, after: waits"
