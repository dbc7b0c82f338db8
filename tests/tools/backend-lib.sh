# SPDX-License-Identifier: Apache-2.0
# tests/tools/backend-lib.sh - sourced (after tests/lib.sh) by tests/integration/backend_*.sh:
# drives one backend for real through $BUILD/tests/backend-run.
DRIVER="$ISOTIER_ROOT/$BUILD/tests/backend-run"
PROBE="${ISOTIER_PROBE:-$ISOTIER_ROOT/$BUILD/isotier-probe}"
# Everything a backend creates goes under a private TMPDIR we can inspect.
# (Searchable by others: runsc's sandbox reaches the bundle as an unprivileged user.)
export TMPDIR="$TMP/backend-tmp"
mkdir -p "$TMPDIR"
chmod 711 "$TMP" "$TMPDIR"
MARK="isotier-test-$$-$RANDOM"
SLEEPN="9$(date +%N | sed s/^0*//)$$"  # a unique sleep duration to find the sleeper by
HANG=(/bin/sh -c "sleep $SLEEPN; echo $MARK")

backend_setup() {
  NAME=$1
  [ -x "$DRIVER" ] || fail "$DRIVER not built (make BUILD=$BUILD $BUILD/tests/backend-run)"
  [ -x "$PROBE" ] || fail "$PROBE not built"
  local why
  if ! why=$("$DRIVER" --backend "$NAME" --available); then
    skip "backend $NAME cannot start on this machine: $why"
  fi
  echo "$why"
}

# No process mentions our marker or our private TMPDIR, and TMPDIR is empty.
assert_nothing_left() {
  local what=$1 i
  for i in $(seq 1 50); do  # zombies being reaped by init are not "left"
    if ! pgrep -f -- "$MARK|$TMPDIR|sleep $SLEEPN" >/dev/null; then break; fi
    sleep 0.1
  done
  if pgrep -f -- "$MARK|$TMPDIR|sleep $SLEEPN" >/dev/null; then
    ps -eo pid,ppid,pgid,stat,args | grep -F -e "$MARK" -e "$TMPDIR" -e "sleep $SLEEPN" | grep -v grep >&2 || true
    fail "$what: processes left behind"
  fi
  [ -z "$(ls -A "$TMPDIR")" ] || fail "$what: temporary files left behind: $(ls -A "$TMPDIR")"
}

# The tier the catalogue claims for backend $NAME (`isotier backends --json`): what a backend
# test expects is derived from the claim its descriptor links, never written per backend.
claimed_tier() {
  "$ISOTIER_BIN" backends --json >"$TMP/backends.json" || fail "backends --json: $?"
  python3 - "$TMP/backends.json" "$NAME" <<'EOF'
import json, sys
for b in json.load(open(sys.argv[1])):
    if b["backend"] == sys.argv[2]:
        print(b["claimed_tier"] or "-")
EOF
}

# Runs the probe (minimal root) with a capture dir; checks tier, innermost layer kind, replay.
# TIER "claim": the catalogue's claim for the backend (claimed_tier).
check_probe() {
  local tier=$1 inner_kind=$2
  if [ "$tier" = claim ]; then
    tier=$(claimed_tier)
    case $tier in
      CONTAINER|GVISOR|MICROVM) ;;
      *) fail "$NAME: no claimed tier to expect ('$tier'): its descriptor links no claim" ;;
    esac
  fi
  local cap="$TMP/capture-$NAME"
  rm -rf "$cap"; mkdir -p "$cap"
  local rc=0
  "$DRIVER" --backend "$NAME" --minimal --probe "$PROBE" --capture "$cap" -- \
    /.isotier/isotier-probe --json --capture /.isotier/capture >"$TMP/live.json" 2>"$TMP/live.err" || rc=$?
  [ "$rc" = 0 ] || fail "probe run in $NAME: rc=$rc: $(tail -n 5 "$TMP/live.err")"
  assert_eq "$(json_get "$TMP/live.json" observed_tier)" "$tier" "$NAME: observed tier"
  local n; n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["layers"]))' "$TMP/live.json")
  assert_eq "$(json_get "$TMP/live.json" "layers.$((n - 1)).kind")" "$inner_kind" "$NAME: innermost layer"
  [ -n "$(ls -A "$cap")" ] || fail "$NAME: capture dir is empty"
  "$PROBE" --root "$cap" --json >"$TMP/replay.json" || fail "$NAME: replay failed"
  assert_eq "$(json_get "$TMP/replay.json" observed_tier)" "$tier" "$NAME: replayed tier"
  assert_eq "$(json_get "$TMP/replay.json" layers)" "$(json_get "$TMP/live.json" layers)" "$NAME: replayed layers"
  assert_nothing_left "probe run"
  echo "ok: $NAME probe: $tier, layers $(json_get "$TMP/live.json" layers | head -c 300)"
}

# An outer VM layer (this machine is itself a VM) under the sandbox's own layer.
check_outer_vm() {
  assert_eq "$(json_get "$TMP/live.json" layers.0.kind)" "vm" "$NAME: outermost layer"
}

# The host view: /bin/echo works, exit status passes through, the root is read-only.
check_host_view() {
  local out rc=0
  out=$("$DRIVER" --backend "$NAME" -- /bin/echo hi 2>"$TMP/echo.err") || rc=$?
  [ "$rc" = 0 ] || fail "$NAME: /bin/echo hi: rc=$rc: $(tail -n 5 "$TMP/echo.err")"
  assert_eq "$out" "hi" "$NAME: /bin/echo hi"
  rc=0
  out=$("$DRIVER" --backend "$NAME" -- /bin/sh -c \
    'cat /etc/debian_version >/dev/null && echo view-ok; echo to-stderr >&2; touch /usr/.isotier-rw-test 2>/dev/null && echo WRITABLE; exit 7' \
    2>"$TMP/sh.err") || rc=$?
  assert_eq "$rc" "7" "$NAME: exit status"
  assert_eq "$out" "view-ok" "$NAME: host view (read-only)"
  assert_contains "$(cat "$TMP/sh.err")" "to-stderr" "$NAME: stderr relayed"
  # No descriptor of ours leaks in (fd 9 open here; ls itself holds 3 on the listing).
  case $NAME in
    runsc|*-runsc) ;;  # gVisor's /proc/self/fd is not listable through a pipe
    *)
      out=$("$DRIVER" --backend "$NAME" -- /bin/sh -c 'ls /proc/self/fd | tr "\n" " "' 9<"$TMP/sh.err" 2>/dev/null)
      assert_eq "$out" "0 1 2 3 " "$NAME: descriptors inside"
      ;;
  esac
  assert_nothing_left "host view"
  echo "ok: $NAME host view"
}

# A command that hangs is killed at the timeout, with nothing left behind.
check_timeout() {
  local rc=0 start end
  start=$(date +%s)
  "$DRIVER" --backend "$NAME" --timeout "${1:-2}" -- "${HANG[@]}" >/dev/null 2>"$TMP/timeout.err" || rc=$?
  end=$(date +%s)
  [ "$rc" = 124 ] || fail "$NAME: hang: expected 124 (timed out), got $rc: $(tail -n 3 "$TMP/timeout.err")"
  assert_contains "$(cat "$TMP/timeout.err")" "timed out" "$NAME: timeout message"
  [ $((end - start)) -lt $(( ${1:-2} + 15 )) ] || fail "$NAME: timeout took $((end - start)) s"
  assert_nothing_left "timeout"
  echo "ok: $NAME timeout"
}

# SIGINT (or SIGTERM) to the driver mid-run: exits 130 after cleaning up everything.
check_sigint() {
  local settle=${1:-1} sig=${2:-INT} rc=0
  "$DRIVER" --backend "$NAME" -- "${HANG[@]}" >/dev/null 2>"$TMP/sigint.err" &
  local pid=$!
  sleep "$settle"
  kill -0 "$pid" 2>/dev/null || fail "$NAME: driver ended before SIG$sig: $(cat "$TMP/sigint.err")"
  kill -"$sig" "$pid"
  wait "$pid" || rc=$?
  assert_eq "$rc" "130" "$NAME: driver exit after SIG$sig"
  assert_contains "$(cat "$TMP/sigint.err")" "interrupted" "$NAME: SIG$sig message"
  assert_nothing_left "SIG$sig"
  echo "ok: $NAME SIG$sig"
}

# The backend's binary missing from PATH: unavailable, with the reason.
check_missing_binary() {
  local bin=$1 out rc=0
  out=$(PATH=/nonexistent "$DRIVER" --backend "$NAME" --available) || rc=$?
  assert_eq "$rc" "69" "$NAME: available() without $bin in PATH"
  assert_contains "$out" "$bin not found in PATH" "$NAME: reason"
  rc=0
  out=$(PATH=/nonexistent "$DRIVER" --backend "$NAME" -- /bin/true 2>&1) || rc=$?
  assert_eq "$rc" "69" "$NAME: provision without $bin in PATH"
  assert_nothing_left "missing binary"
  echo "ok: $NAME missing binary: $out"
}

# A reader that stops reading our relayed stdout cannot hold the run past the timeout
# (runsc and qemu-microvm relay output through pipes of their own).
check_stuck_reader() {
  local t=${1:-3} start end rc=0
  mkfifo "$TMP/stuck.fifo"
  exec 7<>"$TMP/stuck.fifo"  # we hold the read end and never read
  start=$(date +%s)
  "$DRIVER" --backend "$NAME" --timeout "$t" -- /bin/sh -c "yes $MARK | head -c 20000000" \
    >"$TMP/stuck.fifo" 2>"$TMP/stuck.err" || rc=$?
  end=$(date +%s)
  exec 7>&-
  rm -f "$TMP/stuck.fifo"
  assert_eq "$rc" "124" "$NAME: stuck reader: exit"
  # "stopped reading" is the relay giving up; a guest too slow to fill the pipe in time
  # (a loaded host) ends in the plain timeout instead, which is no hang either.
  grep -q -e "stopped reading" -e "timed out" "$TMP/stuck.err" ||
    fail "$NAME: stuck reader: message: $(cat "$TMP/stuck.err")"
  [ $((end - start)) -le $((t + 10)) ] || fail "$NAME: stuck reader held the run for $((end - start)) s"
  assert_nothing_left "stuck reader"
  echo "ok: $NAME stuck reader ($((end - start)) s): $(grep -o -e "stopped reading.*" -e "timed out.*" "$TMP/stuck.err" | head -n 1)"
}
