#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# fleet_roles.sh - a fleet's PostgreSQL history where no host speaks for
# another (runbook/fleet.md, reference/history/history_fleet_init.c, statement.c),
# on a real server (tests/pg.sh) with two host identities: `history init`
# as the owner sets up one role per runner host under row-level security and
# a read-only auditor. Runner A's honest signed verification grants; runner
# B cannot insert or update rows naming A (a cross-host CONTRADICTED is
# refused by the server); what only the owner (or a stolen superuser) could
# write - a forged row, B's signed statement copied onto a row naming A, an
# import claiming "attested": true, an edited envelope, an unsigned
# CONTRADICTED - each fails to grant (78) naming the signature check.
. "$ISOTIER_ROOT/tests/lib.sh"
. "$ISOTIER_ROOT/tests/pg.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
machine_a=$(cat /etc/machine-id 2>/dev/null || cat /var/lib/dbus/machine-id 2>/dev/null || true)
[[ $machine_a =~ ^[0-9a-f]{32}$ ]] || skip "no machine id on this host"
machine_b=fedcba9876543210fedcba9876543210
[ "$machine_b" != "$machine_a" ] || machine_b=0123456789abcdef0123456789abcdef
trap 'pg_stop; rm -rf "$TMP"' EXIT
rc=0
pg_start "$TMP" || rc=$?
[ "$rc" = 77 ] && skip "no PostgreSQL server binaries (apt-get install postgresql)"
[ "$rc" = 0 ] || fail "could not start a PostgreSQL server"
B=$ISOTIER_BIN
uri() { echo "postgresql://$1@/isotier?host=$PG_SOCKDIR&port=$PG_PORT"; }
as() { # as ROLE SQL: psql as ROLE; prints rows, fails on an error
  local psql=psql
  [ -x "$PG_BIN/psql" ] && psql=$PG_BIN/psql
  timeout 30 "$psql" -qAt -v ON_ERROR_STOP=1 -h "$PG_SOCKDIR" -p "$PG_PORT" -U "$1" -d isotier -c "$2"
}

# 1. The owner's bootstrap.
pg_sql "CREATE ROLE fleet_owner LOGIN; CREATE ROLE runner_a LOGIN; CREATE ROLE runner_b LOGIN;
        CREATE ROLE auditor LOGIN; ALTER DATABASE isotier OWNER TO fleet_owner;
        ALTER SCHEMA public OWNER TO fleet_owner" >/dev/null
"$B" history init --db "$(uri fleet_owner)" --runner "runner_a=$machine_a" \
  --runner "runner_b=$machine_b" --auditor auditor >"$TMP/init" 2>&1 || fail "history init: $(cat "$TMP/init")"
assert_contains "$(cat "$TMP/init")" "2 runners, 1 auditor; row-level security on the host id"
"$B" history init --db "$(uri fleet_owner)" --runner "runner_a=$machine_a" >/dev/null 2>&1 || fail "init is idempotent"
set +e
"$B" history init --db "$(uri fleet_owner)" --runner "Bad-Role=$machine_a" >/dev/null 2>"$TMP/err"; r=$?
"$B" history init --db "$TMP/file.db" >/dev/null 2>&1; f=$?
set -e
assert_eq "$r" 64 "a role name not in form"
assert_eq "$f" 64 "an SQLite file"

# 2. Runner A verifies honestly (signed with A's key) and its gate grants.
export ISOTIER_IDENTITY_DIR=$TMP/id-a
a_uri=$(uri runner_a)
"$B" verify --backend bwrap --db "$a_uri" >"$TMP/v" 2>&1 || fail "runner A's verify: $(cat "$TMP/v")"
grep -Eq '^bwrap .* CONFIRMED' "$TMP/v" || fail "bwrap not CONFIRMED: $(cat "$TMP/v")"
gate() {
  set +e
  "$B" run --db "$a_uri" --require-isolation CONTAINER --require-verified 7 --backend bwrap -- true \
    >/dev/null 2>"$TMP/gate.err"
  echo $?
  set -e
}
assert_eq "$(gate)" 0 "A's honest signed row grants: $(cat "$TMP/gate.err")"
assert_eq "$(pg_sql "SELECT count(*) FROM observations WHERE host_id = '$machine_a' AND statement IS NOT NULL")" 1 "signed"

# 3. Runner B cannot write A's rows: a cross-host CONTRADICTED, a forged
# CONFIRMED, a run naming A, or A's run ended by B.
cols="run_id, observed_at, backend, observed_tier, verdict, reason, host_id, ceiling_tier, uuid"
run_a=$(pg_sql "SELECT id FROM runs WHERE host_id = '$machine_a' LIMIT 1")
for v in CONTRADICTED CONFIRMED; do
  as runner_b "INSERT INTO observations($cols) VALUES ($run_a, to_char(now() at time zone 'utc', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
     'bwrap', 'CONTAINER', '$v', 'by B', '$machine_a', 'CONTAINER', gen_random_uuid()::text)" >/dev/null 2>"$TMP/b.err" &&
    fail "runner B inserted a $v row naming A"
  assert_contains "$(cat "$TMP/b.err")" "row-level security"
done
as runner_b "INSERT INTO runs(started_at, tool_version, command, host_id, uuid) VALUES ('2026-01-01T00:00:00Z', 'x', 'verify', '$machine_a', gen_random_uuid()::text)" \
  >/dev/null 2>"$TMP/b.err" && fail "runner B inserted a run naming A"
assert_eq "$(as runner_b "UPDATE runs SET status = 'interrupted' WHERE host_id = '$machine_a' RETURNING id" | wc -l)" 0 "B updates none of A's runs"
assert_eq "$(pg_sql "SELECT count(*) FROM runs WHERE host_id = '$machine_a' AND status = 'interrupted'")" 0 "A's runs untouched"
# B may write its own.
as runner_b "INSERT INTO runs(started_at, tool_version, command, host_id, uuid) VALUES ('2026-01-01T00:00:00Z', 'x', 'verify', '$machine_b', gen_random_uuid()::text)" \
  >/dev/null || fail "runner B's own run"
assert_eq "$(gate)" 0 "A still grants after B's attempts"

# 4. The auditor reads, never writes.
assert_eq "$(as auditor "SELECT count(*) FROM observations")" 1 "the auditor reads"
as auditor "DELETE FROM observations" >/dev/null 2>&1 && fail "the auditor deleted"
as auditor "INSERT INTO audit_events(at, event) VALUES ('x', 'y')" >/dev/null 2>&1 && fail "the auditor inserted"

# 5. What only the owner could write still does not grant: a forged row (no statement).
ocols="run_id, observed_at, backend, provider_id, claimed_tier, claimed_mechanism, observed_tier, verdict, reason, kernel_relation, ceiling_tier, host_id, claim_digest"
forge() { # forge STATEMENT-SQL [VERDICT]: a copy of A's row, newest, with that statement
  pg_sql "INSERT INTO observations($ocols, uuid, statement) SELECT $ocols, gen_random_uuid()::text, $1
          FROM observations WHERE host_id = '$machine_a' AND statement IS NOT NULL ORDER BY id LIMIT 1" >/dev/null
}
drop_forged() { pg_sql "DELETE FROM observations WHERE id > (SELECT min(id) FROM observations WHERE host_id = '$machine_a')" >/dev/null; }
forge NULL
assert_eq "$(gate)" 78 "a forged row"
assert_contains "$(cat "$TMP/gate.err")" "signature check: the row has no signed statement"
drop_forged

# 6. A copied row: host B's signed statement (B's own key) on a row naming A.
ISOTIER_IDENTITY_DIR=$TMP/id-b "$B" verify --backend bwrap --db "$TMP/b.db" >/dev/null 2>&1 || fail "host B's verify"
stmt_b=$(sqlite3 "$TMP/b.db" "SELECT statement FROM observations LIMIT 1")
forge "'${stmt_b//\'/\'\'}'"
assert_eq "$(gate)" 78 "B's statement copied onto a row naming A"
assert_contains "$(cat "$TMP/gate.err")" "signature check: signed by no trusted key"
drop_forged

# 7. An edited envelope: A's own, one byte of its payload changed.
stmt_a=$(pg_sql "SELECT statement FROM observations WHERE host_id = '$machine_a' ORDER BY id LIMIT 1")
edited=$(python3 -c 'import base64,json,sys; e=json.loads(sys.argv[1]); b=base64.b64decode(e["payload"]).replace(b"\"reason\":\"claimed", b"\"reason\":\"Claimed",1); e["payload"]=base64.b64encode(b).decode(); print(json.dumps(e))' "$stmt_a")
pg_sql "UPDATE observations SET statement = '${edited//\'/\'\'}' WHERE host_id = '$machine_a'" >/dev/null
assert_eq "$(gate)" 78 "an edited envelope"
assert_contains "$(cat "$TMP/gate.err")" "signature check: no signature verifies"
pg_sql "UPDATE observations SET statement = '${stmt_a//\'/\'\'}' WHERE host_id = '$machine_a'" >/dev/null
assert_eq "$(gate)" 0 "A's own envelope restored grants again"

# 8. An unsigned CONTRADICTED naming A (the owner's): it lowers (fail closed) and says why it is not counted.
pg_sql "INSERT INTO observations($ocols, uuid) SELECT run_id, observed_at, backend, provider_id, claimed_tier,
        claimed_mechanism, observed_tier, 'CONTRADICTED', 'forged', kernel_relation, ceiling_tier, host_id, claim_digest,
        gen_random_uuid()::text FROM observations WHERE host_id = '$machine_a' LIMIT 1" >/dev/null
assert_eq "$(gate)" 78 "an unsigned CONTRADICTED naming A"
assert_contains "$(cat "$TMP/gate.err")" "not counted: signature check"
drop_forged

# 9. An import claiming hardware attestation: "attested": true, no verifiable evidence, no statement.
"$B" history export --db "$a_uri" >"$TMP/a.jsonl" || fail "export"
python3 - "$TMP/a.jsonl" "$TMP/attested.jsonl" <<'PY'
import json, sys, uuid
out = []
runs = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "run":
        runs[o["uuid"]] = str(uuid.uuid4()); o["uuid"] = runs[o["uuid"]]
    if o["type"] == "observation":
        o["uuid"], o["run_uuid"] = str(uuid.uuid4()), runs[o["run_uuid"]]
        o["layers_json"] = json.dumps({"attested": True, "layers": json.loads(o["layers_json"] or "[]")})
        o["statement"] = None
    if o["type"] == "audit_event":
        continue
    out.append(json.dumps(o))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
"$B" history import --db "$(uri fleet_owner)" "$TMP/attested.jsonl" >"$TMP/imp" 2>&1 || fail "owner's import: $(cat "$TMP/imp")"
assert_eq "$(gate)" 78 "an imported attested: true row"
assert_contains "$(cat "$TMP/gate.err")" "signature check"
echo "fleet roles: row-level security per host, and only signed rows grant"
