#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# The history survives `verify` dying while it writes (issue 17): SIGKILL at
# random points of runs (between and during statements), a file size limit
# (RLIMIT_FSIZE: the database or its WAL cannot grow) and a full disk (a
# small tmpfs, when this machine lets us mount one). After every fault:
# PRAGMA integrity_check is "ok", every observation committed before it is
# still there byte for byte, and the next verify stores normally.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
bin=$ISOTIER_BIN
db=$TMP/h.db
q() { sql "$1" "$2"; }
# The committed observations, one line each (id and a hash of every column).
committed() {
  q "$1" "SELECT id || ' ' || hex(sha3(quote(run_id) || quote(observed_at) || quote(backend) ||
          quote(verdict) || quote(reason) || quote(layers_json) || quote(probe_json) ||
          quote(evidence))) FROM observations ORDER BY id" 2>/dev/null ||
  q "$1" "SELECT id || ' ' || length(probe_json) || ' ' || verdict || ' ' || observed_at || ' ' ||
          quote(layers_json) FROM observations ORDER BY id"
}
check_intact() { # db before-file label
  local ic
  ic=$(q "$1" "PRAGMA integrity_check") || fail "$3: the database does not open"
  assert_eq "$ic" ok "$3: integrity_check"
  committed "$1" >"$TMP/after"
  # Every line committed before is there, unchanged (new ones may follow).
  missing=$(comm -23 <(sort "$2") <(sort "$TMP/after"))
  [ -z "$missing" ] || fail "$3: committed observations lost or changed: $missing"
}
verify_ok() { "$bin" verify --backend host --db "$1" >/dev/null 2>&1 || fail "verify on $1 after $2"; }

for _ in 1 2 3; do verify_ok "$db" "seeding"; done
[ "$(q "$db" "SELECT count(*) FROM observations")" -eq 3 ] || fail "seeding did not store 3 observations"

# 1. SIGKILL at 16 points spread over a run's measured length (and a little
# past it): opening, migrating, the run row, the observation's transaction,
# the run's end. The first lands at once, so at least one kill is certain.
t0=$(date +%s%N); verify_ok "$db" "timing a run"; run_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kills=0
for i in $(seq 0 15); do
  committed "$db" >"$TMP/before"
  "$bin" verify --backend host --db "$db" >/dev/null 2>&1 &
  pid=$!
  [ "$i" -eq 0 ] || sleep "$(printf '%d.%03d' $(( run_ms * i * 5 / 64 / 1000 )) $(( run_ms * i * 5 / 64 % 1000 )))"
  kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1))
  wait "$pid" 2>/dev/null || true
  check_intact "$db" "$TMP/before" "SIGKILL #$i"
done
interrupted=$(q "$db" "SELECT count(*) FROM runs WHERE status = 'running'")
echo "SIGKILL: $kills of 16 runs killed (a run takes ~$run_ms ms), $interrupted of them after their run row was written; history intact after each"
[ "$kills" -gt 0 ] || fail "no verify was killed: the test exercised nothing"
committed "$db" >"$TMP/before"
verify_ok "$db" "the SIGKILLs"
check_intact "$db" "$TMP/before" "verify after the SIGKILLs"

# 2. RLIMIT_FSIZE: the files may not grow past their size (+0, +4, +40 KiB).
# SIGXFSZ kills verify, or the write fails (EFBIG) and verify says so.
for extra in 0 4 40; do
  committed "$db" >"$TMP/before"
  size_kb=$(( ($(stat -c %s "$db") + $( [ -e "$db-wal" ] && stat -c %s "$db-wal" || echo 0)) / 1024 + extra ))
  rc=0
  (ulimit -f "$size_kb"; exec "$bin" verify --backend host --db "$db") >"$TMP/out" 2>&1 || rc=$?
  echo "RLIMIT_FSIZE $size_kb KiB: verify exit $rc"
  check_intact "$db" "$TMP/before" "RLIMIT_FSIZE +$extra KiB"
  verify_ok "$db" "RLIMIT_FSIZE +$extra KiB"
done

# 3. A full disk: a 1 MiB tmpfs holding the database, filled up.
mnt=$TMP/small
mkdir "$mnt"
if mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
  trap 'umount "$mnt" 2>/dev/null || true; rm -rf "$TMP"' EXIT
  sdb=$mnt/h.db
  verify_ok "$sdb" "creating it on the tmpfs"
  verify_ok "$sdb" "a second run on the tmpfs"
  committed "$sdb" >"$TMP/before"
  dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null || true # fills the tmpfs
  rc=0
  "$bin" verify --backend host --db "$sdb" >"$TMP/out" 2>&1 || rc=$?
  [ "$rc" -ne 0 ] || fail "verify on a full disk reported success: $(cat "$TMP/out")"
  echo "full disk: verify exit $rc: $(tail -n 1 "$TMP/out")"
  rm -f "$mnt/fill"
  check_intact "$sdb" "$TMP/before" "full disk"
  verify_ok "$sdb" "the disk had room again"
  umount "$mnt"
else
  echo "full disk: cannot mount a tmpfs here (not root, or no CAP_SYS_ADMIN); RLIMIT_FSIZE stood in for it"
fi
echo "history faults: integrity and every committed observation kept"
