#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# The history database locked by another process (python3 holding BEGIN
# EXCLUSIVE): verify gives up after its busy timeout with exit 75 and a clear
# message, loses nothing, and works once the lock is gone. A lock taken while
# the probes run is waited out when it ends before the run's deadline; when it
# does not, the observation is named NOT stored (never "stored in"), the ones
# after it are still stored, and the run row is marked finished.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
db=$TMP/h.db
q() { sql "$db" "$1"; }
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >/dev/null || fail "first run"
before=$(q "SELECT count(*) FROM observations")
assert_eq "$before" 1 "one observation"

# The locker writes a row of its own inside its transaction and commits it later.
python3 - "$db" "$TMP/locked" "$TMP/release" <<'PY' &
import os, sqlite3, sys, time
db, ready, release = sys.argv[1:]
c = sqlite3.connect(db, isolation_level=None, timeout=10)
c.execute("BEGIN EXCLUSIVE")
c.execute("INSERT INTO runs(started_at, tool_version, command, status) VALUES ('2026-01-01T00:00:00Z', 'locker', 'locker', 'ok')")
open(ready, "w").close()
for _ in range(300):
    if os.path.exists(release):
        break
    time.sleep(0.05)
c.execute("COMMIT")
PY
locker=$!
for _ in $(seq 1 100); do [ -e "$TMP/locked" ] && break; sleep 0.05; done
[ -e "$TMP/locked" ] || fail "the locker never took its lock"

set +e
start=$(date +%s%N)
"$ISOTIER_BIN" verify --backend bwrap --db "$db" --busy-timeout 300 >"$TMP/out" 2>"$TMP/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
# The environment variable works the same way.
ISOTIER_BUSY_TIMEOUT_MS=200 "$ISOTIER_BIN" verify --backend bwrap --db "$db" >/dev/null 2>"$TMP/err2"
rc2=$?
set -e
touch "$TMP/release"
wait "$locker" || fail "the locker failed"
assert_eq "$rc" 75 "locked database ($(cat "$TMP/err"))"
assert_eq "$rc2" 75 "locked database, ISOTIER_BUSY_TIMEOUT_MS"
assert_contains "$(cat "$TMP/err")" "is locked by another process (waited 300 ms"
assert_contains "$(cat "$TMP/err2")" "waited 200 ms"
[ "$ms" -lt 5000 ] || fail "gave up after ${ms} ms, not after the 300 ms busy timeout"
# Nothing lost: our earlier row, the locker's row; nothing half-written from the failed runs.
assert_eq "$(q "SELECT count(*) FROM observations")" "$before" "observations after the failed runs"
assert_eq "$(q "SELECT count(*) FROM runs WHERE command = 'locker'")" 1 "the locker's committed row"
assert_eq "$(q "SELECT count(*) FROM runs WHERE command = 'verify'")" 1 "no run row from the failed attempts"
# And the next run works.
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >/dev/null || fail "run after the lock"
assert_eq "$(q "SELECT count(*) FROM observations")" 2 "observations after the lock"

# A lock taken partway through: the probe (hangs, killed at --timeout) is still
# running when another process takes the write lock and holds it.
hang=$ISOTIER_ROOT/$BUILD/tests/fault-probe-hang
[ -x "$hang" ] || fail "fault probe hang not built ($hang)"
# locker DB HOLD_S|until:FILE:TEXT - takes BEGIN IMMEDIATE once verify's run row
# exists, writes "locked", holds it for HOLD_S seconds or until FILE contains
# TEXT, then commits.
locker() {
  python3 - "$@" <<'PY'
import os, sqlite3, sys, time
db, hold, ready = sys.argv[1:]
c = sqlite3.connect(db, isolation_level=None, timeout=10)
# Polling from now on: the test starts verify only then (a loaded host can take longer to
# start python than verify --timeout 1 takes to run).
open(ready + ".polling", "w").close()
# Up to 30 s: on a loaded host verify's start (sweep, identity, catalogue) can take a while.
for _ in range(600):
    try:
        if c.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()[0]:
            break
    except sqlite3.OperationalError:
        pass  # no schema yet: verify has not created it
    time.sleep(0.05)
else:
    sys.exit("verify never started its run (30 s)")
c.execute("BEGIN IMMEDIATE")
open(ready, "w").close()
end = time.time() + 60
if hold.startswith("until:"):
    _, path, text = hold.split(":", 2)
    while time.time() < end:
        if os.path.exists(path) and text in open(path, errors="replace").read():
            break
        time.sleep(0.05)
    else:
        sys.exit("never saw " + text)
else:
    time.sleep(float(hold))
c.execute("COMMIT")
PY
}

# wait_polling READY - until the locker polls for verify's run row (30 s at most).
wait_polling() {
  for _ in $(seq 1 600); do [ -e "$1.polling" ] && return 0; sleep 0.05; done
  fail "the locker never started polling ($1)"
}

# 1. Released before the run's deadline: the observation waits and is stored.
db2=$TMP/l.db
rm -f "$TMP/locked2"
set +e
locker "$db2" 5 "$TMP/locked2" &
lpid=$!
wait_polling "$TMP/locked2"
ISOTIER_PROBE=$hang "$ISOTIER_BIN" verify --backend host --db "$db2" --busy-timeout 500 --timeout 3 \
  >"$TMP/l1.out" 2>"$TMP/l1.err"
rc=$?
wait "$lpid"
lrc=$?
set -e
assert_eq "$lrc" 0 "locker 1 (verify exit $rc: $(cat "$TMP/l1.out" "$TMP/l1.err" | head -c 2000))"
[ -e "$TMP/locked2" ] || fail "locker 1 never took its lock"
assert_eq "$rc" 70 "hung probe, lock waited out ($(cat "$TMP/l1.err"))"
assert_contains "$(cat "$TMP/l1.out")" "stored in $db2"
grep -q "NOT stored" "$TMP/l1.out" "$TMP/l1.err" && fail "claims NOT stored: $(cat "$TMP/l1.out" "$TMP/l1.err")"
assert_eq "$(sqlite3 -batch -noheader "$db2" "SELECT group_concat(backend || '=' || verdict) FROM observations")" "host=INCONCLUSIVE" "observation stored after the lock"
assert_eq "$(sqlite3 -batch -noheader "$db2" "SELECT status || ' ' || (finished_at IS NOT NULL) FROM runs WHERE command = 'verify'")" "failed 1" "run row finished"

# 2. Held past the run's deadline (--timeout 1: 6 s) until verify says an
#    observation is NOT stored, then released: that one is named with its
#    verdict and lost, the other backend's is stored, the run row is finished,
#    and nothing claims "stored in".
db3=$TMP/l3.db
rm -f "$TMP/locked3"
set +e
locker "$db3" "until:$TMP/l3.err:NOT stored" "$TMP/locked3" &
lpid=$!
wait_polling "$TMP/locked3"
ISOTIER_PROBE=$hang "$ISOTIER_BIN" verify --backend host --backend bwrap --jobs 2 --db "$db3" \
  --busy-timeout 500 --timeout 1 >"$TMP/l3.out" 2>"$TMP/l3.err"
rc=$?
wait "$lpid"
lrc=$?
set -e
assert_eq "$lrc" 0 "locker 2 (verify exit $rc: $(cat "$TMP/l3.out" "$TMP/l3.err" | head -c 2000))"
assert_eq "$rc" 75 "an observation not stored ($(cat "$TMP/l3.out" "$TMP/l3.err"))"
out=$(cat "$TMP/l3.out")
grep -q "stored in" <<<"$out" && fail "claims 'stored in' with an observation lost: $out"
stored=$(sqlite3 -batch -noheader "$db3" "SELECT group_concat(backend) FROM observations")
case "$stored" in
  host) lost=bwrap ;;
  bwrap) lost=host ;;
  *) fail "expected exactly one of host, bwrap stored, got '$stored'" ;;
esac
assert_contains "$out" "1 observation NOT stored (database $db3): $lost"
assert_contains "$(cat "$TMP/l3.err")" "observation of $lost NOT stored in $db3: verdict INCONCLUSIVE"
assert_contains "$(cat "$TMP/l3.err")" "is locked by another process"
# The table still shows both verdicts.
assert_contains "$out" "$lost: probe run failed"
assert_eq "$(sqlite3 -batch -noheader "$db3" "SELECT status || ' ' || (finished_at IS NOT NULL) FROM runs WHERE command = 'verify'")" "failed 1" "run row marked failed, not left running"
assert_eq "$(sqlite3 -batch -noheader "$db3" "PRAGMA integrity_check")" ok "integrity after the partial run"

assert_eq "$(q "PRAGMA integrity_check")" ok "integrity"
echo "locked database ok"
