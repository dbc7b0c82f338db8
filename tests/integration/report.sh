#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# report.sh - `isotier report` over a real SQLite history (schema made by
# isotier__history_open) full of hostile strings: all four formats are
# generated; libxml2 parses the HTML (as XML and as HTML) and validates the
# JUnit XML against tests/fixtures/report/junit.xsd; the JSON validates
# against runbook/report.schema.json; hostile strings appear only escaped;
# regeneration is byte-identical; the database is not modified.
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
BIN=$ISOTIER_BIN
FIX=$R/tests/fixtures/report
[ -x "$BIN" ] || fail "no $BIN (build first)"
command -v xmllint >/dev/null || skip "xmllint (libxml2-utils) is not installed: scripts/deps.sh installs it"
"$BIN" report --help >/dev/null || fail "isotier report is not built in"

# The fixture database: real schema, then hostile rows.
# shellcheck disable=SC2046 # pkg-config prints several flags
cc -std=gnu11 -D_GNU_SOURCE -I"$R/include" -I"$R/reference" -o "$TMP/mkdb" "$FIX/mkdb.c" \
  "$R/$BUILD/libisotier-tool.a" $(pkg-config --libs libcurl libxml-2.0 libcjson sqlite3 libpq libcrypto libgit2) -lpthread -lm
"$TMP/mkdb" "$TMP/history.db" </dev/null
python3 "$FIX/fill.py" "$TMP/history.db"

# A catalogue whose own strings are hostile too (a contributor's typo or worse).
mkdir -p "$TMP/cat"
python3 - "$TMP/cat" <<'EOF'
import json, sys, os
d = sys.argv[1]
H = "<script>alert('cat')</script> |x| *y*"  # the loader refuses control characters itself
def p(id, tier, mech, kind, backend, url, quote, retrieved, **kw):
    doc = {"id": id, "name": id + " " + H, "kind": kind, "tier": tier, "mechanism": mech,
           "since": "2026-09-01", "sources": [{"url": url, "quote": quote, "publisher": "provider",
           "retrieved": retrieved, "title": "T " + H}], "history": [], "notes": "notes " + H}
    if backend: doc["backend"] = backend
    doc.update(kw)
    json.dump(doc, open(os.path.join(d, id + ".json"), "w"), indent=1)
p("bubblewrap", "CONTAINER", "bubblewrap", "local", "bwrap", "http://127.0.0.1:9/bwrap",
  "Bubblewrap <uses> namespaces & \"quotes\"", "2026-11-20")
p("runsc", "GVISOR", "gvisor", "local", "runsc", "http://127.0.0.1:9/runsc", "gVisor", "2026-08-01")
p("ember", "MICROVM", "firecracker", "remote", None, "http://127.0.0.1:9/ember", "Firecracker microVMs", "2026-11-01",
  history=[{"tier": "UNKNOWN", "mechanism": "unknown", "until": "2026-10-01", "note": "before: " + H}])
p("qemu-microvm", "MICROVM", "qemu", "local", "qemu-microvm", "javascript:alert(1)", "microvm machine type", "2026-11-01")
# Catalogue v2: two offerings of one provider, one deprecated in the provider's (hostile) words.
p("ember-legacy", "MICROVM", "firecracker", "remote", None, "http://127.0.0.1:9/ember-legacy", "legacy", "2026-11-01",
  provider="ember", offering="legacy SDK " + H, status="deprecated",
  status_source={"date": "2026-10-15", "url": "http://127.0.0.1:9/deprecation", "quote": "deprecated " + H})
doc = json.load(open(os.path.join(d, "ember.json"))); doc["provider"] = "ember"
json.dump(doc, open(os.path.join(d, "ember.json"), "w"), indent=1)
EOF

# Every format of the table (report_format.c), text included: a new row is tested here with no edit.
mapfile -t formats < <("$BIN" report --list-formats | cut -f1)
[ "${#formats[@]}" -ge 5 ] || fail "report --list-formats: ${formats[*]}"
for want in html json junit md text; do
  [[ " ${formats[*]} " == *" $want "* ]] || fail "report --list-formats lacks $want: ${formats[*]}"
done
"$BIN" report --list-formats | awk -F'\t' 'NF != 3 || $2 == "" || $3 !~ /\// { exit 1 }' ||
  fail "report --list-formats: not name, extension, media type: $("$BIN" report --list-formats)"
# The runbook documents each format of the table, and no other.
documented=$(sed -n '/^## Formats/,/^## /p' "$R/runbook/reports.md" | sed -n 's/^| `\([a-z]*\)` |.*/\1/p' | sort | tr '\n' ' ')
assert_eq "$documented" "$(printf '%s\n' "${formats[@]}" | sort | tr '\n' ' ')" "runbook/reports.md's formats"
readme=$(sed -n 's/.*`isotier report --format \([a-z\\|]*\)`.*/\1/p' "$R/README.md" | tr -d '\\' | tr '|' '\n' | sort | tr '\n' ' ')
assert_eq "$readme" "$(printf '%s\n' "${formats[@]}" | sort | tr '\n' ' ')" "README's report formats"
sum_before=$(sha256sum "$TMP/history.db" | cut -d' ' -f1)
for fmt in "${formats[@]}"; do
  "$BIN" report --db "$TMP/history.db" --catalogue "$TMP/cat" --format $fmt --out "$TMP/r.$fmt" \
    || fail "report --format $fmt exited $?"
  [ -s "$TMP/r.$fmt" ] || fail "empty $fmt report"
done
assert_eq "$(sha256sum "$TMP/history.db" | cut -d' ' -f1)" "$sum_before" "the report modified the database"
[ ! -e "$TMP/history.db-wal" ] || [ ! -s "$TMP/history.db-wal" ] || fail "the report wrote a WAL"

# --- offerings: grouped by provider, a deprecated one flagged, in every format ---
python3 - "$TMP/r.json" "$TMP/r.html" "$TMP/r.md" <<'EOF' || fail "offerings are not grouped by provider"
import json, sys
d = json.load(open(sys.argv[1]))
ids = [p["id"] for p in d["providers"]]
groups = [p["provider"] for p in d["providers"]]
assert groups == sorted(groups), groups
assert ids.index("ember-legacy") == ids.index("ember") + 1, ids
legacy = [p for p in d["providers"] if p["id"] == "ember-legacy"][0]
assert legacy["status"] == "deprecated" and legacy["status_date"] == "2026-10-15", legacy
assert [p for p in d["providers"] if p["id"] == "ember"][0]["status"] == "current"
html, md = open(sys.argv[2]).read(), open(sys.argv[3]).read()
assert html.count('<h3 class="provider" id="g-ember">') == 1, "one provider heading for both ember offerings"
g = html.index('id="g-ember"')
assert g < html.index('id="p-ember"') < html.index('id="p-ember-legacy"'), "offerings under their provider"
assert "DEPRECATED" in html and "deprecated &lt;script&gt;" in html, "the deprecation is flagged, escaped"
assert md.count("### Provider ember\n") == 1 and "**deprecated** 2026-10-15" in md, md[-3000:]
EOF

# --- HTML: well-formed as XML and as HTML, self-contained, escaped ----------
xmllint --noout "$TMP/r.html" || fail "HTML is not well-formed (XML parser)"
xmllint --html --noout "$TMP/r.html" 2>"$TMP/html.err" || fail "HTML parser: $(cat "$TMP/html.err")"
! grep -qi '<script' "$TMP/r.html" || fail "a raw <script> reached the HTML"
! grep -qi '<img' "$TMP/r.html" || fail "a raw <img> reached the HTML"
! grep -q $'\x1b' "$TMP/r.html" || fail "a terminal escape reached the HTML"
! grep -q $'\x07' "$TMP/r.html" || fail "a BEL reached the HTML"
# Every '<' from the data is escaped, so any tag here is ours: none may load anything.
! grep -qiE '<[^>]*[[:space:]](src|srcset|background|data)=|<(link|iframe|object|embed|script)|@import|url\(' "$TMP/r.html" \
  || fail "the HTML loads something"
! grep -q 'href="javascript' "$TMP/r.html" || fail "a javascript: URL became a link"
html=$(cat "$TMP/r.html")
assert_contains "$html" "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" "probe value escaped"
assert_contains "$html" '\x1b[31mred\x1b[0m' "terminal escapes shown as text"
assert_contains "$html" '&lt;img src=x onerror=alert(1)&gt;' "layer vendor escaped"
assert_contains "$html" '&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;x&lt;/script&gt;' "conflict escaped"
assert_contains "$html" "&lt;script&gt;alert(&#39;cat&#39;)&lt;/script&gt;" "catalogue strings escaped"
assert_contains "$html" '<td class="v v-contradicted">CONTRADICTED</td>' "verdict as a word"
assert_contains "$html" '&lt;b&gt;WEIRD&lt;/b&gt;' "unknown verdict word kept, escaped"
assert_contains "$html" 'layers_json: not JSON (at byte' "unreadable evidence stated"
assert_contains "$html" 'layers: 40 entries, only the first 8 shown' "bounded layers stated"
assert_contains "$html" '@media print' "printable"
assert_contains "$html" '<svg xmlns="http://www.w3.org/2000/svg"' "inline chart"
assert_contains "$html" 'SOURCE STALE' "stale source flagged"
# The matrix as an auditor scans it: the words, in cells, parsed by libxml2.
python3 - "$TMP/r.html" <<'EOF' || fail "matrix content"
import sys, xml.etree.ElementTree as ET
ns = {"h": "http://www.w3.org/1999/xhtml"}
doc = ET.parse(sys.argv[1])
sec = [s for s in doc.iter("{http://www.w3.org/1999/xhtml}section") if s.get("id") == "matrix"][0]
rows = [[("".join(td.itertext())).strip() for td in tr.findall("h:td", ns)] for tr in sec.iter("{http://www.w3.org/1999/xhtml}tr")]
rows = [r for r in rows if r]
got = {(r[0], r[1]): (r[8], r[11]) for r in rows}
# Declared beside observed: the declared tier dated by the source that defends it.
declared = {r[0]: (r[2], r[3]) for r in rows}
assert declared["bubblewrap"] == ("CONTAINER", "2026-11-20"), declared
assert declared["ember"] == ("MICROVM", "2026-11-01"), declared
assert declared["(no claim)"][1] == "\u2014", declared  # no source: no date
want = {
  ("bubblewrap", "bwrap"): ("CONTRADICTED", "CONTRADICTED"),
  # registered, sharing bubblewrap's claim, never verified: a row, overdue
  ("bubblewrap", "bwrap-nonet"): ("not observed", "OVERDUE, never observed"),
  ("ember", "\u2014"): ("not observed", "SOURCE CHANGED, not observed"),
  ("ember-legacy", "\u2014"): ("not observed", "DEPRECATED, not observed"),
  ("qemu-microvm", "qemu-microvm"): ("<b>WEIRD</b>", "OVERDUE, UNCONFIRMED"),  # an unknown verdict verifies nothing
  ("runsc", "runsc"): ("CONFIRMED", "SOURCE GONE, SOURCE STALE"),
  ("(no claim)", "host"): ("INCONCLUSIVE", "ok"),
}
assert got == want, got
order = [r[0] for r in rows]
# Sections (local backends, remote observed, source-checked only), grouped by provider.
assert order == ["bubblewrap", "bubblewrap", "(no claim)", "qemu-microvm", "runsc", "ember", "ember-legacy"], order
heads = ["".join(h.itertext()) for h in sec.iter("{http://www.w3.org/1999/xhtml}h3")]
assert heads == ["Local backends (5)", "Remote providers observed (0)",
                 "Offerings checked by their sources only (2)"], heads
groups = [("".join(th.itertext())) for tr in sec.iter("{http://www.w3.org/1999/xhtml}tr")
          if tr.get("class") == "group" for th in tr]
assert groups[1] == "host" and groups[0].startswith("bubblewrap \u2014 bubblewrap <script>"), groups
assert groups[-1].startswith("ember"), groups  # ember and ember-legacy: one provider, one group
EOF

# --- JUnit: schema-valid, one testcase per row, failures where due ----------
xmllint --noout --schema "$FIX/junit.xsd" "$TMP/r.junit" 2>"$TMP/junit.err" \
  || fail "JUnit does not validate: $(cat "$TMP/junit.err")"
! grep -q $'\x1b' "$TMP/r.junit" || fail "a terminal escape reached the JUnit XML"
python3 - "$TMP/r.junit" <<'EOF' || fail "JUnit content"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
cases = {c.get("name"): c for c in suite.findall("testcase")}
assert suite.get("tests") == "8" and suite.get("failures") == "3", suite.attrib
assert set(cases) == {"bubblewrap [bwrap]", "bubblewrap [bwrap-nonet]", "ember", "ember-legacy", "qemu-microvm [qemu-microvm]", "runsc [runsc]",
                      "(no claim) [host]", "catalogue loads"}, set(cases)
f = lambda n: cases[n].find("failure")
assert f("bubblewrap [bwrap]").get("type") == "CONTRADICTED"
assert f("ember").get("type") == "SOURCE_DRIFT" and "CHANGED" in f("ember").get("message")
assert f("runsc [runsc]").get("type") == "SOURCE_DRIFT" and "GONE" in f("runsc [runsc]").get("message")
assert f("qemu-microvm [qemu-microvm]") is None, "UNREACHABLE is never drift"
assert f("(no claim) [host]") is None
assert "<script>alert('x')</script>" in f("bubblewrap [bwrap]").text  # escaped in XML, intact when parsed
assert "Fix: re-verify bwrap: `isotier verify --backend bwrap`" in f("bubblewrap [bwrap]").text, f("bubblewrap [bwrap]").text
assert "Fix: source changed: compare with the stored hash" in f("ember").text, f("ember").text
EOF

# --- JSON: the documented schema, and the strings carried verbatim ----------
python3 - "$TMP/r.json" "$R/runbook/report.schema.json" <<'EOF' || fail "JSON report"
import json, sys
doc, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
# Declared beside observed: each row's declared tier with its source's date, the observed with its own.
rows = {(r["provider_id"], r["backend"]): r for r in doc["matrix"]}
assert rows[("bubblewrap", "bwrap")]["declared_on"] == "2026-11-20", rows[("bubblewrap", "bwrap")]
b = rows[("bubblewrap", "bwrap")]
assert b["observed_at"] and (b["judged_tier"], b["judged_at"]) == (b["observed_tier"], b["observed_at"]), b
assert all(r["declared_on"] is None for r in doc["matrix"] if r["provider_id"] is None), doc["matrix"]
assert {p["id"]: p["declared_on"] for p in doc["providers"]}["ember"] == "2026-11-01", doc["providers"]
try:
    import jsonschema
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join("%s: %s" % (list(e.path), e.message) for e in errors[:10])
    # The schema must be able to fail: break the document and expect errors.
    bad = json.loads(json.dumps(doc)); bad["matrix"][0]["verdict"] = 7; del bad["summary"]
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(bad)), "schema accepts anything"
except ImportError:
    # Structural check when python3-jsonschema is absent: every required key, recursively.
    def walk(s, d, path):
        if "$ref" in s:
            ref = schema
            for part in s["$ref"].lstrip("#/").split("/"):
                ref = ref[part]
            return walk(ref, d, path)
        if "oneOf" in s:
            return walk(s["oneOf"][1], d, path) if d is not None else None
        if isinstance(d, dict):
            for k in s.get("required", []):
                assert k in d, "%s: missing %s" % (path, k)
            if s.get("additionalProperties") is False and "properties" in s:
                extra = set(d) - set(s["properties"])
                assert not extra, "%s: unexpected %s" % (path, extra)
            for k, v in d.items():
                if k in s.get("properties", {}):
                    walk(s["properties"][k], v, path + "." + k)
        elif isinstance(d, list) and "items" in s:
            for i, v in enumerate(d):
                walk(s["items"], v, "%s[%d]" % (path, i))
    walk(schema, doc, "$")
assert doc["schema"] == "isotier.report/1"
assert doc["report_date"] == "2026-11-27" and doc["report_date_from"] == "database"
assert doc["database"]["observations"] == 5 and doc["database"]["refusals"] == 3
assert [a["decision"] for a in doc["refusals"]] == ["refused", "refused", "attestation-failed"]
assert doc["summary"]["failing"] == 6, doc["attention"]  # contradicted, changed, gone, stale,
# qemu-microvm overdue: its only run has a verdict word this build does not know; and
# bwrap-nonet overdue: registered, sharing bubblewrap's claim, never verified
assert any(a["kind"] == "overdue" and a["subject"].startswith("qemu-microvm") and "no verification" in a["detail"]
           for a in doc["attention"]), doc["attention"]
H = "<script>alert('x')</script> & \"q\" \x1b[31mred\x1b[0m \x1b]0;pwned\x07 | *b* `c` \x7f\u0085"
assert doc["observations"][2]["reason"] == "claimed CONTAINER; " + H
ev = doc["observations"][2]["evidence"]
assert ev["layers"][1]["signals"][0]["value"] == H
assert ev["layers"][1]["signals"][1] == {"id": "nope", "family": None, "source": None, "value": None,
                                         "weight": None, "supports": None}
assert [o["id"] for o in doc["observations"]] == [1, 2, 3, 4, 5]
kinds = [a["kind"] for a in doc["attention"]]
assert kinds == sorted(kinds, key=["contradicted", "unproven", "source_gone", "source_changed", "source_unreachable",
                                   "source_stale", "overdue", "catalogue"].index), kinds
EOF

# --- text: terminal-safe, alerts only ----------------------------------------
"$BIN" report --db "$TMP/history.db" --catalogue "$TMP/cat" --format text >"$TMP/r.text" || fail "text report: $?"
! grep -q $'\x1b' "$TMP/r.text" || fail "a terminal escape reached the text report"
! grep -q $'\x07' "$TMP/r.text" || fail "a BEL reached the text report"
assert_contains "$(cat "$TMP/r.text")" 'ALERT contradicted bubblewrap (bwrap): ' "text lists the contradiction"
assert_contains "$(cat "$TMP/r.text")" '\x1b[31mred' "escapes shown as text"
assert_eq "$(head -c 6 "$TMP/r.text")" "ALERT:" "the banner comes first"

# --- Markdown: pipes and markup escaped -------------------------------------
md=$(cat "$TMP/r.md")
! grep -qi '<script' "$TMP/r.md" || fail "raw <script> in Markdown"
! grep -q $'\x1b' "$TMP/r.md" || fail "terminal escape in Markdown"
assert_contains "$md" '&lt;b&gt;WEIRD&lt;/b&gt;' "markup in Markdown escaped"
assert_contains "$md" '\| \*b\* \`c\`' "pipes and emphasis escaped"
# Every matrix line has exactly the header's number of unescaped pipes.
python3 - "$TMP/r.md" <<'EOF' || fail "Markdown table broken by a hostile cell"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("## Tier matrix") + 2
cols = lambda l: len(re.findall(r"(?<!\\)\|", l))
header = cols(lines[i])
j = i
while lines[j].startswith("|"):
    assert cols(lines[j]) == header, (lines[j], header)
    j += 1
assert j - i == 2 + 7, j - i  # 7 rows: bwrap-nonet (shares the claim) too
EOF

# --- reproducible: same database, same bytes (also a copy elsewhere) --------
# The header names the history as given with --db, so a copy is compared
# under the same relative name.
mkdir -p "$TMP/elsewhere"
cp "$TMP/history.db" "$TMP/elsewhere/history.db"
for fmt in "${formats[@]}"; do
  "$BIN" report --db "$TMP/history.db" --catalogue "$TMP/cat" --format $fmt >"$TMP/again.$fmt" \
    || fail "second report ($fmt) exited $?"
  cmp -s "$TMP/r.$fmt" "$TMP/again.$fmt" || fail "$fmt regeneration differs: $(diff "$TMP/r.$fmt" "$TMP/again.$fmt" | head -5)"
  (cd "$TMP" && "$BIN" report --db history.db --catalogue "$TMP/cat" --format $fmt >"$TMP/rel.$fmt") || fail "relative $fmt"
  (cd "$TMP/elsewhere" && "$BIN" report --db history.db --catalogue "$TMP/cat" --format $fmt >"$TMP/copy.$fmt") || fail "copy $fmt"
  cmp -s "$TMP/rel.$fmt" "$TMP/copy.$fmt" || fail "$fmt of a copy differs: $(diff "$TMP/rel.$fmt" "$TMP/copy.$fmt" | head -5)"
done

# --- an empty history (a fresh install): valid reports, backends overdue ------
"$TMP/mkdb" "$TMP/empty.db" </dev/null
for fmt in "${formats[@]}"; do
  "$BIN" report --db "$TMP/empty.db" --catalogue "$TMP/cat" --format $fmt --out "$TMP/e.$fmt" || fail "empty: $fmt"
  "$BIN" report --db "$TMP/empty.db" --no-catalogue --format $fmt --out "$TMP/n.$fmt" || fail "empty, no catalogue: $fmt"
done
for f in "$TMP/e.html" "$TMP/n.html"; do xmllint --noout "$f" || fail "empty: $f not well-formed"; done
for f in "$TMP/e.junit" "$TMP/n.junit"; do
  xmllint --noout --schema "$FIX/junit.xsd" "$f" 2>/dev/null || fail "empty: $f does not validate"
done
python3 - "$TMP/e.json" "$TMP/n.json" "$R/runbook/report.schema.json" <<'EOF' || fail "empty-history reports"
import json, sys
e, n, schema = (json.load(open(p)) for p in sys.argv[1:4])
try:
    import jsonschema
    for d in (e, n):
        jsonschema.Draft202012Validator(schema).validate(d)
except ImportError:
    pass
# Nothing stored: the catalogue dates the report, and every local backend is overdue (never verified).
assert e["report_date_from"] == "catalogue" and e["report_date"] == "2026-11-20", e["report_date"]
assert e["summary"]["attention"]["overdue"] == 4 and not e["summary"]["ok"], e["summary"]  # bwrap-nonet too
assert n["report_date"] is None and n["report_date_from"] == "none" and n["matrix"] == []
assert n["timeline"] == {"unit": None, "buckets": []}
EOF

# --- --since and --today move what they should; errors are clear ------------
"$BIN" report --db "$TMP/history.db" --catalogue "$TMP/cat" --format json --since 2026-11-27 --today 2026-12-20 >"$TMP/since.json"
assert_eq "$(json_get "$TMP/since.json" database.observations)" 3 "--since narrows"
assert_eq "$(json_get "$TMP/since.json" report_date)" 2026-12-20 "--today"
assert_eq "$(json_get "$TMP/since.json" summary.attention.overdue)" 5 "overdue backends at --today (bwrap-nonet too)"
set +e
"$BIN" report --db "$TMP/history.db" --format pdf >/dev/null 2>&1; assert_eq $? 64 "bad format"
"$BIN" report --db "$TMP/history.db" --format html --since yesterday >/dev/null 2>&1; assert_eq $? 64 "bad --since"
"$BIN" report --db "$TMP/nope.db" --no-catalogue --format html >/dev/null 2>"$TMP/nope.err"; rc=$?
assert_eq $rc 66 "a missing database is EX_NOINPUT, as for \`history\`"
assert_contains "$(cat "$TMP/nope.err")" "no history database at $TMP/nope.db"
[ ! -e "$TMP/nope.db" ] || fail "the report created a database"
"$BIN" report --db "$TMP/history.db" --catalogue "$TMP/cat" --format html --out /nonexistent/dir/r.html 2>/dev/null
[ $? -eq 73 ] || fail "unwritable --out must exit 73"

# --today earlier than the stored data: negative ages would read as fresh.
"$BIN" report --db "$TMP/history.db" --no-catalogue --format md --today 1970-01-01 >"$TMP/past.md" 2>"$TMP/past.err"
assert_eq $? 64 "--today before the newest record"
assert_contains "$(cat "$TMP/past.err")" "--today 1970-01-01 is earlier than the newest stored record"
[ ! -s "$TMP/past.md" ] || fail "--today in the past still printed a report"

# --- --out never destroys the database or a special file --------------------
cp "$TMP/history.db" "$TMP/victim.db"
sum=$(sha256sum "$TMP/victim.db" | cut -d' ' -f1)
"$BIN" report --db "$TMP/victim.db" --no-catalogue --format md --out "$TMP/victim.db" 2>"$TMP/out.err"
assert_eq $? 64 "--out the database itself"
assert_contains "$(cat "$TMP/out.err")" "history database"
ln -s victim.db "$TMP/victim-link"
ln "$TMP/victim.db" "$TMP/victim-hardlink"
"$BIN" report --db "$TMP/victim.db" --no-catalogue --format md --out "$TMP/victim-link" 2>/dev/null
assert_eq $? 64 "--out a symlink to the database"
"$BIN" report --db "$TMP/victim.db" --no-catalogue --format md --out "$TMP/victim-hardlink" 2>/dev/null
assert_eq $? 64 "--out a hard link to the database"
"$BIN" report --db "$TMP/victim.db" --no-catalogue --format md --out "$TMP/victim.db-wal" 2>/dev/null
assert_eq $? 64 "--out the database's WAL (absent)"
! grep -qs 'isotier isolation report' "$TMP/victim.db-wal" || fail "the report went into the WAL"
"$BIN" report --db "$TMP/history.db" --no-catalogue --format md --out "$TMP/victim.db" 2>/dev/null
assert_eq $? 64 "--out another SQLite database"
assert_eq "$(sha256sum "$TMP/victim.db" | cut -d' ' -f1)" "$sum" "a refused --out changed the database"
[ -L "$TMP/victim-link" ] || fail "the symlink was replaced"
# A symlink is never followed (tests/integration/hostile_paths.sh checks the
# target's owner and mode): refused, the link and the file it names untouched.
echo old >"$TMP/real.md"
ln -s real.md "$TMP/link.md"
"$BIN" report --db "$TMP/history.db" --no-catalogue --format md --out "$TMP/link.md" 2>/dev/null
assert_eq $? 64 "--out a symlink to a regular file"
[ -L "$TMP/link.md" ] || fail "--out replaced the symlink"
assert_eq "$(cat "$TMP/real.md")" old "--out wrote through a symlink"
ln -s nowhere.md "$TMP/dangling.md"
"$BIN" report --db "$TMP/history.db" --no-catalogue --format md --out "$TMP/dangling.md" 2>/dev/null
assert_eq $? 64 "--out a dangling symlink"
[ ! -e "$TMP/nowhere.md" ] || fail "--out created the file a dangling symlink names"
"$BIN" report --db "$TMP/history.db" --no-catalogue --format md --out "$TMP" 2>/dev/null
assert_eq $? 73 "--out a directory"
# A FIFO is written in place, not replaced.
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/fifo.out" &
reader=$!
"$BIN" report --db "$TMP/history.db" --no-catalogue --format md --out "$TMP/fifo"
assert_eq $? 0 "--out FIFO"
wait $reader
[ -p "$TMP/fifo" ] || fail "--out replaced the FIFO"
grep -q '^# isotier isolation report' "$TMP/fifo.out" || fail "nothing came through the FIFO"
# A device that fails writes: 74, and it is still a device.
if [ -c /dev/full ]; then
  "$BIN" report --db "$TMP/history.db" --no-catalogue --format html --out /dev/full 2>"$TMP/full.err"
  assert_eq $? 74 "--out /dev/full"
  assert_contains "$(cat "$TMP/full.err")" "/dev/full"
  [ -c /dev/full ] || fail "/dev/full is no longer a character device"
  # Standard output on a device that fails writes: every format fails the command, never exit 0.
  for fmt in "${formats[@]}"; do
    "$BIN" report --db "$TMP/history.db" --catalogue "$TMP/cat" --format "$fmt" >/dev/full 2>"$TMP/full.err"
    assert_eq $? 74 "--format $fmt >/dev/full"
    assert_contains "$(cat "$TMP/full.err")" "standard output"
  done
fi
# /dev/stdout: the descriptor is written, not the symlink replaced.
out=$("$BIN" report --db "$TMP/history.db" --no-catalogue --format md --out /dev/stdout | head -1)
assert_eq "$out" "# isotier isolation report" "--out /dev/stdout"
[ -L /dev/stdout ] || [ ! -e /dev/stdout ] || [ -c /dev/stdout ] || fail "/dev/stdout was replaced"
# ... at the descriptor's own offset: after what the shell already wrote.
( echo first; "$BIN" report --db "$TMP/history.db" --no-catalogue --format md --out /dev/stdout ) >"$TMP/so.md"
assert_eq "$(sed -n 1p "$TMP/so.md")" "first" "--out /dev/stdout kept the shell's offset"
assert_eq "$(sed -n 2p "$TMP/so.md")" "# isotier isolation report" "--out /dev/stdout after the shell's output"
ls "$TMP" | grep -q '\.tmp\.' && fail "a temporary file was left behind: $(ls "$TMP")"
set -e
echo "report: all formats parse, validate, escape and regenerate byte-identically"
