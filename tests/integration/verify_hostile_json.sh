#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# What a hostile sandbox prints reaches the judge, the history and every
# report with one reading, as valid UTF-8 and inert (issue 17, findings 2, 3
# and 6), end to end through `verify` on the host backend:
#  - a probe document with "layers" twice is refused, not read first-wins;
#  - a stderr tail with a bidi override, cut mid-character, and invalid bytes
#    comes out of verify --json, history --json and report --format json as
#    valid UTF-8 (replacements counted), and out of the HTML report escaped;
#  - an accepted document is stored re-serialised: what was judged.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
faults=$ISOTIER_ROOT/$BUILD/tests
for m in dupkeys badutf8; do [ -x "$faults/fault-probe-$m" ] || fail "fault probe $m not built"; done
db=$TMP/h.db
utf8_json() { # file: strict UTF-8 decode, then JSON
  python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))' "$1" ||
    fail "$1 is not valid UTF-8 JSON"
}

# Finding 2: duplicate keys.
rc=0; ISOTIER_PROBE=$faults/fault-probe-dupkeys "$ISOTIER_BIN" verify --backend host --db "$db" --json \
  >"$TMP/dup.json" 2>"$TMP/dup.err" || rc=$?
utf8_json "$TMP/dup.json"
assert_eq "$(json_get "$TMP/dup.json" results.0.verdict)" INCONCLUSIVE "a document with layers twice"
assert_contains "$(json_get "$TMP/dup.json" results.0.reason)" 'duplicate key "layers"'
assert_eq "$(sqlite3 "$db" "SELECT observed_tier FROM observations ORDER BY id DESC LIMIT 1")" UNKNOWN \
  "observed tier stored for a refused document"

# Finding 3 and 6: bytes on stderr.
rc=0; ISOTIER_PROBE=$faults/fault-probe-badutf8 "$ISOTIER_BIN" verify --backend host --db "$db" --json \
  >"$TMP/bad.json" 2>"$TMP/bad.err" || rc=$?
utf8_json "$TMP/bad.json"
python3 - "$TMP/bad.json" <<'PY' || fail "verify --json: replacements not noted, or the override got through"
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert d.get("utf8_replacements", 0) >= 1, d.get("utf8_replacements")
assert "stderr:" in d["results"][0]["reason"], d["results"][0]["reason"]
PY
"$ISOTIER_BIN" history --db "$db" --json >"$TMP/hist.json" || fail "history --json"
utf8_json "$TMP/hist.json"
"$ISOTIER_BIN" report --db "$db" --format json --out "$TMP/r.json" || fail "report json"
utf8_json "$TMP/r.json"
"$ISOTIER_BIN" report --db "$db" --format html --out "$TMP/r.html" || fail "report html"
python3 - "$TMP/r.html" "$TMP/r.json" <<'PY' || fail "a bidi override reached a report unescaped"
import sys
for f in sys.argv[1:]:
    b = open(f, "rb").read()
    b.decode("utf-8")
    assert "\u202e".encode() not in b, f
html = open(sys.argv[1], encoding="utf-8").read()
assert "\\u202e" in html, "the override is not shown escaped in the HTML report"
PY

# An accepted document is stored as judged: compact, re-serialised.
"$ISOTIER_BIN" verify --backend host --db "$db" >/dev/null 2>&1 || fail "verify with the real probe"
sqlite3 "$db" "SELECT probe_json FROM observations ORDER BY id DESC LIMIT 1" >"$TMP/stored"
python3 - "$TMP/stored" <<'PY' || fail "the stored probe document is not the re-serialised one"
import json, sys
s = open(sys.argv[1], encoding="utf-8").read().rstrip("\n")
d = json.loads(s)
assert d["schema"] == "isotier.probe/1"
assert s == json.dumps(d, separators=(",", ":"), ensure_ascii=False), "not compact re-serialised"
PY
echo "hostile JSON: one reading, valid UTF-8, inert in every output"
