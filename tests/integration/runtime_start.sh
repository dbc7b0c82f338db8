#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# runtime_start.sh - a runtime that cannot start its sandbox fails the job with
# a documented code, its cause on the first line (verify_judge.c, verify_exit.c,
# runbook/jobs.md). Real runtimes made to fail for real: in a mount namespace
# of its own, /sys/fs/cgroup is an empty tmpfs (what runc meets inside a
# container without cgroups), so runc and crun cannot place the container.
# verify exits 69 (never 65: no report came, so none was bad), the stored
# verdict is INCONCLUSIVE (grants nothing), and the job's first line is
# "verify exit 69: runc: runc did not start the sandbox (...): <runc's own
# msg>", the cause named before anything cuts it.
. "$ISOTIER_ROOT/tests/lib.sh"

JOB=$ISOTIER_ROOT/runbook/jobs/isotier-reverify.sh
command -v runc >/dev/null || skip "runc is not installed"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
# The cgroup root hidden, in this namespace only: every other test keeps the host's.
in_ns() {
  timeout 180 unshare -m sh -c 'mount --make-rprivate / &&
    mount -t tmpfs isotier-no-cgroups /sys/fs/cgroup && exec "$@"' sh "$@"
}
in_ns true 2>/dev/null || skip "cannot make a private mount namespace here (unshare -m)"

state=$TMP/state
mkdir -p "$state"
touch "$state/.sources-attempted" "$state/.sources-checked" # not this test's step
set +e
in_ns env -u ISOTIER_DB -u ISOTIER_HOST_PROVIDER ISOTIER_STATE_DIR="$state" \
  ISOTIER_BACKENDS=runc ISOTIER_REPORT_FORMATS=json ISOTIER_BIN="$ISOTIER_BIN" "$JOB" \
  >"$TMP/job.out" 2>"$TMP/job.err"
rc=$?
set -e
first=$(head -1 "$TMP/job.err")
assert_eq "$rc" 69 "the job over a runc that cannot start ($(head -c 1500 "$TMP/job.err"))"
assert_contains "$first" "isotier-reverify: verify exit 69: runc: runc did not start the sandbox"
# runc's own words, not the logfmt around them nor its warning before them.
assert_contains "$first" "unable to apply cgroup configuration"
assert_contains "$first" "/sys/fs/cgroup/"
case $first in *'level=error'* | *'time="'*) fail "the first line kept runc's logfmt: $first" ;; esac
[ "${#first}" -le 700 ] || fail "the first line is not bounded (${#first} bytes): $first"
assert_eq "$(json_get "$state/last-run.json" verify)" 69 "last-run.json's verify"
assert_eq "$(json_get "$state/last-run.json" exit)" 69 "last-run.json's exit"
# The history holds the attempt, judged nothing.
assert_eq "$(sql "$state/isotier.db" "SELECT verdict FROM observations WHERE backend = 'runc'")" \
  INCONCLUSIVE "the stored verdict"
assert_contains "$(sql "$state/isotier.db" "SELECT reason FROM observations WHERE backend = 'runc'")" \
  "unable to apply cgroup configuration"

# crun and systemd-nspawn, straight from verify: the same code, each one's own cause.
for pair in crun:crun nspawn:systemd-nspawn; do
  b=${pair%%:*} runtime=${pair#*:}
  if ! command -v "$runtime" >/dev/null; then
    echo "note: $runtime is not installed: its start failure not checked"
    continue
  fi
  set +e
  in_ns "$ISOTIER_BIN" verify --backend "$b" --db "$TMP/$b.db" >"$TMP/$b.out" 2>&1
  rc=$?
  set -e
  assert_eq "$rc" 69 "verify --backend $b without cgroups ($(head -c 1500 "$TMP/$b.out"))"
  line=$(grep "^$b: " "$TMP/$b.out")
  assert_contains "$line" "$b: $b did not start the sandbox (exit status"
  assert_contains "$line" "cgroup"
done

# A runtime that started its sandbox and a report that is bad is still 65: the
# same runc, its cgroups back, running a probe that prints bytes that are not JSON.
probe=$ISOTIER_ROOT/$BUILD/tests/fault-probe-garbage
[ -x "$probe" ] || fail "fault probes not built ($probe)"
set +e
ISOTIER_PROBE=$probe "$ISOTIER_BIN" verify --backend runc --db "$TMP/bad.db" >"$TMP/bad.out" 2>&1
rc=$?
set -e
assert_eq "$rc" 65 "a runtime that started and a bad report ($(head -c 1500 "$TMP/bad.out"))"
assert_contains "$(grep '^runc: ' "$TMP/bad.out")" "probe output rejected"
echo "ok: a runtime that cannot start fails the job with 69, its own cause on the first line"
