#!/usr/bin/env bash
# isotier-test: slow; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# history_prune.sh - `isotier history prune` (reference/history/history_prune.c,
# verify/history/history_retention.c) on an SQLite file and on a real
# PostgreSQL server this test starts (tests/pg.sh): a year of history written
# directly (an export generated here and imported: 240 old observations of
# bwrap and runc with their evidence, a CONTRADICTED runc row nothing cleared,
# source checks) and one real bwrap verification on top. Asserted on both:
# the gate's verdict for every backend (backends --json: tier, reason, latest
# verdict) is the same before and after; --dry-run changes nothing; the
# prune removes the old rows and their evidence and keeps each backend's
# latest rows and the old contradiction; it leaves a history_pruned audit
# event; a prune that cannot write (a read-only file, a read-only database)
# or is locked out exits 74 or 75 and changes nothing.
. "$ISOTIER_ROOT/tests/lib.sh"
. "$ISOTIER_ROOT/tests/pg.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
B=$ISOTIER_BIN
trap 'pg_stop; rm -rf "$TMP"' EXIT

# The rows name this host (the gate reads this host's and hostless rows);
# imported, they can only lower what it says.
host_id=$(cat /etc/machine-id 2>/dev/null || cat /var/lib/dbus/machine-id 2>/dev/null || true)
[ ${#host_id} = 32 ] || skip "no machine id on this host: no row can be its own"
# The year: one run a day from 2025-11-01 (older than 30 days when this runs
# in 2026 or later), bwrap CONFIRMED, runc CONFIRMED then CONTRADICTED on its
# last day, each observation with 4 KiB of evidence of its own.
python3 - "$TMP/year.jsonl" "$host_id" <<'PY'
import base64, datetime, hashlib, json, os, sys, uuid
out = open(sys.argv[1], "w")
w = lambda d: out.write(json.dumps(d) + "\n")
w({"type": "header", "schema": "isotier.history.export/1", "history_schema": 11,
   "tool_version": "0.1.0"})
day0 = datetime.datetime(2025, 11, 1, 4, 17, 0)
for i in range(120):
    at = (day0 + datetime.timedelta(days=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
    run = str(uuid.uuid4())
    w({"type": "run", "uuid": run, "started_at": at, "finished_at": at, "tool_version": "0.1.0",
       "command": "verify", "status": "ok", "host": "old-host", "host_id": sys.argv[2]})
    for backend, tier, mech in (("bwrap", "CONTAINER", "bubblewrap"), ("runc", "CONTAINER", "runc")):
        blob = os.urandom(4096)
        sha = hashlib.sha256(blob).hexdigest()
        w({"type": "evidence", "sha256": sha, "format": "tar",
           "content_base64": base64.b64encode(blob).decode()})
        verdict = "CONTRADICTED" if backend == "runc" and i == 119 else "CONFIRMED"
        w({"type": "observation", "uuid": str(uuid.uuid4()), "run_uuid": run, "observed_at": at,
           "backend": backend, "provider_id": "bubblewrap" if backend == "bwrap" else "runc",
           "claimed_tier": tier, "claimed_mechanism": mech, "observed_tier": tier,
           "verdict": verdict, "reason": "generated row %d" % i, "evidence_format": "tar",
           "ceiling_tier": tier if verdict == "CONFIRMED" else "NONE", "host_id": sys.argv[2],
           "evidence_sha256": sha, "duration_ms": 100})
PY

# backends --json's verdict of each backend: what the gate says.
gate_of() { # DB
  "$B" backends --db "$1" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for r in d:
    print(r["backend"], r["resolved_tier"], r.get("latest_verdict"), r["reason"])'
}

check_target() { # LABEL DB COUNT-FN
  local label=$1 db=$2 q=$3 out rc
  "$B" history import --db "$db" "$TMP/year.jsonl" >/dev/null || fail "$label: import"
  "$B" verify --backend bwrap --db "$db" >"$TMP/$label.verify" 2>&1 ||
    fail "$label: verify bwrap: $(cat "$TMP/$label.verify")"
  gate_of "$db" >"$TMP/$label.gate.before"
  grep -q '^bwrap CONTAINER CONFIRMED' "$TMP/$label.gate.before" ||
    fail "$label: bwrap not granted before: $(cat "$TMP/$label.gate.before")"
  grep -q '^runc UNKNOWN CONTRADICTED' "$TMP/$label.gate.before" ||
    fail "$label: runc not refused before: $(cat "$TMP/$label.gate.before")"
  local obs blobs
  obs=$($q "SELECT count(*) FROM observations")
  blobs=$($q "SELECT count(*) FROM evidence_blobs")
  assert_eq "$obs" 241 "$label: observations before"

  # A dry run counts and changes nothing.
  out=$("$B" history prune --db "$db" --older-than 30 --dry-run) || fail "$label: dry run"
  assert_contains "$out" "would remove 238 observations, 238 evidence blobs"
  assert_eq "$($q "SELECT count(*) FROM observations")" "$obs" "$label: a dry run removed rows"
  assert_eq "$($q "SELECT count(*) FROM evidence_blobs")" "$blobs" "$label: a dry run removed evidence"
  assert_eq "$($q "SELECT count(*) FROM audit_events WHERE event = 'history_pruned'")" 0 \
    "$label: a dry run recorded a pruning"

  # The prune: old rows and their evidence go; the latest rows and the
  # contradiction stay; the gate says the same.
  out=$("$B" history prune --db "$db" --older-than 30) || fail "$label: prune"
  assert_contains "$out" "removed 238 observations, 238 evidence blobs"
  assert_eq "$($q "SELECT count(*) FROM observations")" 3 "$label: observations after"
  assert_eq "$($q "SELECT count(*) FROM observations WHERE backend = 'runc' AND verdict = 'CONTRADICTED'")" 1 \
    "$label: the old contradiction"
  # bwrap's verified row is the newest of its kind: the imported ones all go.
  assert_eq "$($q "SELECT count(*) FROM observations WHERE backend = 'bwrap'")" 1 "$label: bwrap's rows"
  assert_eq "$($q "SELECT count(*) FROM observations WHERE backend = 'bwrap' AND observed_at > '2026-03-01'")" 1 \
    "$label: bwrap's verified row"
  assert_eq "$($q "SELECT count(*) FROM observations WHERE backend = 'runc' AND observed_at = '2026-02-27T04:17:00Z'")" 1 \
    "$label: runc's latest CONFIRMED"
  assert_eq "$($q "SELECT count(*) FROM evidence_blobs e WHERE NOT EXISTS (SELECT 1 FROM observations o WHERE o.evidence_sha256 = e.sha256)")" 0 \
    "$label: evidence no row holds"
  assert_eq "$($q "SELECT count(*) FROM evidence_blobs")" 3 "$label: evidence after"
  assert_contains "$($q "SELECT detail_json FROM audit_events WHERE event = 'history_pruned'")" '"observations":238,'
  gate_of "$db" >"$TMP/$label.gate.after"
  diff "$TMP/$label.gate.before" "$TMP/$label.gate.after" >&2 || fail "$label: the gate changed"
}

# --- SQLite --------------------------------------------------------------------
db=$TMP/h.db
check_target sqlite "$db" "sql $db"
out=$("$B" history prune --db "$db" --older-than 30 --vacuum) || fail "vacuum"
assert_contains "$out" "vacuumed"
# A history in a directory mounted read-only: 74, unchanged.
cp "$db" "$TMP/ro.db"
"$B" history import --db "$TMP/ro.db" "$TMP/year.jsonl" >/dev/null
mkdir -p "$TMP/ro"
mv "$TMP/ro.db" "$TMP/ro/h.db"
before=$(sql "$TMP/ro/h.db" "SELECT count(*) FROM observations")
set +e
# shellcheck disable=SC2016 # $1 and $2 are the inner shell's
timeout 60 unshare -m sh -c 'mount --make-rprivate / && mount --bind -o ro "$1" "$1" && exec "$2" history prune --db "$1/h.db" --older-than 30' \
  sh "$TMP/ro" "$B" >"$TMP/ro.out" 2>&1
rc=$?
set -e
assert_eq "$rc" 74 "a read-only history ($(cat "$TMP/ro.out"))"
assert_contains "$(cat "$TMP/ro.out")" "unchanged"
assert_eq "$(sql "$TMP/ro/h.db" "SELECT count(*) FROM observations")" "$before" "the read-only history"
# Another writer holds the lock: 75, unchanged.
python3 - "$TMP/ro/h.db" "$TMP/locked" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(8)
c.execute("ROLLBACK")
PY
locker=$!
for _ in $(seq 100); do [ -e "$TMP/locked" ] && break; sleep 0.1; done
set +e
"$B" history prune --db "$TMP/ro/h.db" --older-than 30 --busy-timeout 200 >"$TMP/lock.out" 2>&1
rc=$?
set -e
kill "$locker" 2>/dev/null || true
wait "$locker" 2>/dev/null || true
assert_eq "$rc" 75 "a locked history ($(cat "$TMP/lock.out"))"
assert_eq "$(sql "$TMP/ro/h.db" "SELECT count(*) FROM observations")" "$before" "the locked history"
# No policy, a history that is not there.
set +e
"$B" history prune --db "$db" >/dev/null 2>&1; assert_eq "$?" 64 "no policy"
"$B" history prune --db "$TMP/absent.db" --older-than 1 >/dev/null 2>&1; assert_eq "$?" 66 "absent"
set -e
[ ! -e "$TMP/absent.db" ] || fail "prune created a history"

# The job: ISOTIER_HISTORY_KEEP_DAYS prunes after the reports; one that is not
# a number of days fails it (78) before anything runs, the setting named.
JOB=$ISOTIER_ROOT/runbook/jobs/isotier-reverify.sh
state=$TMP/state
mkdir -p "$state"
touch "$state/.sources-attempted" "$state/.sources-checked" # not this test's step
"$B" history import --db "$state/isotier.db" "$TMP/year.jsonl" >/dev/null
set +e
env -u ISOTIER_DB ISOTIER_STATE_DIR="$state" ISOTIER_BACKENDS=bwrap ISOTIER_REPORT_FORMATS=json \
  ISOTIER_HISTORY_KEEP_DAYS=30 "$JOB" >"$TMP/job.out" 2>"$TMP/job.err"
rc=$?
set -e
[ "$rc" -le 2 ] || fail "the job with a retention exited $rc: $(cat "$TMP/job.err")"
assert_eq "$(json_get "$state/last-run.json" prune)" 0 "last-run.json's prune"
assert_eq "$(sql "$state/isotier.db" "SELECT count(*) FROM observations")" 3 "the job's history after its prune"
grep -q -- "history prune --db $state/isotier.db --older-than 30" "$state/job.log" || fail "job.log has no prune step"
set +e
env -u ISOTIER_DB ISOTIER_STATE_DIR="$state" ISOTIER_BACKENDS=bwrap \
  ISOTIER_HISTORY_KEEP_DAYS="400 days" "$JOB" >/dev/null 2>"$TMP/job78.err"
rc=$?
set -e
assert_eq "$rc" 78 "ISOTIER_HISTORY_KEEP_DAYS='400 days'"
assert_contains "$(head -1 "$TMP/job78.err")" "ISOTIER_HISTORY_KEEP_DAYS: expected a number of days"

# --- PostgreSQL ----------------------------------------------------------------
rc=0
pg_start "$TMP" || rc=$?
if [ "$rc" = 77 ]; then
  echo "note: no PostgreSQL server binaries: the PostgreSQL half skipped"
else
  [ "$rc" = 0 ] || fail "could not start a PostgreSQL server"
  check_target pg "$PG_URI" pg_sql
  set +e
  "$B" history prune --db "$PG_URI" --older-than 30 --vacuum >/dev/null 2>&1
  assert_eq "$?" 64 "--vacuum on PostgreSQL"
  set -e
  "$B" history import --db "$PG_URI" "$TMP/year.jsonl" >/dev/null
  before=$(pg_sql "SELECT count(*) FROM observations")
  # A read-only database: 74, unchanged.
  pg_psql postgres "ALTER DATABASE isotier SET default_transaction_read_only = on" >/dev/null
  set +e
  "$B" history prune --db "$PG_URI" --older-than 30 >"$TMP/pgro.out" 2>&1
  rc=$?
  set -e
  pg_psql postgres "ALTER DATABASE isotier SET default_transaction_read_only = off" >/dev/null
  assert_eq "$rc" 74 "a read-only PostgreSQL history ($(cat "$TMP/pgro.out"))"
  assert_eq "$(pg_sql "SELECT count(*) FROM observations")" "$before" "the read-only PostgreSQL history"
  # A lock another session holds: 75, unchanged.
  pg_psql isotier "BEGIN; LOCK TABLE observations IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(6); COMMIT" >/dev/null 2>&1 &
  locker=$!
  for _ in $(seq 50); do
    [ "$(pg_sql "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND relation = 'observations'::regclass")" = 1 ] && break
    sleep 0.1
  done
  set +e
  "$B" history prune --db "$PG_URI" --older-than 30 --busy-timeout 300 >"$TMP/pglock.out" 2>&1
  rc=$?
  set -e
  pg_sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(6)%' AND pid <> pg_backend_pid()" >/dev/null
  wait "$locker" 2>/dev/null || true
  assert_eq "$rc" 75 "a locked PostgreSQL history ($(cat "$TMP/pglock.out"))"
  assert_eq "$(pg_sql "SELECT count(*) FROM observations")" "$before" "the locked PostgreSQL history"
fi
echo "ok: history prune keeps what the gate reads, on SQLite and PostgreSQL; a failing prune changes nothing"
