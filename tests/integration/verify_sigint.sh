#!/usr/bin/env bash
# isotier-test: normal; uses: challenge fhang
# SPDX-License-Identifier: Apache-2.0
# SIGINT in the middle of verify: exit 130, the run marked interrupted, the
# observations finished before it kept whole, none half-written, no sandbox
# left behind; the next run works.
. "$ISOTIER_ROOT/tests/lib.sh"

for tool in bwrap runc runsc qemu-system-x86_64 sqlite3; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
# The hang marker is a fixed process name: serialize with verify_faults.
exec 9>/tmp/isotier-verify-faults.lock
flock -w 600 9 || fail "another run holds /tmp/isotier-verify-faults.lock"
db=$TMP/h.db
q() { sql "$db" "$1"; }
# (Its own directory, not under $TMP: runsc needs every parent searchable by others.)
TMPDIR=$(mktemp -d /tmp/iv.XXXXXX)
chmod 755 "$TMPDIR" # runsc needs it searchable by others
export TMPDIR
trap 'rm -rf "$TMP" "$TMPDIR"' EXIT
live_with() {
  local pid
  for pid in $(pgrep -f -- "$1"); do
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] || echo "$pid"
  done
}

# One backend at a time: bwrap, runc, runsc finish quickly; the signal lands
# while qemu-microvm boots (seconds under TCG).
"$ISOTIER_BIN" verify --backend bwrap --backend runc --backend runsc --backend qemu-microvm \
  --jobs 1 --db "$db" --json >"$TMP/out.json" 2>"$TMP/err" &
pid=$!
for _ in $(seq 1 600); do
  # Before the run has made its history, there is nothing to read yet.
  [ "$(q "SELECT count(*) FROM observations" 2>/dev/null)" = 3 ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
[ "$(q "SELECT count(*) FROM observations")" = 3 ] || fail "three observations never appeared: $(cat "$TMP/err")"
# qemu-microvm is starting: the signal goes once its process is there (a loaded host takes
# a while to get there; the boot under TCG then takes seconds).
for _ in $(seq 1 200); do
  [ -z "$(live_with "$TMPDIR")" ] || break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
[ -n "$(live_with "$TMPDIR")" ] || fail "no qemu-microvm sandbox running when the signal was to be sent"
start=$(date +%s%N)
kill -INT "$pid"
set +e
wait "$pid"
rc=$?
set -e
ms=$((($(date +%s%N) - start) / 1000000))
assert_eq "$rc" 130 "exit status after SIGINT ($(cat "$TMP/err"))"
[ "$ms" -lt 10000 ] || fail "took ${ms} ms to stop"
assert_contains "$(cat "$TMP/err")" "interrupted"
assert_eq "$(json_get "$TMP/out.json" interrupted)" True "document says interrupted"

run=$(q "SELECT max(id) FROM runs")
assert_eq "$(q "SELECT status FROM runs WHERE id = $run")" interrupted "run status"
[ -n "$(q "SELECT finished_at FROM runs WHERE id = $run")" ] || fail "finished_at not set"
assert_eq "$(q "SELECT group_concat(backend, ' ') FROM (SELECT backend FROM observations WHERE run_id = $run ORDER BY id)")" "bwrap runc runsc" "finished observations kept, the interrupted one not recorded"
assert_eq "$(q "SELECT count(*) FROM observations WHERE run_id = $run AND verdict = 'CONFIRMED' AND probe_json IS NOT NULL AND (evidence IS NOT NULL OR evidence_sha256 IN (SELECT sha256 FROM evidence_blobs)) AND reason IS NOT NULL")" 3 "whole rows"
assert_eq "$(q "PRAGMA integrity_check")" ok "integrity"

# Nothing left behind: no process naming our temporary directory, no files in it.
for _ in $(seq 1 50); do [ -z "$(live_with "$TMPDIR")" ] && break; sleep 0.1; done
[ -z "$(live_with "$TMPDIR")" ] || fail "processes left: $(ps -o pid,args -p "$(live_with "$TMPDIR" | paste -sd,)")"
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left: $(ls -A "$TMPDIR")"
if runc list -q 2>/dev/null | grep -q "^isotier-$pid-"; then fail "runc container left: $(runc list)"; fi

# Four sandboxes at once, each with a probe that hangs: one SIGINT stops them all
# (whichever thread reads it), nothing recorded for them, nothing left.
faults=$ISOTIER_ROOT/$BUILD/tests
if [ -x "$faults/fault-probe-hang" ]; then
  ISOTIER_PROBE=$faults/fault-probe-hang "$ISOTIER_BIN" verify --backend bwrap --backend runc \
    --backend runsc --backend host --jobs 4 --db "$db" >"$TMP/out2" 2>&1 &
  pid2=$!
  for _ in $(seq 1 100); do [ "$(live_with "$TMPDIR" | wc -l)" -ge 3 ] && break; sleep 0.05; done
  sleep 0.5
  kill -INT "$pid2"
  set +e
  wait "$pid2"
  rc=$?
  set -e
  assert_eq "$rc" 130 "exit status, four at once ($(cat "$TMP/out2"))"
  run2=$(q "SELECT max(id) FROM runs")
  assert_eq "$(q "SELECT status FROM runs WHERE id = $run2")" interrupted "run status, four at once"
  assert_eq "$(q "SELECT count(*) FROM observations WHERE run_id = $run2")" 0 "no rows for killed probes"
  for _ in $(seq 1 50); do [ -z "$(live_with "$TMPDIR")$(pgrep -x isotier-fhang | while read -r p; do [ "$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" = Z ] || echo "$p"; done)" ] && break; sleep 0.1; done
  [ -z "$(live_with "$TMPDIR")" ] || fail "processes left after the four-way SIGINT"
  if pgrep -x isotier-fhang | while read -r p; do [ "$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" = Z ] || echo "$p"; done | grep -q .; then
    fail "hung probes left after the four-way SIGINT"
  fi
  [ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left: $(ls -A "$TMPDIR")"
  echo "four sandboxes stopped by one SIGINT"
fi

# The next run works on the same database.
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/next" 2>&1 || fail "next run: $(cat "$TMP/next")"
assert_eq "$(q "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" ok "next run status"
echo "SIGINT ok (stopped in ${ms} ms)"
