#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
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
# A copy with what the write-ahead log beside it holds: never cp alone.
sqlite3 "$TMP/a.db" ".backup '$TMP/b.db'"
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
  # The human formats show the same matrix and the disagreement: the
  # section's heading, both hosts' bwrap cells marked DISAGREES.
  declare -A cellmark=([html]='>DISAGREES<' [md]='| \*\*DISAGREES\*\* |$' [text]=' DISAGREES$')
  for fmt in html md text; do
    "$B" report --db "$target" --no-catalogue --format "$fmt" --out "$TMP/r.$fmt" || fail "report $fmt"
    r=$(cat "$TMP/r.$fmt")
    assert_contains "$r" "Hosts sharing this history" "$fmt: the host matrix"
    assert_contains "$r" "_disagreement" "$fmt: the alert (md escapes host\\_)"
    assert_contains "$r" "fleet-b" "$fmt: host b"
    assert_contains "$r" "$(printf 'b%.0s' $(seq 32))" "$fmt: host b's machine id"
    assert_eq "$(grep -c -- "${cellmark[$fmt]}" "$TMP/r.$fmt")" 2 "$fmt: both bwrap cells marked ($r)"
  done
  grep -q '<tr class="disagrees"><td>bwrap</td><td>fleet-b</td>' "$TMP/r.html" || fail "html: fleet-b's bwrap row"
  grep -q '^| bwrap | fleet-b | b\{32\} | NONE | \*\*CONTRADICTED\*\* |' "$TMP/r.md" || fail "md: fleet-b's bwrap row: $(grep fleet-b "$TMP/r.md")"
  grep -q '^  bwrap on fleet-b (b\{32\}): NONE CONTRADICTED #[0-9]* .* DISAGREES$' "$TMP/r.text" || fail "text: fleet-b's bwrap line: $(grep fleet-b "$TMP/r.text")"
  "$B" report --db "$target" --no-catalogue --host fleet-b --format json --out "$TMP/rb.json" || fail "report --host"
  python3 - "$TMP/rb.json" <<'PY' || fail "report --host: $(head -c 600 "$TMP/rb.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert {o["provenance"]["host"] for o in r["observations"]} == {"fleet-b"}, r["observations"]
assert len(r["observations"]) == 2
assert not [a for a in r["attention"] if a["kind"] == "host_disagreement"], r["attention"]
PY
done
# The same histories one host at a time raise nothing, and show no host
# matrix (one host's would repeat the tier matrix).
"$B" report --db "$TMP/a.db" --no-catalogue --format json --out "$TMP/ra.json"
python3 -c 'import json,sys; assert not [a for a in json.load(open(sys.argv[1]))["attention"] if a["kind"]=="host_disagreement"]' "$TMP/ra.json" ||
  fail "one host alone raised a disagreement"
for fmt in html md text; do
  "$B" report --db "$TMP/a.db" --no-catalogue --format "$fmt" --out "$TMP/ra.$fmt" || fail "report a $fmt"
  ! grep -q "Hosts sharing this history" "$TMP/ra.$fmt" || fail "$fmt: a host matrix for one host"
done
# A host name is the database's, hostile: markup and terminal controls in it
# are escaped in every format (the host x backend matrix shows it).
sqlite3 "$TMP/merged.db" ".backup '$TMP/hostile.db'"
sqlite3 "$TMP/hostile.db" "UPDATE runs SET host = '<b>x</b>|*'||char(27)||'[31m' WHERE host = 'fleet-b'"
for fmt in html md text; do
  "$B" report --db "$TMP/hostile.db" --no-catalogue --format "$fmt" --out "$TMP/h.$fmt" || fail "hostile $fmt"
  ! grep -q $'\e' "$TMP/h.$fmt" || fail "$fmt: a raw escape character"
done
assert_contains "$(cat "$TMP/h.html")" '<td>&lt;b&gt;x&lt;/b&gt;|*\x1b[31m</td>' "html: the host name escaped"
! grep -q '<b>x' "$TMP/h.html" "$TMP/h.md" || fail "markup from a host name passed through"
assert_contains "$(cat "$TMP/h.text")" '  bwrap on <b>x</b>|*\x1b[31m (' "text: the host name made visible"
assert_contains "$(cat "$TMP/h.md")" '| bwrap | &lt;b&gt;x&lt;/b&gt;\|\*\\x1b\[31m |' "md: the host name escaped"
# An import can only lower what this host's gate grants: a local CONTRADICTED,
# then an import of an old CONFIRMED naming this very machine (machine ids are
# no secret; the file's run even calls itself a verify) and a migrate of it:
# bwrap stays UNKNOWN until this host verifies it again.
machine_id=$(cat /etc/machine-id 2>/dev/null || cat /var/lib/dbus/machine-id 2>/dev/null || true)
faults=$ISOTIER_ROOT/$BUILD/tests
if [[ $machine_id =~ ^[0-9a-f]{32}$ ]]; then
  [ -x "$faults/fault-probe-none" ] || fail "fault probes not built ($faults)"
  "$B" history export --db "$TMP/a.db" >"$TMP/a.jsonl" || fail "export a"
  python3 - "$TMP/a.jsonl" "$TMP/old.jsonl" "$machine_id" <<'PY' || fail "crafting the old proof"
import json, sys, uuid
runs, out = {}, []
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "run":
        runs[o["uuid"]] = str(uuid.uuid4())
        o["uuid"], o["started_at"], o["command"] = runs[o["uuid"]], "2026-01-01T00:00:00Z", "verify"
    elif o["type"] == "observation":
        if o["backend"] != "bwrap":
            continue
        assert o["verdict"] == "CONFIRMED" and o["host_id"] == sys.argv[3], o
        o["uuid"], o["run_uuid"], o["observed_at"] = str(uuid.uuid4()), runs[o["run_uuid"]], "2026-01-01T00:00:00Z"
    out.append(json.dumps(o))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
  pg_psql postgres "CREATE DATABASE gate" >/dev/null
  gate_uri=${PG_URI/\/isotier\?/\/gate?}
  for target in "$gate_uri" "$TMP/gate.db"; do
    set +e
    ISOTIER_PROBE=$faults/fault-probe-none "$B" verify --backend bwrap --db "$target" >"$TMP/g1" 2>&1; grc=$?
    set -e
    assert_eq "$grc" 1 "a local CONTRADICTED ($(cat "$TMP/g1"))"
    resolved() {
      "$B" backends --db "$1" --json >"$TMP/gb.json" || fail "backends: $(cat "$TMP/gb.json")"
      python3 -c 'import json,sys; print([b for b in json.load(open(sys.argv[1])) if b["backend"]=="bwrap"][0]["resolved_tier"])' "$TMP/gb.json"
    }
    assert_eq "$(resolved "$target")" UNKNOWN "the contradiction denies"
    "$B" history import --db "$target" "$TMP/old.jsonl" >"$TMP/g2" 2>&1 || fail "import old proof: $(cat "$TMP/g2")"
    assert_contains "$(cat "$TMP/g2")" "1 observation added"
    assert_eq "$(resolved "$target")" UNKNOWN "an imported CONFIRMED naming this host does not clear it"
    set +e
    "$B" run --db "$target" --require-isolation CONTAINER --require-verified 7 --backend bwrap -- true >"$TMP/g3" 2>&1; grc=$?
    set -e
    assert_eq "$grc" 78 "run --require-verified after the import ($(cat "$TMP/g3"))"
    assert_contains "$(cat "$TMP/g3")" "CONTRADICTED"
    # The migrated host's gate needs a fresh verification of its own.
    "$B" verify --backend bwrap --db "$target" >"$TMP/g4" 2>&1 || fail "fresh verify: $(cat "$TMP/g4")"
    assert_eq "$(resolved "$target")" CONTAINER "a fresh local verification clears it"
  done
fi
# A tampered export is refused whole: evidence that does not match its hash.
sed 's/"content_base64":"./"content_base64":"A/' "$TMP/b.jsonl" >"$TMP/bad.jsonl"
set +e
"$B" history import --db "$TMP/fresh.db" "$TMP/bad.jsonl" >"$TMP/bad" 2>&1; brc=$?
set -e
[ "$brc" -ne 0 ] || fail "a tampered export was imported"
assert_contains "$(cat "$TMP/bad")" "does not match its sha256"
# An observation dated in the future would stand as its backend's latest in every report: the
# file is refused whole (65), naming the line and the field; so is a time isotier never writes.
before=$(sqlite3 "$TMP/fresh.db" "SELECT count(*) FROM observations")
for t in 2099-01-01T00:00:00Z 2026-02-30T00:00:00Z; do
  sed "0,/\"observed_at\":\"[^\"]*\"/s//\"observed_at\":\"$t\"/" "$TMP/b.jsonl" >"$TMP/when.jsonl"
  grep -q "\"observed_at\":\"$t\"" "$TMP/when.jsonl" || fail "no observed_at to change in the export"
  set +e
  "$B" history import --db "$TMP/fresh.db" "$TMP/when.jsonl" >"$TMP/when" 2>&1; wrc=$?
  set -e
  assert_eq "$wrc" 65 "an observation at $t ($(cat "$TMP/when"))"
  assert_contains "$(cat "$TMP/when")" "when.jsonl:"
  assert_contains "$(cat "$TMP/when")" "observed_at"
  assert_eq "$(sqlite3 "$TMP/fresh.db" "SELECT count(*) FROM observations")" "$before" "nothing of it imported ($t)"
done
assert_contains "$(cat "$TMP/when")" "not a UTC time as isotier writes it"
# A record of a type this isotier does not know is not skipped ("0 added"): the file is
# refused whole (65), naming the line; nothing of it lands, not even the records before it.
before=$(sqlite3 "$TMP/fresh.db" "SELECT count(*) FROM observations; SELECT count(*) FROM runs")
for rec in '{"type":"observation_v2","uuid":"x"}' '{"type":"header","schema":"isotier.history.export/1"}'; do
  # After every valid record: they were read, and are rolled back with it.
  { cat "$TMP/b.jsonl"; printf '%s\n' "$rec"; } >"$TMP/unknown.jsonl"
  last=$(wc -l <"$TMP/unknown.jsonl")
  set +e
  "$B" history import --db "$TMP/fresh.db" "$TMP/unknown.jsonl" >"$TMP/unknown" 2>&1; urc=$?
  set -e
  assert_eq "$urc" 65 "a record of an unknown type ($(cat "$TMP/unknown"))"
  assert_contains "$(cat "$TMP/unknown")" "unknown.jsonl:$last:"
  assert_contains "$(cat "$TMP/unknown")" "the file is refused whole"
  assert_eq "$(sqlite3 "$TMP/fresh.db" "SELECT count(*) FROM observations; SELECT count(*) FROM runs")" "$before" "nothing of it imported"
done
assert_contains "$(cat "$TMP/unknown")" "a second header"
# A line longer than the limit (64 MiB) is refused without reading it whole:
# a 1 GiB line (a sparse file, no disk) under an address-space limit that
# reading it whole would exceed.
printf '{"type":"header","schema":"isotier.history.export/1"}\n' >"$TMP/huge.jsonl"
truncate -s 1G "$TMP/huge.jsonl"
set +e
(ulimit -v 600000; "$B" history import --db "$TMP/huge.db" "$TMP/huge.jsonl") >"$TMP/huge" 2>&1; hrc=$?
set -e
assert_eq "$hrc" 65 "a huge line is a data error ($(head -c 300 "$TMP/huge"))"
assert_contains "$(cat "$TMP/huge")" "huge.jsonl:2: line too long"
echo "fleet import: two hosts and an export, twice, no duplicates; disagreement alert"
