#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# The host's challenge lock (host_watch.c): while another process holds it, a
# verification waits for it up to its deadline and then runs no challenge, so
# a gVisor claim, which only the challenge can prove on this host, stays
# INCONCLUSIVE and says why, never CONFIRMED; with the lock free the same
# verification runs its challenge. The lock here is the test's own
# (ISOTIER_CHALLENGE_LOCK): the host's would be shared with whatever else runs.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v runsc >/dev/null || skip "runsc is not installed"
command -v flock >/dev/null || skip "flock(1) is not installed"
export ISOTIER_CHALLENGE_LOCK=$TMP/challenge.lock

# Held by another process (flock(1), as another isotier's pattern would hold
# it) for longer than the verification may wait: --timeout 2.
# The holder is one process with the fd (sleep, exec'd with it open): killed,
# it lets the lock go; flock(1) with a command would leave it to the child.
( exec 9>"$ISOTIER_CHALLENGE_LOCK" && flock 9 && exec sleep 300 ) &
holder=$!
trap 'kill "$holder" 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do
  flock -n "$ISOTIER_CHALLENGE_LOCK" true 2>/dev/null || break
  sleep 0.05
done
flock -n "$ISOTIER_CHALLENGE_LOCK" true && fail "the holder never took the lock"
rc=0
"$ISOTIER_BIN" verify --backend runsc --db "$TMP/h.db" --timeout 2 --json >"$TMP/held.json" 2>"$TMP/held.err" || rc=$?
[ "$(json_get "$TMP/held.json" results.0.available)" = True ] ||
  skip "the runsc backend is unavailable here: $(tail -n 3 "$TMP/held.err")"
assert_eq "$(json_get "$TMP/held.json" results.0.verdict)" INCONCLUSIVE "verdict with the lock held"
assert_eq "$rc" 2 "verify exit with the lock held"
assert_contains "$(json_get "$TMP/held.json" results.0.reason)" \
  "the host could not run its task-count challenge: another process's challenge held the host's lock ($ISOTIER_CHALLENGE_LOCK)" \
  "the reason names the held lock"
echo "ok: lock held: INCONCLUSIVE, the lock named"

# Let go: the challenge runs, and the lock is free again after the run.
kill "$holder"
wait "$holder" 2>/dev/null || true
"$ISOTIER_BIN" verify --backend runsc --db "$TMP/h.db" --json >"$TMP/free.json" 2>"$TMP/free.err" || true
reason=$(json_get "$TMP/free.json" results.0.reason)
grep -qF "could not run its task-count challenge" <<<"$reason" && fail "no challenge with the lock free: $reason"
assert_contains "$reason" "task pattern" "the challenge ran with the lock free"
flock -n "$ISOTIER_CHALLENGE_LOCK" true || fail "the lock is still held after the verification"
echo "ok: lock free: the challenge ran and the lock was let go"
