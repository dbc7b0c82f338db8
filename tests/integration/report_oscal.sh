#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# report_oscal.sh - `isotier report --format oscal` is an OSCAL 1.1 assessment
# results document valid against NIST's published JSON Schema
# (tests/fixtures/oscal, validated by Debian's python3-jsonschema, not by
# isotier): one observation and one finding per backend row of a real
# history (the report fixtures' full.db), a finding "satisfied" only for a
# CONFIRMED or CONSISTENT latest observation, UUIDs that are version 5 and the
# same bytes on a second run; an empty history is a valid document too.
. "$ISOTIER_ROOT/tests/lib.sh"

python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is not installed (scripts/deps.sh)"
fix=$ISOTIER_ROOT/tests/fixtures/report
schema=$ISOTIER_ROOT/tests/fixtures/oscal/oscal_assessment-results_schema.json
db=$TMP/full.db
R=$ISOTIER_ROOT
# The report fixtures' history (report.sh's): real schema, then hostile rows.
# shellcheck disable=SC2046 # pkg-config prints several flags
cc -std=gnu11 -D_GNU_SOURCE -I"$R/include" -I"$R/reference" -o "$TMP/mkdb" "$fix/mkdb.c" \
  "$R/$BUILD/libisotier-tool.a" $(pkg-config --libs libcurl libxml-2.0 libcjson sqlite3 libpq libcrypto libgit2) -lpthread -lm
"$TMP/mkdb" "$db" </dev/null
python3 "$fix/fill.py" "$db"
report() { "$ISOTIER_BIN" report --db "$1" --no-catalogue --today 2026-12-03 --format oscal --out "$2" >/dev/null 2>"$TMP/err" || fail "report --format oscal: $(cat "$TMP/err")"; }
report "$db" "$TMP/a.json"
report "$db" "$TMP/b.json"
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "two runs differ"

validate() {
  python3 - "$schema" "$1" <<'PY'
import json, re, sys
import jsonschema
text = open(sys.argv[1]).read()
# Python's re has no \p{..}: the two classes NIST's patterns use, Unicode-aware.
text = text.replace(r"\\p{L}", r"[^\\W\\d_]").replace(r"\\p{N}", r"\\d")
schema = json.loads(text)
doc = json.load(open(sys.argv[2]))
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:10]:
    print("/".join(map(str, e.path)), e.message[:300])
sys.exit(1 if errors else 0)
PY
}
validate "$TMP/a.json" >"$TMP/v.out" || fail "not valid against NIST's schema: $(cat "$TMP/v.out")"

python3 - "$TMP/a.json" <<'PY' || fail "content"
import json, re, sys
d = json.load(open(sys.argv[1]))["assessment-results"]
assert d["metadata"]["oscal-version"].startswith("1.1"), d["metadata"]
r = d["results"][0]
obs = {o["uuid"]: o for o in r["observations"]}
assert len(obs) == len(r["findings"]) >= 2, (len(obs), len(r["findings"]))
v5 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
seen = {"satisfied": 0, "not-satisfied": 0}
for f in r["findings"]:
    assert v5.match(f["uuid"]), f["uuid"]
    o = obs[f["related-observations"][0]["observation-uuid"]]
    verdict = [p["value"] for p in o["props"] if p["name"] == "verdict"][0]
    state = f["target"]["status"]["state"]
    assert (state == "satisfied") == (verdict in ("CONFIRMED", "CONSISTENT")), (verdict, state)
    seen[state] += 1
assert seen["satisfied"] and seen["not-satisfied"], seen
PY

# An empty history: a valid document with no observation.
echo '{"type":"header","schema":"isotier.history.export/1"}' >"$TMP/empty.jsonl"
"$ISOTIER_BIN" history import --db "$TMP/empty.db" "$TMP/empty.jsonl" >/dev/null || fail "empty history"
report "$TMP/empty.db" "$TMP/e.json"
validate "$TMP/e.json" >"$TMP/v.out" || fail "empty history's document not valid: $(cat "$TMP/v.out")"
echo "report --format oscal: valid OSCAL $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["$id"].split("/")[-2])' "$schema") assessment results, reproducible"
