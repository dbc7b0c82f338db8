#!/usr/bin/env bash
# isotier-test: normal; uses: challenge docker fhang podman
# SPDX-License-Identifier: Apache-2.0
# verify killed at several points (SIGTERM, which it sees, and SIGKILL, which
# it does not; each at two points at least) for podman, docker, runc,
# qemu-microvm and the e2b emulator,
# then run again: afterwards nothing the killed run created remains (containers,
# images, conmon/crun processes, VMs, temp dirs, emulator sandboxes), every
# leftover was reported, and the killed run reads 'interrupted' with an alert.
# A probe that hangs keeps each sandbox alive until the kill. Last, a disk that
# fills mid-run leaves the run 'running': the next run marks it interrupted.
# Issue 25, defects 1, 2 and 5.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
hang=$ISOTIER_ROOT/$BUILD/tests/fault-probe-hang
[ -x "$hang" ] || skip "no $hang (make builds it)"
# The hang marker is a fixed process name: serialize with verify_faults and verify_sigint.
exec 9>/tmp/isotier-verify-faults.lock
flock -w 600 9 || fail "another run holds /tmp/isotier-verify-faults.lock"

# A private TMPDIR and state directory: what is left in them is exactly ours.
S=$(mktemp -d /tmp/ivk.XXXXXX)
chmod 755 "$S"
mkdir -m 755 "$S/tmp"
export TMPDIR=$S/tmp ISOTIER_STATE_DIR=$S/state
db=$S/h.db
EMU_PID=
trap '[ -z "$EMU_PID" ] || kill "$EMU_PID" 2>/dev/null || true; rm -rf "$TMP" "$S"' EXIT
q() { sql "$db" "$1"; }

# Live (not zombie) processes whose command line mentions $1.
live_with() {
  local pid
  for pid in $(pgrep -f -- "$1" || true); do
    [ "$pid" = $$ ] && continue
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] || echo "$pid"
  done
}
# What the run of process $1 may have left; empty when nothing.
leftovers() {
  local p=$1 w
  ls -A "$TMPDIR" | sed 's/^/temp: /'
  for w in $(live_with "$TMPDIR") $(live_with "isotier-$p-"); do
    echo "process: $(tr '\0' ' ' <"/proc/$w/cmdline" 2>/dev/null | cut -c1-160)"
  done
  if [ -n "$docker" ]; then
    docker ps -a --filter label=isotier.sandbox --format '{{.Names}}' | grep "^isotier-$p-" | sed 's/^/docker: /' || true
    docker images --format '{{.Repository}}:{{.Tag}}' | grep "^isotier-probe:isotier-$p-" | sed 's/^/image: /' || true
  fi
  if [ -n "$podman" ]; then
    podman ps -a --external --format '{{.Names}}' 2>/dev/null | grep "^isotier-$p-" | sed 's/^/podman: /' || true
  fi
  if [ -n "$EMU_PID" ]; then
    local c d
    c=$(grep -c '^create ' "$S/emu/ledger" || true)
    d=$(grep -c '^delete ' "$S/emu/ledger" || true)
    [ "$c" = "$d" ] || echo "e2b: $c created, $d deleted"
  fi
  return 0
}
# Waits up to 10 s for nothing left by process $1.
settled() {
  for _ in $(seq 1 50); do [ -z "$(leftovers "$1")" ] && return 0; sleep 0.2; done
  return 1
}

# start BACKEND: verify with the hanging probe in the background; pid in $pid.
start() {
  ISOTIER_PROBE=${start_probe:-$hang} "$ISOTIER_BIN" verify --backend "$1" --db "$db" --timeout 60 \
    >"$S/out" 2>"$S/err" &
  pid=$!
}
# until_ COND: polls COND (a command) for up to 20 s.
until_() {
  for _ in $(seq 1 200); do "$@" && return 0; kill -0 "$pid" 2>/dev/null || return 1; sleep 0.1; done
  return 1
}
probe_runs() { [ -n "$(pgrep -x isotier-fhang || true)" ]; }
podman_client() { [ -n "$(live_with "$TMPDIR/isotier-engine")" ]; }
docker_import() { [ -n "$(live_with "root.tar isotier-probe:")" ]; }
qemu_runs() { [ -n "$(live_with "$TMPDIR/isotier-vm")" ]; }
e2b_created() { grep -q '^create ' "$S/emu/ledger" 2>/dev/null; }
e2b_exec() { grep -q 'process.Process/Start' "$S/emu/requests" 2>/dev/null; }
# The newest run's id in the history, 0 while it has none (no file, or no schema yet: verify
# opens its history beside the sandbox's start, so a kill point can come before it).
last_run() { { [ -s "$db" ] && q "SELECT coalesce(max(id), 0) FROM runs" 2>/dev/null; } || echo 0; }
run_recorded() { [ "$(last_run)" -gt "$prev_run" ]; }

# kill_and_check BACKEND SIGNAL WHEN [COND [DELAY]]: starts verify, waits WHEN
# seconds or (WHEN "poll") for COND and DELAY seconds more, sends SIGNAL, runs verify again (the host backend: quick), and
# checks that nothing is left and that the killed run reads interrupted.
kill_and_check() {
  local b=$1 sig=$2 when=$3 cond=${4:-} delay=${5:-0}
  prev_run=$(last_run)
  start "$b"
  if [ "$when" = poll ]; then
    until_ "$cond" || fail "$b: never reached the kill point ($cond): $(cat "$S/err")"
    sleep "$delay"
  else
    sleep "$when"
  fi
  local run=
  if [ "$sig" = KILL ]; then
    # The run whose status is checked is this one's: its row is there before the kill.
    until_ run_recorded || fail "$b: the run never recorded itself: $(cat "$S/err")"
    run=$(last_run)
  fi
  kill -"$sig" "$pid" 2>/dev/null || true
  set +e
  wait "$pid"
  local rc=$?
  set -e
  [ "$sig" = KILL ] && assert_eq "$rc" 137 "$b: killed by SIGKILL"
  if [ "$sig" = TERM ]; then
    # A stop it saw: it cleans up on its own, before any later run (defect 1).
    assert_eq "$rc" 143 "$b: exit after SIGTERM ($(tail -3 "$S/err"))"
    settled "$pid" || fail "$b: left after SIGTERM at $when: $(leftovers "$pid")"
  fi
  set +e
  "$ISOTIER_BIN" verify --backend host --db "$db" >"$S/out2" 2>"$S/err2"
  set -e
  settled "$pid" || fail "$b: left after SIG$sig at $when and a new run: $(leftovers "$pid") ($(cat "$S/err2"))"
  if [ "$sig" = KILL ]; then
    assert_eq "$(q "SELECT status FROM runs WHERE id = $run")" interrupted "$b: the killed run $run"
    assert_contains "$(cat "$S/err2")" "run $run was left running by a process that is gone" "$b: alert"
    # Every lease swept but the owner lease (lease.h: where the dead run's pid
    # means something, kept a month for a stale-run check of another history).
    [ -z "$(ls "$S/state/leases" 2>/dev/null | grep "^$pid-" | grep -v -- '-owner-pidns$' || true)" ] || fail "$b: leases kept: $(ls "$S/state/leases")"
  fi
  echo "ok: $b, SIG$sig at $when $cond $delay (${SECONDS}s)"
}

docker= podman=
usable() { "$ISOTIER_BIN" backends 2>/dev/null | awk -v b="$1" '$1 == b && $4 == "yes" {ok = 1} END {exit !ok}'; }
if usable podman; then
  podman=1
  # Mid-create (`podman run` just started: SIGTERM there left a container
  # with its conmon and `crun create`, unlisted, running for ever) and running.
  kill_and_check podman TERM poll podman_client
  kill_and_check podman TERM poll podman_client 0.15
  kill_and_check podman TERM poll podman_client 0.3
  kill_and_check podman KILL poll podman_client 0.15
  kill_and_check podman KILL poll probe_runs
else
  echo "note: podman not usable here: not covered"
fi
if usable docker; then
  docker=1
  # The probe's image is made once per probe digest and then reused: a hang probe with a tail
  # of its own (a new digest) makes this run import one. The tail is 48 MiB of noise, so that
  # the import lasts long enough to be seen (polled every 0.1 s) on a fast or a loaded host.
  start_probe=$S/uniq/fault-probe-hang
  mkdir -p "$S/uniq" && cp "$hang" "$start_probe" && head -c 48M /dev/urandom >>"$start_probe"
  imgs=$(docker images -q --no-trunc --filter label=isotier.probe | sort)
  kill_and_check docker KILL poll docker_import
  start_probe=
  # What the cut import made (the image, finished by the daemon, or nothing): ours to remove.
  for i in $(comm -13 <(echo "$imgs") <(docker images -q --no-trunc --filter label=isotier.probe | sort)); do
    docker rmi -f "$i" >/dev/null || true
  done
  kill_and_check docker KILL poll probe_runs
  kill_and_check docker TERM poll probe_runs
  kill_and_check docker TERM 0.3 # mid-create (the probe's image exists by now)
else
  echo "note: no Docker daemon: docker not covered"
fi
if usable runc; then
  kill_and_check runc KILL poll probe_runs
  kill_and_check runc KILL 0.2
  kill_and_check runc TERM 0.2
  kill_and_check runc TERM poll probe_runs
else
  echo "note: runc not installed: not covered"
fi
if usable qemu-microvm; then
  # As soon as the VM starts, and while it boots or runs the probe.
  kill_and_check qemu-microvm KILL poll qemu_runs
  kill_and_check qemu-microvm KILL 4
  kill_and_check qemu-microvm TERM poll qemu_runs
  kill_and_check qemu-microvm TERM 4
else
  echo "note: qemu not usable: not covered"
fi

# The e2b emulator (a real bwrap sandbox behind each create): a run killed
# after its create leaves the sandbox; the next run deletes it by its nonce.
if command -v bwrap >/dev/null && bwrap --unshare-all --ro-bind / / true 2>/dev/null; then
  KEY="sk-e2b-killed-$$-$RANDOM-secret"
  mkdir -p "$S/emu/state"
  python3 "$ISOTIER_ROOT/tests/tools/e2b_emulator.py" --port-file "$S/emu/port" --key "$KEY" \
    --state "$S/emu/state" --ledger "$S/emu/ledger" --log "$S/emu/requests" --lifetime 60 \
    >"$S/emu/output" 2>&1 &
  EMU_PID=$!
  for _ in $(seq 50); do [ -s "$S/emu/port" ] && break; sleep 0.1; done
  [ -s "$S/emu/port" ] || fail "the e2b emulator did not start"
  touch "$S/emu/ledger"
  export E2B_API_KEY=$KEY ISOTIER_E2B_API_URL="http://127.0.0.1:$(cat "$S/emu/port")"
  export ISOTIER_E2B_ENVD_URL="$ISOTIER_E2B_API_URL/envd/{id}"
  kill_and_check e2b KILL poll e2b_created
  grep -q '^delete ' "$S/emu/ledger" || fail "e2b: no sandbox was deleted: $(cat "$S/emu/ledger")"
  # While the probe runs; and the stops it sees, likewise. Each case starts
  # with empty logs (the last one's sandboxes are all deleted: settled).
  for c in "KILL e2b_exec" "TERM e2b_created" "TERM e2b_exec"; do
    : >"$S/emu/ledger"
    : >"$S/emu/requests"
    kill_and_check e2b ${c% *} poll ${c#* }
  done
  kill "$EMU_PID" 2>/dev/null || true
  wait "$EMU_PID" 2>/dev/null || true
  EMU_PID=
else
  echo "note: bwrap unusable: the e2b emulator not covered"
fi

# A disk that fills during verify: the run cannot be marked finished (74) and
# stays 'running' after its process exits; the next run marks it interrupted.
mnt=$S/full
mkdir "$mnt"
if usable bwrap && mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
  trap 'umount "$mnt" 2>/dev/null || true; [ -z "$EMU_PID" ] || kill "$EMU_PID" 2>/dev/null || true; rm -rf "$TMP" "$S"' EXIT
  fdb=$mnt/h.db
  "$ISOTIER_BIN" verify --backend host --db "$fdb" >/dev/null 2>&1 || fail "full disk: the first run failed"
  ISOTIER_PROBE=$hang "$ISOTIER_BIN" verify --backend bwrap --timeout 3 --db "$fdb" >"$S/out" 2>&1 &
  pid=$!
  until_ eval '[ "$(sqlite3 "$fdb" "SELECT count(*) FROM runs" 2>/dev/null)" = 2 ]' || fail "full disk: no run row"
  dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null || true
  set +e; wait "$pid"; rc=$?; set -e
  assert_eq "$rc" 74 "full disk: exit ($(tail -2 "$S/out"))"
  assert_eq "$(sqlite3 "$fdb" "SELECT status FROM runs WHERE id = 2")" running "full disk: the run as the full disk left it"
  rm -f "$mnt/fill"
  "$ISOTIER_BIN" verify --backend host --db "$fdb" >"$S/out" 2>&1 || fail "full disk: the next run: $(cat "$S/out")"
  assert_eq "$(sqlite3 "$fdb" "SELECT status FROM runs WHERE id = 2")" interrupted "full disk: the stuck run"
  assert_contains "$(cat "$S/out")" "ALERT: run 2 was left running by a process that is gone"
  "$ISOTIER_BIN" report --db "$fdb" --format text >"$S/report" 2>&1 || true
  assert_contains "$(cat "$S/report")" "run 2 was left running by a process that is gone" "full disk: the report"
  umount "$mnt"
  echo "ok: a run a full disk left running is marked interrupted and alerted on"
else
  echo "note: cannot mount a tmpfs (or no bwrap): the full disk not covered"
fi

# `isotier sweep` with nothing left: says so, touches nothing.
out=$("$ISOTIER_BIN" sweep --db "$db" 2>&1)
assert_contains "$out" "swept 0 leftovers; 0 runs marked interrupted"
# A report of the history names the interrupted runs.
"$ISOTIER_BIN" report --db "$db" --format text >"$S/report" 2>&1 || true
assert_contains "$(cat "$S/report")" "ALERT interrupted" "the report alerts on the interrupted runs"
echo "ok: nothing left behind"
