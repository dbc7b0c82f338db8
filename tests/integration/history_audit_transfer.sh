#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# history_audit_transfer.sh - the audit trail travels (schema 11,
# reference/history/history_transfer_audit.c): refusals recorded by real `isotier run`
# calls (no sandbox is started: the gate refuses first) carry the deciding
# host's machine id and a uuid; `history export` writes every one, `import`
# into a new SQLite file and `migrate` into a real PostgreSQL (tests/pg.sh)
# keep every one (count equal, same uuids), a second import adds none, and an
# event from the future or without a time refuses the file. The observations'
# signed statements travel verbatim.
. "$ISOTIER_ROOT/tests/lib.sh"
. "$ISOTIER_ROOT/tests/pg.sh"

command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
export ISOTIER_IDENTITY_DIR=$TMP/identity
trap 'pg_stop; rm -rf "$TMP"' EXIT
rc=0
pg_start "$TMP" || rc=$?
[ "$rc" = 77 ] && skip "no PostgreSQL server binaries (apt-get install postgresql)"
[ "$rc" = 0 ] || fail "could not start a PostgreSQL server"

db=$TMP/src.db
n=25
for i in $(seq "$n"); do
  set +e
  "$ISOTIER_BIN" run --db "$db" --new-db --backend bwrap --require-isolation MICROVM -- true 2>/dev/null
  r=$?
  set -e
  assert_eq "$r" 78 "refusal $i"
done
assert_eq "$(sql "$db" "SELECT count(*), count(DISTINCT uuid), count(host_id) FROM audit_events")" "$n|$n|$n" "each event with a uuid and a host"
machine_id=$(cat /etc/machine-id 2>/dev/null || true)
[ -z "$machine_id" ] || assert_eq "$(sql "$db" "SELECT DISTINCT host_id FROM audit_events")" "$machine_id" "the deciding host"
# An event written without a uuid (by hand) travels too, once.
sql "$db" "INSERT INTO audit_events(at, event, decision, reason) VALUES ('2026-01-01T00:00:00Z', 'refuse', 'refuse', 'by hand')"
total=$((n + 1))

"$ISOTIER_BIN" history export --db "$db" >"$TMP/export.jsonl" || fail "export"
assert_eq "$(grep -c '"type":"audit_event"' "$TMP/export.jsonl")" "$total" "every event exported"

# import into a new SQLite file, twice
"$ISOTIER_BIN" history import --db "$TMP/copy.db" "$TMP/export.jsonl" >"$TMP/imp1" || fail "import: $(cat "$TMP/imp1")"
assert_contains "$(cat "$TMP/imp1")" "$total audit events added; 0 already present"
"$ISOTIER_BIN" history import --db "$TMP/copy.db" "$TMP/export.jsonl" >"$TMP/imp2" || fail "second import"
assert_contains "$(cat "$TMP/imp2")" "0 audit events added; $total already present"
assert_eq "$(sql "$TMP/copy.db" "SELECT count(*) FROM audit_events")" "$total" "import keeps every audit event"
uuids() { sql "$1" "SELECT group_concat(uuid, ',') FROM (SELECT uuid FROM audit_events WHERE coalesce(reason, '') <> 'by hand' ORDER BY uuid)"; }
assert_eq "$(uuids "$TMP/copy.db")" "$(uuids "$db")" "the same uuids"
assert_eq "$(sql "$TMP/copy.db" "SELECT count(uuid) FROM audit_events WHERE reason = 'by hand'")" 1 "the hand-written event, with a derived uuid"

# migrate the SQLite file into PostgreSQL: every event, every host id
"$ISOTIER_BIN" history migrate --from "$db" --to "$PG_URI" >"$TMP/mig" 2>&1 || fail "migrate: $(cat "$TMP/mig")"
assert_eq "$(pg_sql "SELECT count(*) FROM audit_events")" "$total" "migrate keeps every audit event"
assert_eq "$(pg_sql "SELECT count(host_id) FROM audit_events")" "$n" "and their hosts"
"$ISOTIER_BIN" history migrate --from "$db" --to "$PG_URI" >/dev/null 2>&1 || fail "second migrate"
assert_eq "$(pg_sql "SELECT count(*) FROM audit_events")" "$total" "a second migrate adds none"
# and back out of PostgreSQL: the same count
"$ISOTIER_BIN" history export --db "$PG_URI" >"$TMP/pg.jsonl" || fail "export from PostgreSQL"
assert_eq "$(grep -c '"type":"audit_event"' "$TMP/pg.jsonl")" "$total" "PostgreSQL's export"

# Hostile events refuse the whole file (65), nothing added.
head -1 "$TMP/export.jsonl" >"$TMP/future.jsonl"
echo '{"type":"audit_event","uuid":"11111111-2222-4333-8444-555555555555","at":"2099-01-01T00:00:00Z","event":"refuse"}' >>"$TMP/future.jsonl"
set +e
"$ISOTIER_BIN" history import --db "$TMP/h.db" "$TMP/future.jsonl" >/dev/null 2>"$TMP/err"; r=$?
set -e
assert_eq "$r" 65 "an event from the future"
assert_contains "$(cat "$TMP/err")" "field 'at'"
head -1 "$TMP/export.jsonl" >"$TMP/notime.jsonl"
echo '{"type":"audit_event","uuid":"11111111-2222-4333-8444-555555555555","event":"refuse"}' >>"$TMP/notime.jsonl"
set +e
"$ISOTIER_BIN" history import --db "$TMP/h.db" "$TMP/notime.jsonl" >/dev/null 2>"$TMP/err"; r=$?
set -e
assert_eq "$r" 65 "an event without a time"
echo "audit events travel: export, import and migrate keep all $total, with their hosts"
