#!/usr/bin/env bash
# A fleet's histories merged (issue #26): two SQLite histories from different
# hosts (different machine ids) and an export, imported twice into one
# PostgreSQL history (a real server, tests/pg.sh) and into an SQLite file:
# no duplicates; the merged report names both hosts and raises the
# disagreement alert (the hosts saw bwrap at different tiers); `history
# --by-host` shows what each host last observed; --host filters.
. "$ISOTIER_ROOT/tests/lib.sh"
. "$ISOTIER_ROOT/tests/pg.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
trap 'pg_stop; rm -rf "$TMP"' EXIT
rc=0
pg_start "$TMP" || rc=$?
[ "$rc" = 77 ] && skip "no PostgreSQL server binaries (apt-get install postgresql)"
[ "$rc" = 0 ] || fail "could not start a PostgreSQL server"
B=$ISOTIER_BIN

# Host A: this machine's own history.
"$B" verify --backend bwrap --db "$TMP/a.db" >"$TMP/va" 2>&1 || fail "verify a: $(cat "$TMP/va")"
"$B" verify --backend host --db "$TMP/a.db" >>"$TMP/va" 2>&1 || fail "verify host: $(cat "$TMP/va")"
# Host B: the same runs as another machine recorded them, where bwrap showed
# no boundary (new ids, another machine id and name).
cp "$TMP/a.db" "$TMP/b.db"
python3 - "$TMP/b.db" <<'PY'
import sqlite3, sys, uuid
db = sqlite3.connect(sys.argv[1])
mid = "b" * 32
for (i,) in db.execute("SELECT id FROM runs").fetchall():
    db.execute("UPDATE runs SET uuid = ?, host = 'fleet-b', host_id = ? WHERE id = ?", (str(uuid.uuid4()), mid, i))
for (i,) in db.execute("SELECT id FROM observations").fetchall():
    db.execute("UPDATE observations SET uuid = ?, host_id = ? WHERE id = ?", (str(uuid.uuid4()), mid, i))
db.execute("UPDATE observations SET observed_tier = 'NONE', verdict = 'CONTRADICTED', ceiling_tier = 'NONE' WHERE backend = 'bwrap'")
db.commit()
PY
"$B" history export --db "$TMP/b.db" >"$TMP/b.jsonl" || fail "export b"
head -1 "$TMP/b.jsonl" | grep -q '"schema":"isotier.history.export/1"' || fail "export header: $(head -c 200 "$TMP/b.jsonl")"
assert_eq "$(grep -c '"type":"observation"' "$TMP/b.jsonl")" 2 "two observations exported"

for target in "$PG_URI" "$TMP/merged.db"; do
  for pass in 1 2; do
    "$B" history import --db "$target" "$TMP/a.db" "$TMP/b.jsonl" "$TMP/b.db" >"$TMP/imp$pass" 2>&1 ||
      fail "import pass $pass into $target: $(cat "$TMP/imp$pass")"
  done
  assert_contains "$(cat "$TMP/imp1")" "b.jsonl: 2 runs, 2 observations added" "first import adds"
  assert_contains "$(cat "$TMP/imp2")" "a.db: 0 runs, 0 observations added; 4 already present" "second import adds nothing"
  "$B" history --db "$target" --limit 0 --json >"$TMP/all.json" || fail "history"
  python3 - "$TMP/all.json" <<'PY' || fail "merged history: $(head -c 600 "$TMP/all.json")"
import json, sys
o = json.load(open(sys.argv[1]))["observations"]
assert len(o) == 4, len(o)
assert len({x["uuid"] for x in o}) == 4
assert {x["host_id"] for x in o} >= {"b" * 32}, o
PY
  "$B" history --db "$target" --host fleet-b --json >"$TMP/hb.json"
  python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["observations"]; assert len(o)==2 and all(x["host"]=="fleet-b" for x in o), o' "$TMP/hb.json" ||
    fail "--host: $(head -c 400 "$TMP/hb.json")"
  "$B" history --db "$target" --by-host >"$TMP/byhost" || fail "--by-host"
  assert_eq "$(grep -c ' bwrap ' "$TMP/byhost")" 2 "one bwrap row per host ($(cat "$TMP/byhost"))"
  assert_contains "$(cat "$TMP/byhost")" "fleet-b"
  "$B" report --db "$target" --no-catalogue --format json --out "$TMP/r.json" || fail "report"
  python3 - "$TMP/r.json" <<'PY' || fail "merged report: $(head -c 800 "$TMP/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))
alerts = [a for a in r["attention"] if a["kind"] == "host_disagreement"]
assert len(alerts) == 1 and alerts[0]["backend"] == "bwrap" and alerts[0]["failing"], r["attention"]
assert "fleet-b" in alerts[0]["detail"] and "NONE" in alerts[0]["detail"] and "CONTAINER" in alerts[0]["detail"], alerts
hosts = {o["provenance"]["host"] for o in r["observations"]}
assert "fleet-b" in hosts and len(hosts) == 2, hosts
# The host x backend matrix: what each host last proved of bwrap.
cells = {c["host"]: c["observed_tier"] for c in r["hosts"] if c["backend"] == "bwrap"}
assert len(cells) == 2 and cells["fleet-b"] == "NONE" and "CONTAINER" in cells.values(), r["hosts"]
PY
  "$B" report --db "$target" --no-catalogue --host fleet-b --format json --out "$TMP/rb.json" || fail "report --host"
  python3 - "$TMP/rb.json" <<'PY' || fail "report --host: $(head -c 600 "$TMP/rb.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert {o["provenance"]["host"] for o in r["observations"]} == {"fleet-b"}, r["observations"]
assert len(r["observations"]) == 2
assert not [a for a in r["attention"] if a["kind"] == "host_disagreement"], r["attention"]
PY
done
# The same histories one host at a time raise nothing.
"$B" report --db "$TMP/a.db" --no-catalogue --format json --out "$TMP/ra.json"
python3 -c 'import json,sys; assert not [a for a in json.load(open(sys.argv[1]))["attention"] if a["kind"]=="host_disagreement"]' "$TMP/ra.json" ||
  fail "one host alone raised a disagreement"
# A tampered export is refused whole: evidence that does not match its hash.
sed 's/"content_base64":"./"content_base64":"A/' "$TMP/b.jsonl" >"$TMP/bad.jsonl"
set +e
"$B" history import --db "$TMP/fresh.db" "$TMP/bad.jsonl" >"$TMP/bad" 2>&1; brc=$?
set -e
[ "$brc" -ne 0 ] || fail "a tampered export was imported"
assert_contains "$(cat "$TMP/bad")" "does not match its sha256"
echo "fleet import: two hosts and an export, twice, no duplicates; disagreement alert"
