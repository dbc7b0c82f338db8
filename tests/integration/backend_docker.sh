#!/usr/bin/env bash
# isotier-test: slow; uses: docker
# SPDX-License-Identifier: Apache-2.0
# The docker backend for real: a real dockerd (started here when none runs, stopped by pid at the
# end), the probe in an image built from scratch by the backend (no registry). The probe sees
# CONTAINER with vendor docker (under this machine's own VM layer) and its capture replays to the
# same verdict; the read-only host view through bind mounts; timeout, SIGINT, SIGTERM, a reader
# that stops reading and a missing CLI leave no process, temp file, container or image behind; an
# unreachable daemon makes the backend unavailable with the reason.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
source "$ISOTIER_ROOT/tests/tools/engine-lib.sh"
docker_up
backend_setup docker >"$TMP/why"; why=$(cat "$TMP/why")
assert_contains "$why" "daemon runtimes:" "docker: availability lists the daemon's runtimes"
check_probe claim container
check_outer_vm
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["layers"]))' "$TMP/live.json")
assert_eq "$(json_get "$TMP/live.json" "layers.$((n - 1)).vendor")" docker "docker: innermost vendor"
assert_engine_clean docker "probe run"
# The probe's image is built once per probe digest and reused (issue 24): a probe of its own
# (a copy with a unique tail: another digest) gets one new isotier-probe:<digest> image, and a
# second run finds it by tag: the same image id and creation time, no other image made.
uniq_probe="$TMP/probe-uniq"
cp "$PROBE" "$uniq_probe" && head -c 16 /dev/urandom >>"$uniq_probe"
probe_images() { docker images -q --no-trunc --filter label=isotier.probe | sort; }
before=$(probe_images)
run_uniq() {
  "$DRIVER" --backend docker --minimal --probe "$uniq_probe" -- /.isotier/isotier-probe --json \
    >"$TMP/uniq.json" 2>"$TMP/uniq.err" || fail "docker: run with a new probe: $(tail -n 3 "$TMP/uniq.err")"
  assert_eq "$(json_get "$TMP/uniq.json" observed_tier)" CONTAINER "docker: the new probe's tier"
}
run_uniq
made=$(comm -13 <(echo "$before") <(probe_images))
[ "$(echo "$made" | grep -c .)" = 1 ] || fail "docker: a new probe should make exactly one image, made: '$made'"
first=$(docker image inspect --format '{{.Id}} {{.Created}} {{index .Config.Labels "isotier.probe"}}' "$made")
run_uniq
assert_eq "$(comm -13 <(echo "$before") <(probe_images))" "$made" "docker: the second run made no image"
assert_eq "$(docker image inspect --format '{{.Id}} {{.Created}} {{index .Config.Labels "isotier.probe"}}' "$made")" \
  "$first" "docker: the second run reused the image"
assert_engine_clean docker "image reuse"
docker rmi -f "$made" >/dev/null
echo "ok: docker: the probe's image made once and reused (${first%% *})"
check_host_view
assert_engine_clean docker "host view"
check_timeout 3
assert_engine_clean docker "timeout"
check_sigint 2
check_sigint 2 TERM
assert_engine_clean docker "signals"
check_stuck_reader 4
assert_engine_clean docker "stuck reader"
check_missing_binary docker
# A daemon that does not answer: unavailable (69), the reason names it, nothing is created.
rc=0
out=$(DOCKER_HOST="unix://$TMP/no-such.sock" "$DRIVER" --backend docker --available) || rc=$?
assert_eq "$rc" 69 "docker: available() without a daemon"
assert_contains "$out" "the Docker daemon does not answer" "docker: reason"
echo "ok: docker without a daemon: $out"
# Availability is asked beside the provision (observe.c): a backend that answers "unavailable"
# after its provision succeeded is destroyed unrun. A `docker` first on PATH whose `info` fails
# and which hands every other call to the real CLI: verify says UNAVAILABLE with the reason, no
# `run` was ever asked for, and nothing is left behind.
real_docker=$(command -v docker)
mkdir -p "$TMP/fakebin"
cat >"$TMP/fakebin/docker" <<SH
#!/bin/sh
echo "\$1" >>"$TMP/docker-calls"
[ "\$1" = info ] && { echo "Cannot connect to the Docker daemon (this test's)" >&2; exit 1; }
exec "$real_docker" "\$@"
SH
chmod +x "$TMP/fakebin/docker"
rc=0
# A context makes availability ask `docker info` (the CLI knows where a context points); without
# one it asks the daemon's API over its socket, tested below with a stand-in daemon.
DOCKER_CONTEXT=default PATH="$TMP/fakebin:$PATH" "$ISOTIER_BIN" verify --backend docker --db "$TMP/unavail.db" --json \
  >"$TMP/unavail.json" 2>"$TMP/unavail.err" || rc=$?
assert_eq "$rc" 69 "docker: verify with a daemon that says it cannot run: exit"
assert_eq "$(json_get "$TMP/unavail.json" results.0.verdict)" UNAVAILABLE "docker: unavailable verdict"
assert_contains "$(json_get "$TMP/unavail.json" results.0.reason)" "this test's" "docker: the reason is available()'s"
grep -qx info "$TMP/docker-calls" || fail "docker: available() was not asked: $(tr '\n' ' ' <"$TMP/docker-calls")"
! grep -qx run "$TMP/docker-calls" || fail "docker: a sandbox ran although the backend said unavailable"
assert_engine_clean docker "unavailable after provision"
echo "ok: docker: unavailable beside its provision: nothing ran ($(sort -u "$TMP/docker-calls" | tr '\n' ' '))"

# Availability over the Engine API (DOCKER_HOST=unix://SOCKET, no context): a stand-in daemon
# answers GET /info. A well-formed answer lists its runtimes with every unsafe character made
# '?'; a refusal, a body that is not JSON, a duplicate key, no runtimes object, a body over the
# bound and a daemon that never answers are each unavailable (69) with the reason, within the
# call's bound.
fake_daemon() { # MODE: starts the stand-in on $TMP/fake.sock and waits for it to listen
  rm -f "$TMP/fake.sock" "$TMP/fake.sock.pid"
  python3 "$ISOTIER_ROOT/tests/tools/docker_info_daemon.py" "$TMP/fake.sock" "$1" &
  for _ in $(seq 100); do [ -s "$TMP/fake.sock.pid" ] && break; sleep 0.05; done
  [ -s "$TMP/fake.sock.pid" ] || fail "the stand-in daemon did not start"
}
stop_fake() { kill "$(cat "$TMP/fake.sock.pid")" 2>/dev/null; wait 2>/dev/null || true; }
fake_daemon ok
rc=0
out=$(DOCKER_HOST="unix://$TMP/fake.sock" "$DRIVER" --backend docker-runsc --available) || rc=$?
stop_fake
assert_eq "$rc" 0 "docker-runsc: available from the API ($out)"
assert_contains "$out" "runsc (/usr/bin/runsc --platform=ptrace)" "docker: runtimes from the API"
assert_contains "$out" "evil??31m (/opt/??0?pwned?bin a?b)" "docker: the API's runtime names made safe"
! grep -q $'\e' <<<"$out" || fail "docker: an escape character reached the reason: $out"
for mode in status garbage dupkey noruntimes huge hang; do
  fake_daemon "$mode"
  rc=0 start=$(date +%s)
  out=$(DOCKER_HOST="unix://$TMP/fake.sock" timeout 60 "$DRIVER" --backend docker --available) || rc=$?
  stop_fake
  assert_eq "$rc" 69 "docker: a daemon answering '$mode': unavailable ($out)"
  [ $(($(date +%s) - start)) -lt 50 ] || fail "docker: '$mode' took longer than the call's bound"
  case $mode in
    status) want="HTTP 500 from GET /info" ;;
    garbage) want="docker info: not JSON" ;;
    dupkey) want='duplicate key "Runtimes"' ;;
    noruntimes) want="runtimes table is not a JSON object" ;;
    huge) want="response body larger than 262144 bytes" ;;
    hang) want="timed out" ;;
  esac
  assert_contains "$out" "$want" "docker: a daemon answering '$mode'"
  echo "ok: docker: a daemon answering '$mode': $out"
done
