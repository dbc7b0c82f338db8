#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs tests/integration/*.sh (ISOTIER_TEST_DIR: another folder of such scripts, for the
# runner's own test). Each script exits 0 (pass), 77 (skipped: it
# prints why, loudly) or anything else (fail). ISOTIER_TESTS=glob narrows.
#
# Three at a time (ISOTIER_TEST_JOBS; 1 runs them one by one in name order).
# Each script says on its second line how long it runs and what it cannot
# share:
#   # isotier-test: SPEED[; uses: RESOURCE...][; after: TEST...]
# SPEED is fast (a few seconds), normal or slow (15 s and more): the longest
# start first, by their measured time where there is one (tests/integration/times,
# $BUILD/integration-times), else by SPEED; ISOTIER_TESTS_SPEED=fast runs the fast
# ones only (make integration-fast).
# A RESOURCE has one slot (two tests that use it never overlap), but:
#   challenge   runs verifications whose challenge must run: the patterns
#               themselves never overlap (host_watch.c holds the host's
#               challenge lock while one runs, and a verification waits for it
#               up to its --timeout), so ISOTIER_TEST_CHALLENGE_SLOTS (2) such
#               tests share the host; more would only add load and waiting
#   quiet       every challenge slot: a test whose verifications want the host to
#               themselves: TCG guests that must answer the challenge in full
#               within their timeouts (verify --all, deb_install's job), a host
#               view that must see no other test's sandbox or VMM start beside the
#               lies it is there to catch (lies_local); one other test (no
#               challenge) may run beside it, as when the runner ran two at a time
#               (ISOTIER_TEST_QUIET_COMPANY: on 2 cores, two beside it stretched
#               the quiet tests by as much as they saved). The remote tests'
#               cross challenge catches lies too, but no pattern reaches its counts
#               but the one its own sandbox plays: the emulators hold the host's
#               challenge lock while one runs (tests/tools/emu_sandbox.py), so
#               they are `challenge` users
#   vmm         starts a VMM or runsc on the host outside a challenge slot: a host view
#               (host_watch.c) in a quiet test would see it start beside its own sandbox,
#               so a quiet test takes this slot too
#   docker podman kvm nspawn  the daemon, Podman's containers, /dev/kvm, machinectl's list
#               (counted by tests: an engine's isotier-labelled containers after a run)
#   make-build  runs make on $BUILD (install, deb)
#   fhang sleep30  looks for its processes by a name other tests' share
# A test whose verifications are the host backend's only (no sandbox: no host view, no
# challenge) does not use the challenge. A script without the line counts as
# `uses: challenge`. `after: TEST...`: the test starts once each named test of the run has ended
# (deb_install installs the packages deb_package built, outside the quiet slot). Locks are flock(1)s under $ISOTIER_TEST_LOCK_DIR
# (/tmp/isotier-test-locks), so two runs on one host (two checkouts) keep out of
# each other's way too. Each result prints when its test ends (its wall time, its
# CPU, when it started); a failure prints its output's last 60 lines.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
export ISOTIER_ROOT="$root" BUILD="${BUILD:-build}"
testdir=${ISOTIER_TEST_DIR:-$root/tests/integration}
export ISOTIER_BIN="$root/$BUILD/isotier" ISOTIER_PROBE="$root/$BUILD/isotier-probe"
jobs=${ISOTIER_TEST_JOBS:-3}
# Every test ends by itself: past ISOTIER_TEST_TIMEOUT seconds (900) it is killed and named.
test_timeout=${ISOTIER_TEST_TIMEOUT:-900}
[[ $test_timeout =~ ^[1-9][0-9]*$ ]] || { echo "run-integration.sh: ISOTIER_TEST_TIMEOUT must be a positive number of seconds" >&2; exit 2; }
challenge_slots=${ISOTIER_TEST_CHALLENGE_SLOTS:-2}
quiet_company=${ISOTIER_TEST_QUIET_COMPANY:-1} # other tests that may run beside a quiet one
lockdir=${ISOTIER_TEST_LOCK_DIR:-/tmp/isotier-test-locks}
mkdir -p "$lockdir"
# The host's challenge lock (host_watch.c): root's isotiers share /run/isotier/challenge.lock
# whatever their state directory, tests included. Another user's lock lives in the state
# directory, which most tests make their own: every test shares this one instead, or their
# patterns (the emulators' too: tests/tools/emu_sandbox.py) would overlap unguarded.
if [ "$(id -u)" != 0 ] && [ -z "${ISOTIER_CHALLENGE_LOCK:-}" ]; then
  export ISOTIER_CHALLENGE_LOCK=$lockdir/host-challenge.lock
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# python3 resolved once for every test: where PATH finds a version manager's shim (pyenv's is a
# shell script that runs pyenv to pick the interpreter, about 0.4 s of CPU per start), the suite's
# few thousand python3 starts cost minutes of CPU (catalogue_check: 39 s, 11 s without). The same
# interpreter, started directly.
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || py=
if [ -n "$py" ] && [ -x "$py" ] && [ "$(command -v python3)" != "$py" ]; then
  mkdir -p "$out/bin" && ln -s "$py" "$out/bin/python3" && export PATH="$out/bin:$PATH"
fi

# Each test's expected wall time, longest first: what it took when last measured (a line
# `NAME WALL CPU` of tests/integration/times, measured on a 2-core host and kept in the tree for a
# fresh checkout; then of $BUILD/integration-times, which every run rewrites with its own figures
# and which wins), else its speed tag's guess. Only the order depends on it (a long test started
# last is the run's tail), never which tests run or what they share.
times_files=()
if [ -z "${ISOTIER_TEST_DIR:-}" ]; then
  times_files=("$root/tests/integration/times")
  case $BUILD in /*) times_out=$BUILD ;; *) times_out=$root/$BUILD ;; esac
  times_out=${ISOTIER_TEST_TIMES:-$times_out/integration-times}
  times_files+=("$times_out")
else
  times_out=${ISOTIER_TEST_TIMES:-}
  [ -z "$times_out" ] || times_files+=("$times_out")
fi
declare -A measured=()
for f in "${times_files[@]}"; do
  [ -r "$f" ] || continue
  while read -r n w _; do
    # Whatever the file holds, a name and a number only: anything else is ignored.
    [[ $n =~ ^[A-Za-z0-9_.-]+$ && $w =~ ^[0-9]+(\.[0-9]+)?$ ]] && measured[$n]=$w
  done <"$f"
done
declare -A guess=([slow]=45 [normal]=15 [fast]=4)

# The tests: the quiet ones first (each holds every challenge slot and lets one other test run
# beside it: they are the run's longest chain, and started first they run back to back, each
# with an other test beside it, instead of waiting between challenge users), then the others that
# use the challenge (they share its slots: their chain must never wait for a free slot), then the
# rest; longest first within each (above), name order among equals. Each script's tag is read once.
names=() uses=() quiet=() after=()
rows=()
for t in "$testdir"/${ISOTIER_TESTS:-*}.sh; do
  [ -e "$t" ] || continue
  name=$(basename "$t" .sh)
  tag=
  { IFS= read -r _ && IFS= read -r tag; } <"$t" || true
  case $tag in "# isotier-test:"*) tag=${tag#"# isotier-test:"} tag=${tag#"${tag%%[! ]*}"} ;; *) tag= ;; esac
  s=${tag%%;*} s=${s// /}
  [ -n "$tag" ] || s=normal
  [ -z "${ISOTIER_TESTS_SPEED:-}" ] || [ "$s" = "$ISOTIER_TESTS_SPEED" ] || continue
  u=
  if [ -z "$tag" ]; then u=challenge
  elif [[ $tag == *"uses:"* ]]; then u=${tag#*uses:} u=$(tr -s ' ' '\n' <<<"${u%%;*}" | sed '/^$/d' | sort -u | xargs); fi
  a=
  if [[ $tag == *"after:"* ]]; then a=${tag#*after:} a=$(xargs <<<"${a%%;*}"); fi
  # quiet: every challenge slot, and one test beside it at most (see the header).
  q=
  if [[ " $u " == *" quiet "* ]]; then
    q=1
    u=${u//quiet/}
    u=${u//challenge/}
    for _ in $(seq "$challenge_slots"); do u+=" challenge"; done
    [[ " $u " == *" vmm "* ]] || u+=" vmm"
    u=$(xargs <<<"$u")
  fi
  g=3
  [[ " $u " != *" challenge "* ]] || g=2
  [ -z "$q" ] || g=1
  est=${measured[$name]:-${guess[$s]:-15}}
  rows+=("$g $est $name|$u|$q|$a")
done
while IFS='|' read -r key u q a; do
  names+=("${key##* }") uses+=("$u") quiet+=("$q") after+=("$a")
done < <([ "${#rows[@]}" -eq 0 ] || printf '%s\n' "${rows[@]}" | sort -k1,1n -k2,2gr -k3,3)
# A run that tested nothing is not green (a typo in ISOTIER_TESTS, an empty folder).
[ "${#names[@]}" -gt 0 ] || { echo "run-integration.sh: no test in $testdir matches '${ISOTIER_TESTS:-*}'" >&2; exit 2; }
[ "$jobs" -gt 1 ] || {
  # One at a time: in name order, as before.
  mapfile -t order < <(for i in "${!names[@]}"; do echo "${names[$i]} $i"; done | sort | awk '{print $2}')
}

cpu_now() { # VAR: the CPU seconds (user + system) of this shell's waited-for children so far
  # `times` in this shell (a subshell's children are its own): written to a file, not piped;
  # with a decimal point whatever the locale, for bc.
  local _ u s LC_NUMERIC=C
  times >"$out/times.$BASHPID"
  { read -r _; read -r u s; } <"$out/times.$BASHPID"
  printf -v "$1" '%s' "$(echo "$u $s" | sed 's/\([0-9]*\)m\([0-9.]*\)s/(\1*60+\2)/g; s/ /+/' | bc)"
}

run_one() { # INDEX [LOCK...]: runs the test under its locks, leaves its log and time in $out
  local name=${names[$1]} r cmd=() rc cpu0 cpu1
  shift
  # flock -o: the lock stays with flock itself, never with what the test leaves running.
  # In one order (sorted by name) for every test: two runs on one host (two checkouts) can
  # then never each hold a lock the other waits for.
  for r in $(printf '%s\n' "$@" | sort); do cmd+=(flock -o "$lockdir/$r.lock"); done
  cpu_now cpu0
  # The time is the test's own, from when it holds its locks (another run may hold one).
  # Its CPU (user + system, the test and what it waited for; not a daemon's) beside its time:
  # on 2 cores the suite's length is its CPU, and this says where it goes.
  "${cmd[@]}" bash -c 'date +%s.%N >"$1"; exec timeout --kill-after=10 "$3" bash "$2"' _ \
    "$out/$name.start" "$testdir/$name.sh" "$test_timeout" >"$out/$name.log" 2>&1
  rc=$?
  cpu_now cpu1
  printf "%.1f" "$(echo "$cpu1 - $cpu0" | bc)" >"$out/$name.cpu"
  printf '%.1f' "$(echo "$(date +%s.%N) - $(cat "$out/$name.start" 2>/dev/null || date +%s.%N)" | bc)" >"$out/$name.secs"
  return $rc
}

report() { # INDEX RC
  local name=${names[$1]} secs
  secs="$(cat "$out/$name.secs" 2>/dev/null || echo 0)s, cpu $(cat "$out/$name.cpu" 2>/dev/null || echo 0)s, from +$(
    printf '%.0f' "$(echo "$(cat "$out/$name.start" 2>/dev/null || echo "$t0") - $t0" | bc)")"
  # Its figures for the next run's order (a test that failed or was skipped may have ended early:
  # its last good figure stays).
  [ "$2" != 0 ] || measured[$name]="$(cat "$out/$name.secs" 2>/dev/null || echo 0) $(cat "$out/$name.cpu" 2>/dev/null || echo 0)"
  case $2 in
    0) pass=$((pass + 1)); echo "PASS $name (${secs}s)" ;;
    77) skip=$((skip + 1)); echo "SKIP $name (${secs}s): $(tail -n 1 "$out/$name.log")" ;;
    124 | 137) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (TIMEOUT: still running after ${test_timeout} s, killed; ${secs}s)"; sed 's/^/    /' "$out/$name.log" | tail -n 60 ;;
    *) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (rc=$2, ${secs}s)"; sed 's/^/    /' "$out/$name.log" | tail -n 60 ;;
  esac
}

pass=0 fail=0 skip=0 failed=()
t0=$(date +%s.%N) # each result says when its test started, from here
if [ "$jobs" -le 1 ]; then
  for i in "${order[@]}"; do
    # A resource named more than once (quiet: every challenge slot) takes its slots' locks,
    # r, r.1, ..., as in parallel: the same lock twice would wait for itself.
    locks=()
    declare -A named=()
    for r in ${uses[$i]}; do
      n=${named[$r]:-0} named[$r]=$((${named[$r]:-0} + 1))
      if [ "$n" -eq 0 ]; then locks+=("$r"); else locks+=("$r.$n"); fi
    done
    unset named
    run_one "$i" "${locks[@]}"
    report "$i" $?
  done
else
  declare -A running=() held=() busy=()
  quiet_running=0
  pending=("${!names[@]}")
  capacity() { # RESOURCE: how many running tests may use it at once
    if [ "$1" = challenge ]; then echo "$challenge_slots"; else echo 1; fi
  }
  resources_free() { # INDEX: each of its resources has as many free slots as it names it
    local r
    local -A need=()
    for r in ${uses[$1]}; do need[$r]=$((${need[$r]:-0} + 1)); done
    for r in "${!need[@]}"; do
      [ $((${busy[$r]:-0} + need[$r])) -le "$(capacity "$r")" ] || return 1
    done
  }
  free_slot() { # RESOURCE: the name of its first free slot's lock (r, r.1, r.2, ...)
    local r=$1 n=0 name=$1
    while [ -n "${busy[slot:$name]:-}" ]; do n=$((n + 1)) name=$r.$n; done
    echo "$name"
  }
  while [ "${#pending[@]}" -gt 0 ] || [ "${#running[@]}" -gt 0 ]; do
    # Start the first pending tests whose resources are free, up to the pool's size.
    while [ "${#running[@]}" -lt "$jobs" ]; do
      pick=-1 waiting_quiet=
      for k in "${!pending[@]}"; do
        c=${pending[$k]}
        # after: NAME...: not before each named test of this run has ended (it makes what this
        # one reads; whether it passed is the test's to find out). Not waiting, nor overtaken.
        if [ -n "${after[$c]}" ]; then
          blocked=
          for r in "${pending[@]}" "${running[@]}"; do
            [ "$r" = "$c" ] || [[ " ${after[$c]} " != *" ${names[$r]} "* ]] || blocked=1
          done
          [ -z "$blocked" ] || continue
        fi
        # Beside a quiet test (or to start one) quiet_company other tests run at most (one: the
        # load of the runs before three at a time, which the challenge's tests were written
        # against).
        if [ "${#running[@]}" -gt "$quiet_company" ] && { [ "$quiet_running" -gt 0 ] || [ -n "${quiet[$c]}" ]; }; then
          [ -z "${quiet[$c]}" ] || [ -n "$waiting_quiet" ] || waiting_quiet=$c
          continue
        fi
        # A quiet test that waits is not overtaken: no other challenge user starts, quiet_company
        # other tests at most run beside the ones it waits for, and none that holds a resource it
        # needs (docker, kvm...): started beside the quiet test before it, such a test would keep
        # it waiting after that one ended, with one test running on 2 cores.
        if [ -n "$waiting_quiet" ]; then
          [[ " ${uses[$c]} " != *" challenge "* ]] || continue
          others=0
          for r in "${running[@]}"; do [[ " ${uses[$r]} " == *" challenge "* ]] || others=$((others + 1)); done
          [ "$others" -lt "$quiet_company" ] || break
          shares=
          for r in ${uses[$c]}; do [[ " ${uses[$waiting_quiet]} " != *" $r "* ]] || shares=1; done
          [ -z "$shares" ] || continue
        fi
        if resources_free "$c"; then pick=$k; break; fi
        [ -z "${quiet[$c]}" ] || [ -n "$waiting_quiet" ] || waiting_quiet=$c
      done
      [ "$pick" -ge 0 ] || break
      i=${pending[$pick]}
      unset 'pending[pick]'
      pending=("${pending[@]}")
      locks=()
      for r in ${uses[$i]}; do
        l=$(free_slot "$r") busy[$r]=$((${busy[$r]:-0} + 1)) busy[slot:$l]=1
        locks+=("$l")
      done
      run_one "$i" "${locks[@]}" &
      running[$!]=$i held[$!]="${locks[*]}"
      [ -z "${quiet[$i]}" ] || quiet_running=$((quiet_running + 1))
    done
    wait -n -p done_pid "${!running[@]}"
    rc=$?
    i=${running[$done_pid]}
    for l in ${held[$done_pid]}; do
      r=${l%%.*}
      unset "busy[slot:$l]"
      busy[$r]=$((busy[$r] - 1))
    done
    unset "running[$done_pid]" "held[$done_pid]"
    [ -z "${quiet[$i]}" ] || quiet_running=$((quiet_running - 1))
    report "$i" "$rc"
  done
fi
# The figures, for the next run's order: this run's, and the last known of the tests it did not run.
if [ -n "$times_out" ] && [ "$pass" -gt 0 ] && [ -d "$(dirname "$times_out")" ]; then
  {
    [ ! -r "$times_out" ] || while read -r n w c; do
      [[ ${measured[$n]:-} != *" "* && $n =~ ^[A-Za-z0-9_.-]+$ && $w =~ ^[0-9]+(\.[0-9]+)?$ ]] && echo "$n $w ${c:-0}"
    done <"$times_out"
    for n in "${names[@]}"; do [[ ${measured[$n]:-} != *" "* ]] || echo "$n ${measured[$n]}"; done
  } 2>/dev/null | sort >"$times_out.tmp" && mv -f "$times_out.tmp" "$times_out" || rm -f "$times_out.tmp"
fi
echo "integration: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
