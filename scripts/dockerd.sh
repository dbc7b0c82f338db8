#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/dockerd.sh start|stop STATE_DIR - a Docker daemon for the docker backends, started only
# when none answers, and stopped only when this script started it (by the pids it recorded).
#
#   start: if `docker info` answers, does nothing. Otherwise starts dockerd (in its own session,
#          log in STATE_DIR/dockerd.log; dockerd starts its own containerd) and waits up to 30 s
#          for it to answer. Records dockerd's pid (and its containerd's) in STATE_DIR.
#   stop:  TERMs the recorded pids (KILL after 20 s) and removes the records. Nothing recorded:
#          nothing to stop (a daemon someone else started is left alone).
# Needs root and Debian's docker.io (scripts/deps.sh, which also registers the runsc runtime).
set -euo pipefail
cmd=${1:-} state=${2:-}
[ -n "$cmd" ] && [ -n "$state" ] || { echo "usage: $0 start|stop STATE_DIR" >&2; exit 64; }
answers() { timeout 10 docker info >/dev/null 2>&1; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
stop_pid() { # pid: TERM, wait, KILL
  local pid=$1 i
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 200); do alive "$pid" || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
case $cmd in
  start)
    if answers; then exit 0; fi
    command -v dockerd >/dev/null || { echo "dockerd: not installed (scripts/deps.sh installs docker.io)" >&2; exit 69; }
    mkdir -p "$state"
    setsid dockerd >"$state/dockerd.log" 2>&1 </dev/null &
    echo $! >"$state/dockerd.pid"
    for _ in $(seq 1 300); do
      if answers; then
        # dockerd's own containerd, so that stop can make sure it went too.
        cat /var/run/docker/containerd/containerd.pid >"$state/containerd.pid" 2>/dev/null || true
        echo "dockerd: started (pid $(cat "$state/dockerd.pid"))" >&2
        exit 0
      fi
      alive "$(cat "$state/dockerd.pid")" || break
      sleep 0.1
    done
    echo "dockerd: did not come up; last lines of its log:" >&2
    tail -n 15 "$state/dockerd.log" >&2 || true
    "$0" stop "$state"
    exit 1
    ;;
  stop)
    for f in dockerd containerd; do
      [ -f "$state/$f.pid" ] || continue
      stop_pid "$(cat "$state/$f.pid")"
      rm -f "$state/$f.pid"
    done
    ;;
  *) echo "usage: $0 start|stop STATE_DIR" >&2; exit 64 ;;
esac
