# SPDX-License-Identifier: Apache-2.0
# tests/tools/engine-lib.sh - sourced (after tests/lib.sh and backend-lib.sh) by the Docker and
# Podman backend tests: a Docker daemon for the test (scripts/dockerd.sh starts one when none
# answers and the test stops what it started, by pid), and checks that no container or image of
# ours outlives a run.

# Starts dockerd when none answers; stops it when the test ends (only if this test started it).
docker_up() {
  command -v dockerd >/dev/null || skip "dockerd is not installed (scripts/deps.sh installs docker.io)"
  "$ISOTIER_ROOT/scripts/dockerd.sh" start "$TMP/dockerd" || fail "dockerd did not start"
  trap '"$ISOTIER_ROOT/scripts/dockerd.sh" stop "$TMP/dockerd"; rm -rf "$TMP"' EXIT
}

# No container labelled by isotier and no per-run image is left in the engine ($1: docker or
# podman). Our containers carry the label isotier.sandbox=<id>; the probe's image
# (isotier-probe:<digest>, label isotier.probe) is kept on purpose: every run of that probe reuses it.
assert_engine_clean() {
  local cli=$1 what=$2 left
  left=$("$cli" ps -aq --filter label=isotier.sandbox 2>&1) || fail "$cli ps: $left"
  [ -z "$left" ] || fail "$what: $cli containers left behind: $left"
  left=$("$cli" images -q --filter label=isotier.sandbox --filter dangling=false 2>&1) || fail "$cli images: $left"
  [ -z "$left" ] || fail "$what: $cli images left behind: $left"
}

# A second, private dockerd with its own config (socket, data and exec roots under DIR, no
# bridge, no iptables): DOCKER_HOST points at it afterwards. Stopped by pid when the test ends.
PRIVATE_DOCKERD_PID=
private_dockerd() {
  local dir=$1 config=$2 i
  mkdir -p "$dir"
  setsid dockerd --config-file "$config" -H "unix://$dir/docker.sock" --data-root "$dir/data" \
    --exec-root "$dir/exec" --pidfile "$dir/docker.pid" --bridge none --iptables=false \
    --ip-masq=false >"$dir/log" 2>&1 </dev/null &
  PRIVATE_DOCKERD_PID=$!
  trap 'stop_private_dockerd; "$ISOTIER_ROOT/scripts/dockerd.sh" stop "$TMP/dockerd"; rm -rf "$TMP"' EXIT
  export DOCKER_HOST="unix://$dir/docker.sock"
  for i in $(seq 1 150); do
    timeout 10 docker info >/dev/null 2>&1 && return 0
    kill -0 "$PRIVATE_DOCKERD_PID" 2>/dev/null || break
    sleep 0.1
  done
  fail "private dockerd did not come up: $(tail -n 5 "$dir/log")"
}
stop_private_dockerd() {
  local pid=$PRIVATE_DOCKERD_PID i
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  PRIVATE_DOCKERD_PID=
  unset DOCKER_HOST
}
