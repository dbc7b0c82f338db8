#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# A verdict this run's own load left INCONCLUSIVE is verified again, alone, at the end of the
# run (cmd_verify.c quiet_retries): the scheduled job on a small host would otherwise alert on
# what its own --jobs did. The load is made real and deterministic the way a run's siblings
# make it: the host's challenge lock (host_watch.c: one pattern at a time) is held past the
# sandbox's --timeout, as a slow sibling's pattern holds it, so the host cannot run its
# task-count challenge and cannot complete its checks. The holder lets go when verify says it
# verifies runsc again alone.
#   - --jobs 2 beside bwrap: retried alone, CONFIRMED; both observations are in the history
#     (the first INCONCLUSIVE one kept, first); each stored reason says what happened
#   - --jobs 1 (nothing of this run beside it): not retried, INCONCLUSIVE, exit 2
#   - held through the retry too: INCONCLUSIVE twice, one retry, never a better verdict
. "$ISOTIER_ROOT/tests/lib.sh"
command -v runsc >/dev/null || skip "runsc is not installed"
command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v flock >/dev/null || skip "flock is not installed"
grep -q "\"backend\":[[:space:]]*\"runsc\"" <<<"$("$ISOTIER_BIN" backends --json)" || fail "no runsc backend"
# This test's own challenge lock: holding it keeps no other test's verification waiting.
export ISOTIER_CHALLENGE_LOCK=$TMP/challenge.lock
: >"$ISOTIER_CHALLENGE_LOCK"

# run NAME UNTIL_TEXT VERIFY-ARGS...: verify while the lock is held until its stderr says
# UNTIL_TEXT ("": until it ends); sets rc, out, err.
run() {
  local name=$1 until=$2
  shift 2
  rm -f "$TMP/held"
  flock "$ISOTIER_CHALLENGE_LOCK" sh -c 'touch "$1"; for _ in $(seq 1 1200); do
      if [ -n "$3" ] && grep -qF -- "$3" "$2" 2>/dev/null; then exit 0; fi
      [ -e "$1.end" ] && exit 0; sleep 0.05; done; exit 1' sh "$TMP/held" "$TMP/$name.err" "$until" &
  local holder=$!
  for _ in $(seq 1 200); do [ -e "$TMP/held" ] && break; sleep 0.05; done
  [ -e "$TMP/held" ] || fail "$name: the lock holder never took the host's challenge lock"
  set +e
  "$ISOTIER_BIN" verify "$@" --db "$TMP/$name.db" --timeout 5 >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
  touch "$TMP/held.end"
  wait "$holder"
  local hrc=$?
  set -e
  rm -f "$TMP/held.end"
  out=$(cat "$TMP/$name.out") err=$(cat "$TMP/$name.err")
  assert_eq "$hrc" 0 "$name: the lock holder"
}
verdicts() { sql "$TMP/$1.db" "SELECT group_concat(verdict, ',') FROM (SELECT verdict FROM observations WHERE backend = 'runsc' ORDER BY id)"; }
reason() { sql "$TMP/$1.db" "SELECT reason FROM observations WHERE backend = 'runsc' ORDER BY id $2 LIMIT 1"; }

# --- beside bwrap: retried alone -------------------------------------------------------------
run beside "verifying it again alone" --backend runsc --backend bwrap --jobs 2
assert_contains "$err" "runsc: INCONCLUSIVE beside 1 sandboxes of this run (the host's checks could not complete): verifying it again alone" "the retry is said"
assert_eq "$rc" 0 "verify after the quiet retry ($out; $err)"
assert_eq "$(verdicts beside)" "INCONCLUSIVE,CONFIRMED" "both observations kept, the first one first"
assert_contains "$(reason beside ASC)" "the host could not run its task-count challenge" "the first attempt's reason"
assert_contains "$(reason beside DESC)" \
  "verified again alone: the first attempt, beside 1 other sandboxes of this run, was INCONCLUSIVE" "the retry's reason"
assert_eq "$(sql "$TMP/beside.db" "SELECT count(*) FROM observations WHERE backend = 'bwrap'")" 1 "bwrap verified once"
assert_eq "$(sql "$TMP/beside.db" "SELECT count(*) FROM runs WHERE status = 'ok'")" 1 "one run, ok"

# --- alone from the start: nothing of this run to blame, nothing retried ----------------------
run alone "" --backend runsc --jobs 1
assert_eq "$rc" 2 "runsc alone, the host's challenge held: INCONCLUSIVE ($out; $err)"
grep -q "again alone" <<<"$err" && fail "retried although it ran alone: $err"
assert_eq "$(verdicts alone)" "INCONCLUSIVE" "one observation"

# --- held through the retry too: still INCONCLUSIVE, retried once only ------------------------
run always "" --backend runsc --backend bwrap --jobs 2
assert_eq "$rc" 2 "held through its retry ($out; $err)"
assert_eq "$(grep -c "again alone" <<<"$err")" 1 "one retry"
assert_eq "$(verdicts always)" "INCONCLUSIVE,INCONCLUSIVE" "both attempts INCONCLUSIVE, nothing better"
echo "quiet retry ok"
