#!/usr/bin/env bash
# isotier-test: slow; uses: challenge fhang
# SPDX-License-Identifier: Apache-2.0
# A fleet's history in PostgreSQL (issue #26), against a real server this
# test starts (tests/pg.sh: initdb in $TMP, a Unix socket only, stopped by
# the trap): the same commands as with a file (verify, history, show,
# --sources, report); 8 concurrent writers, each observation once, every run
# complete; a SIGKILLed writer leaves no partial run; a password in the URI
# never shows, not even in errors; the server stopped mid-run is exit 74.
. "$ISOTIER_ROOT/tests/lib.sh"
. "$ISOTIER_ROOT/tests/pg.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
faults=$ISOTIER_ROOT/$BUILD/tests
trap 'pg_stop; rm -rf "$TMP"' EXIT
rc=0
pg_start "$TMP" || rc=$?
[ "$rc" = 77 ] && skip "no PostgreSQL server binaries (apt-get install postgresql)"
[ "$rc" = 0 ] || fail "could not start a PostgreSQL server"
U=$PG_URI
B=$ISOTIER_BIN

# --- the same commands as with a file ------------------------------------------
set +e
ISOTIER_PROBE=$faults/fault-probe-none "$B" verify --backend bwrap --db "$U" >"$TMP/o1" 2>&1; rc=$?
set -e
assert_eq "$rc" 1 "CONTRADICTED exits 1 ($(cat "$TMP/o1"))"
"$B" verify --backend bwrap --db "$U" >"$TMP/o2" 2>&1 || fail "real probe in bwrap: $(cat "$TMP/o2")"
"$B" verify --backend host --db "$U" >"$TMP/o3" 2>&1 || fail "host: $(cat "$TMP/o3")"
assert_eq "$(pg_sql "SELECT max(version) FROM isotier_schema")" 11 "schema version as SQLite's"
assert_eq "$(pg_sql "SELECT count(*) FROM observations")" 3 "three observations"
# Schema 8: the sandbox's own wall and CPU time (bwrap and host are isotier's
# children: both known), the run's --jobs (the default, 4) and, one backend
# per run, 1 at once.
assert_eq "$(pg_sql "SELECT count(*) FROM observations WHERE sandbox_wall_ms >= 0 AND sandbox_cpu_ms >= 0 AND sandbox_wall_ms <= duration_ms AND jobs = 4 AND overlap = 1")" 3 "sandbox times, jobs and overlap stored"
"$B" history --db "$U" >"$TMP/h" || fail "history"
awk 'NR > 1 { print $4 }' "$TMP/h" | tr '\n' ' ' | grep -qx 'host bwrap bwrap ' || fail "newest first: $(cat "$TMP/h")"
"$B" history --db "$U" --backend bwrap --limit 1 --json >"$TMP/j"
python3 - "$TMP/j" <<'EOF' || fail "history --json: $(head -c 800 "$TMP/j")"
import json, sys
d = json.load(open(sys.argv[1]))
o = d["observations"]
assert len(o) == 1 and o[0]["backend"] == "bwrap" and o[0]["verdict"] == "CONFIRMED", o
assert len(o[0]["uuid"]) == 36 and o[0]["host_id"], o[0]
assert o[0]["evidence_bytes"] > 0, o[0]
assert o[0]["jobs"] == 4 and o[0]["overlap"] == 1 and isinstance(o[0]["sandbox_cpu_ms"], int), o[0]
EOF
id=$(pg_sql "SELECT min(id) FROM observations WHERE backend = 'bwrap'")
"$B" history show "$id" --db "$U" --json >"$TMP/show" || fail "history show"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verdict"]=="CONTRADICTED" and d["probe"] is not None, d' "$TMP/show" ||
  fail "show: $(head -c 600 "$TMP/show")"
"$B" history --sources --db "$U" >"$TMP/src" || fail "history --sources"
"$B" report --db "$U" --format json --no-catalogue --out "$TMP/r.json" || fail "report over PostgreSQL"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["observations"])==3, len(d["observations"])' "$TMP/r.json" ||
  fail "report: $(head -c 600 "$TMP/r.json")"
# The report's other tables over PostgreSQL (report_tables.c): counted, a
# source's newest check of its own quote (not a newer one of another quote),
# the newest 500 of 600 refusals held, and JSON carrying every row in order.
cat=$ISOTIER_ROOT/catalogue/providers
read -r prov url quote < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["sources"][0]; print(d["id"], s["url"], s["quote"].replace("\x27", "\x27\x27"))' "$cat/$(ls "$cat" | head -n 1)")
run=$(pg_sql "SELECT min(id) FROM runs")
pg_sql "INSERT INTO source_checks(run_id, checked_at, provider_id, url, quote, status, change) VALUES
 ($run, '2026-01-01T00:00:00Z', '$prov', '$url', '$quote', 'PRESENT', 'none'),
 ($run, '2026-01-03T00:00:00Z', '$prov', '$url', '$quote', 'CHANGED', 'passage_changed'),
 ($run, '2026-01-04T00:00:00Z', '$prov', '$url', 'another quote', 'GONE', NULL)" >/dev/null
pg_sql "INSERT INTO audit_events(at, event, backend, decision, reason, detail_json)
 SELECT to_char(timestamp '2026-01-01' + i * interval '1 minute', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
 CASE WHEN i % 2 = 0 THEN 'refuse' ELSE 'create' END, 'bwrap',
 CASE WHEN i % 2 = 0 THEN 'refused' ELSE 'allowed' END, 'r' || i, '{}' FROM generate_series(0, 1199) AS i" >/dev/null
"$B" report --db "$U" --format json --catalogue "$cat" --out "$TMP/t.json" || fail "report with checks over PostgreSQL"
python3 - "$TMP/t.json" "$prov" "$url" <<'EOF' || fail "report's checks and refusals over PostgreSQL: $(head -c 600 "$TMP/t.json")"
import json, sys
d, prov, url = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
assert d["database"]["source_checks"] == 3 and len(d["source_checks"]) == 3, d["database"]
assert [c["status"] for c in d["source_checks"]] == ["PRESENT", "CHANGED", "GONE"], d["source_checks"]
src = [s for p in d["providers"] if p["id"] == prov for s in p["sources"] if s["url"] == url][0]
assert src["latest_check"]["status"] == "CHANGED" and src["latest_check"]["change"] == "passage_changed", src
assert d["database"]["refusals"] == 600 and len(d["refusals"]) == 600, d["database"]
assert [r["reason"] for r in d["refusals"]] == ["r%d" % i for i in range(0, 1200, 2)], "refusals out of order"
EOF
"$B" report --db "$U" --format html --catalogue "$cat" --out "$TMP/t.html" || fail "html report over PostgreSQL"
grep -q '600 refusals by <code>isotier_create()</code>; newest 500 shown' "$TMP/t.html" || fail "the HTML refusals over PostgreSQL"
assert_eq "$(grep -c '<td>refused</td>' "$TMP/t.html")" 500 "the newest 500 refusals shown"
grep -q '<td>r1198</td>' "$TMP/t.html" && ! grep -q '<td>r198</td>' "$TMP/t.html" || fail "not the newest refusals shown"
# Evidence is stored once by content.
assert_eq "$(pg_sql "SELECT count(*) FROM observations WHERE evidence IS NOT NULL")" 0 "no evidence in rows"
[ "$(pg_sql "SELECT count(*) FROM evidence_blobs")" -ge 1 ] || fail "evidence stored by hash"

# --- 8 concurrent writers: every observation once, every run complete -------------
before=$(pg_sql "SELECT count(*) FROM observations")
pids=()
for i in 1 2 3 4 5 6 7 8; do
  "$B" verify --backend host --db "$U" >"$TMP/w$i" 2>&1 &
  pids+=($!)
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || fail "writer $((i + 1)): $(cat "$TMP/w$((i + 1))")"
done
assert_eq "$(pg_sql "SELECT count(*) FROM observations")" $((before + 8)) "8 writers, 8 observations"
assert_eq "$(pg_sql "SELECT count(*) FROM runs WHERE status <> 'ok'")" 0 "every run complete"
assert_eq "$(pg_sql "SELECT count(DISTINCT uuid) FROM observations")" "$(pg_sql "SELECT count(*) FROM observations")" "one uuid each"
assert_eq "$(pg_sql "SELECT count(*) FROM (SELECT run_id FROM observations GROUP BY run_id HAVING count(*) <> 1) x")" 0 "one observation per run"

# --- SIGKILL mid-run: no partial run --------------------------------------------
runs=$(pg_sql "SELECT count(*) FROM runs")
ISOTIER_PROBE=$faults/fault-probe-hang "$B" verify --backend bwrap --backend host --timeout 20 --db "$U" >"$TMP/k" 2>&1 &
kp=$!
for _ in $(seq 50); do
  [ "$(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'isotier' AND state = 'idle in transaction'")" -ge 1 ] && break
  sleep 0.1
done
kill -KILL "$kp"; wait "$kp" 2>/dev/null || true
"$B" sweep --db "$U" >/dev/null 2>&1 || true
assert_eq "$(pg_sql "SELECT count(*) FROM runs")" "$runs" "a killed writer's run is not in the history"
assert_eq "$(pg_sql "SELECT count(*) FROM observations o LEFT JOIN runs r ON r.id = o.run_id WHERE r.id IS NULL OR r.status = 'running'")" 0 "no orphan rows"

# --- a password in the URI never shows ------------------------------------------
secret=Sekr3tPassw0rdXyz
pg_sql "CREATE ROLE runner LOGIN PASSWORD '$secret'; GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO runner; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO runner" >/dev/null
sed -i 's/^local .*trust$/local all isotier_admin trust\nlocal all all scram-sha-256/' "$PG_DIR/data/pg_hba.conf"
pg_sql "SELECT pg_reload_conf()" >/dev/null
RU="postgresql://runner:$secret@/isotier?host=$PG_DIR&port=$PG_PORT"
BAD="postgresql://runner:${secret}Wrong@/isotier?host=$PG_DIR&port=$PG_PORT"
"$B" verify --backend host --db "$RU" >"$TMP/p1" 2>&1 || fail "runner with a password: $(sed "s/$secret/<pw>/g" "$TMP/p1")"
"$B" verify --backend host --db "$RU" --json >"$TMP/p2" 2>&1 || fail "runner --json"
"$B" history --db "$RU" --json >"$TMP/p3" 2>&1 || fail "history as runner"
set +e
"$B" history --db "$BAD" >"$TMP/p4" 2>&1; bad_rc=$?
ISOTIER_DB=$BAD "$B" verify --backend host >"$TMP/p5" 2>&1
"$B" report --db "$BAD" --format text --no-catalogue >"$TMP/p6" 2>&1
"$B" history --db "postgresql://runner:$secret@/nosuchdb?host=$PG_DIR&port=$PG_PORT" >"$TMP/p7" 2>&1
# sources check names its history in its summary (text and --json); one
# source on a port nothing listens on is enough to make a run.
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
mkdir -p "$TMP/cat"
python3 - "$TMP/cat/closed.json" "$closed" <<'PY'
import json, sys
json.dump({"id": "closed", "name": "Fixture closed", "kind": "remote", "tier": "UNKNOWN",
           "mechanism": "unknown", "since": "2026-01-01",
           "sources": [{"url": "http://127.0.0.1:%s/" % sys.argv[2], "quote": "a quote",
                        "publisher": "provider", "retrieved": "2026-11-30"}],
           "history": [], "notes": "history_pg fixture"}, open(sys.argv[1], "w"))
PY
NO_PROXY=127.0.0.1 no_proxy=127.0.0.1 "$B" sources check --catalogue "$TMP/cat" --db "$RU" >"$TMP/p8" 2>&1
NO_PROXY=127.0.0.1 no_proxy=127.0.0.1 "$B" sources check --catalogue "$TMP/cat" --db "$RU" --json >"$TMP/p9" 2>"$TMP/p9e"
ISOTIER_DB=$RU "$B" paths >"$TMP/p10" 2>&1
set -e
[ "$bad_rc" -ne 0 ] || fail "a wrong password was accepted"
assert_contains "$(cat "$TMP/p8")" "runner:[redacted]@" "sources check names its history, redacted"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["db"].startswith("postgresql://runner:[redacted]@"), d["db"]' "$TMP/p9" || fail "sources check --json: db not redacted: $(sed "s/$secret/<pw>/g" "$TMP/p9" | head -c 300)"
assert_contains "$(cat "$TMP/p10")" "runner:[redacted]@" "paths shows the URI redacted"
assert_contains "$(cat "$TMP/p10")" "a PostgreSQL URI" "paths: a URI is not a missing file"
for f in p1 p2 p3 p4 p5 p6 p7 p8 p9 p9e p10; do
  ! grep -q "$secret" "$TMP/$f" || fail "the password shows in $f: $(sed "s/$secret/<pw>/g" "$TMP/$f" | head -c 400)"
done
assert_contains "$(cat "$TMP/p1")" "runner:[redacted]@" "the URI is shown redacted"
assert_contains "$(cat "$TMP/p4")" "password authentication failed" "the error says why"

# --- a sandbox's bytes that are not UTF-8 still make their row -------------------------
# PostgreSQL refuses text that is not UTF-8, and with it the whole row: a hostile sandbox
# printing such bytes (on stderr, quoted in the reason; or as its rejected output) kept its
# observation out of the history. Stored as valid UTF-8 (U+FFFD), as in a file.
printf '#!/bin/sh\nprintf '"'"'{"schema":"x","tail":"\\377\\376 \\342\\200("}'"'"'\n' >"$TMP/raw-probe"
chmod +x "$TMP/raw-probe"
before=$(pg_sql "SELECT count(*) FROM observations WHERE backend = 'host'")
for p in "$faults/fault-probe-badutf8" "$TMP/raw-probe"; do
  set +e
  ISOTIER_PROBE=$p "$B" verify --backend host --db "$U" >"$TMP/u8" 2>&1
  set -e
  ! grep -q "NOT stored" "$TMP/u8" || fail "$(basename "$p"): the row was kept out: $(head -c 600 "$TMP/u8")"
done
assert_eq "$(pg_sql "SELECT count(*) FROM observations WHERE backend = 'host'")" $((before + 2)) "both hostile rows stored"
assert_eq "$(pg_sql "SELECT count(*) FROM observations WHERE backend = 'host' AND verdict = 'INCONCLUSIVE' AND (reason LIKE '%'||chr(65533)||'%' OR probe_json LIKE '%'||chr(65533)||'%')")" 2 \
  "the invalid bytes stored as U+FFFD, the verdict INCONCLUSIVE"

# --- the server stopped mid-run: exit 74, a clear message --------------------------
ISOTIER_PROBE=$faults/fault-probe-hang "$B" verify --backend bwrap --timeout 3 --db "$U" >"$TMP/l" 2>&1 &
lp=$!
sleep 1
pg_stop
set +e
wait "$lp"; lrc=$?
set -e
assert_eq "$lrc" 74 "a lost connection exits 74 ($(cat "$TMP/l"))"
assert_contains "$(cat "$TMP/l")" "lost the connection to the PostgreSQL history" "says the connection was lost"
echo "history in PostgreSQL: commands, 8 writers, SIGKILL, redaction, lost connection"
