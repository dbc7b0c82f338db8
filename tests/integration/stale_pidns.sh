#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# A run left 'running' is marked interrupted only where its owner's pid means
# something (issue 25, the stale-run check): a run whose owner is a process
# in another pid namespace (a container running isotier on this host, sharing
# the history) must not be marked while that process lives, however its pid
# reads here; once it is gone, the next check marks the run interrupted. And
# the owner lease a verify leaves says where its pid lives: a run of a
# process of this namespace that is gone is marked at once.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
command -v unshare >/dev/null || skip "unshare is not installed"
[ "$(id -u)" = 0 ] || skip "a pid namespace of its own needs root"
[ "$(readlink /proc/self/ns/pid)" = "pid:[4026531836]" ] ||
  skip "not in the initial pid namespace: only that one sees every process"

export ISOTIER_STATE_DIR=$TMP/state
db=$TMP/h.db
"$ISOTIER_BIN" verify --backend host --db "$db" >/dev/null 2>&1 || fail "the first run failed"

# A process whose own pid, in a pid namespace of its own, is 77777 (its pid
# here is another). A run it owned reads owner_pid 77777.
inner=77777
unshare --pid --fork --kill-child --mount-proc \
  sh -c "echo $((inner - 1)) >/proc/sys/kernel/ns_last_pid && sleep 60; :" &
ns_pid=$!
trap 'kill -KILL "$ns_pid" 2>/dev/null || true; rm -rf "$TMP"' EXIT
seen=
for _ in $(seq 50); do
  grep -qE "^NSpid:[[:space:]]+[0-9]+[[:space:]]+$inner\$" /proc/[0-9]*/status 2>/dev/null && { seen=1; break; }
  sleep 0.1
done
[ -n "$seen" ] || skip "could not make a process with pid $inner in a new pid namespace"
# Whatever pid 77777 is here, it is not that process (another start time).
sqlite3 "$db" "INSERT INTO runs(started_at, tool_version, catalogue_commit, command, host, owner_pid, owner_start)
  VALUES ('2026-01-01T00:00:00Z', 'x', 'x', 'verify', '$(uname -n)', $inner, 12345)"
run=$(sqlite3 "$db" "SELECT max(id) FROM runs")

out=$("$ISOTIER_BIN" sweep --db "$db" 2>&1) || fail "sweep: $out"
assert_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id = $run")" running \
  "a run whose owner may be the live pid $inner of another namespace ($out)"
echo "ok: a live owner's pid in another namespace: the run is left running"

kill -KILL "$ns_pid"
wait "$ns_pid" 2>/dev/null || true
for _ in $(seq 50); do
  grep -qE "^NSpid:[[:space:]]+[0-9]+[[:space:]]+$inner\$" /proc/[0-9]*/status 2>/dev/null || break
  sleep 0.1
done
out=$("$ISOTIER_BIN" sweep --db "$db" 2>&1) || fail "sweep: $out"
assert_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id = $run")" interrupted \
  "once no process anywhere on this kernel is $inner ($out)"
assert_contains "$out" "ALERT: run $run was left running by a process that is gone"
echo "ok: once gone, the run is marked interrupted"

# A verify killed unseen leaves its owner lease (its pid namespace, this one):
# the next check marks its run at once.
# Its probe waits (and says its pid, to be ended here: nothing else would).
printf '#!/bin/sh\necho $$ >%s/probe.pid\nexec sleep 60\n' "$TMP" >"$TMP/slow-probe"
chmod +x "$TMP/slow-probe"
ISOTIER_PROBE=$TMP/slow-probe "$ISOTIER_BIN" verify --backend host --db "$db" --timeout 60 >/dev/null 2>&1 &
vpid=$!
trap 'kill -KILL "$ns_pid" "$(cat "$TMP/probe.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 200); do [ -s "$TMP/probe.pid" ] && break; sleep 0.05; done
[ -s "$TMP/probe.pid" ] || fail "the verify's probe never started"
ls "$ISOTIER_STATE_DIR/leases" | grep -q "^$vpid-.*-owner-pidns$" || fail "no owner lease: $(ls "$ISOTIER_STATE_DIR/leases")"
kill -KILL "$vpid"
wait "$vpid" 2>/dev/null || true
kill -KILL "$(cat "$TMP/probe.pid")" 2>/dev/null || true
vrun=$(sqlite3 "$db" "SELECT id FROM runs WHERE owner_pid = $vpid ORDER BY id DESC LIMIT 1")
[ -n "$vrun" ] || fail "no run row of the killed verify"
out=$("$ISOTIER_BIN" sweep --db "$db" 2>&1) || fail "sweep: $out"
assert_eq "$(sqlite3 "$db" "SELECT status FROM runs WHERE id = $vrun")" interrupted "the killed verify's run ($out)"
# The owner lease stays (a month) for another history's check; nothing else of it.
assert_eq "$(ls "$ISOTIER_STATE_DIR/leases" | grep -c "^$vpid-")" 1 "leases of the killed verify"
echo "ok: a verify killed unseen: its run marked interrupted"
