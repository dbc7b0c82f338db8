#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# report_view.sh - what operators and auditors see first, over a history that
# holds every kind of attention item (tests/fixtures/report/alerts.py):
# ALERT > WARN > note with a remedy each, one collapsed line for many of a
# kind, a banner that is never green when a check did not happen (amber when
# only that), provenance per observation and of the report, per-backend
# timelines with a shape per verdict, the matrix's sections. HTML, Markdown
# and JSON carry the same content.
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
BIN=$ISOTIER_BIN
FIX=$R/tests/fixtures/report
[ -x "$BIN" ] || fail "no $BIN (build first)"
command -v xmllint >/dev/null || skip "xmllint (libxml2-utils) is not installed: scripts/deps.sh installs it"
# shellcheck disable=SC2046 # pkg-config prints several flags
cc -std=gnu11 -D_GNU_SOURCE -I"$R/include" -I"$R/reference" -o "$TMP/mkdb" "$FIX/mkdb.c" \
  "$R/$BUILD/libisotier-tool.a" $(pkg-config --libs libcurl libxml-2.0 libcjson sqlite3 libpq libcrypto libgit2) -lpthread -lm
mk() { "$TMP/mkdb" "$TMP/$1.db" </dev/null && python3 "$FIX/alerts.py" "$TMP/$1.db" "$TMP/$1.cat" "$1"; }
mk full; mk clean; mk offline
rep() { "$BIN" report --db "$TMP/$1.db" --catalogue "$TMP/$1.cat" --today 2026-12-02 --format "$2"; }
for m in full clean offline; do
  for fmt in $("$BIN" report --list-formats | cut -f1); do rep $m $fmt >"$TMP/$m.$fmt" || fail "$m $fmt: exit $?"; done
  xmllint --noout "$TMP/$m.html" || fail "$m.html is not well-formed"
done

# --- HTML: banner, alerts, provenance, timelines, matrix -------------------
python3 - "$TMP/full.html" "$TMP/clean.html" "$TMP/offline.html" <<'EOF' || fail "HTML view"
import sys, xml.etree.ElementTree as ET
X = "{http://www.w3.org/1999/xhtml}"
text = lambda e: "".join(e.itertext()).strip()
def load(p):
    d = ET.parse(p)
    return d, {e.get("id"): e for e in d.iter() if e.get("id")}
full, ids = load(sys.argv[1])
# The banner comes before anything else in the body, and says which checks did not happen.
body = full.getroot().find(X + "body")
assert body.find(X + "header").find(X + "div").get("id") == "banner"
b = ids["banner"]
assert b.get("class") == "overall fail", b.get("class")
bt = text(b)
assert bt.startswith("ALERT: 7 alerts need action; 5 warnings"), bt
missing = [text(li) for li in b.iter(X + "li")]
assert missing == ["2 backends not verified within 7 days", "5 sources could not be reached"], missing
# Provenance of the report itself.
p = text(ids["provenance"])
assert "given with --today" in p and "full.db" in p and "(schema 11)" in p and "newest record 2026-12-02T08:00:09Z" in p, p
# Alerts: ALERT > WARN > note, a remedy on each row, five unreachable sources on one line.
rows = [[text(td) for td in tr.findall(X + "td")] for tr in ids["attention"].iter(X + "tr")]
rows = [r for r in rows if r]
sev = [r[0] for r in rows]
assert sev == ["ALERT"] * 7 + ["WARN"], sev
kinds = [r[1] for r in rows]
assert kinds == ["contradicted", "unproven", "source_gone", "source_changed", "source_stale",
                 "overdue", "overdue", "source_unreachable"], kinds
rem = {r[1] + "|" + r[2]: r[-1] for r in rows if len(r) == 5}
assert "`isotier verify --backend bwrap`" in rem["contradicted|bubblewrap (bwrap)"], rem
assert "runbook/drift.md#an-unproven-claim" in rem["unproven|runsc (runsc)"], rem
assert "add a CHURN.md entry" in rem["source_changed|ember"], rem
assert "`isotier verify --backend qemu-microvm`" in rem["overdue|qemu-microvm (qemu-microvm)"], rem
coll = rows[-1]
assert len(coll) == 4 and coll[2].startswith("5 items") and "far4" in coll[2], coll
assert "isotier sources check" in coll[3], coll
assert len(list(ids["attention"].iter(X + "details"))) == 1
# Per-backend timelines: one row per observed backend, a shape per verdict, words too.
tl = ids["backends"]
svg = tl.find("{http://www.w3.org/2000/svg}svg")
assert svg is not None and svg.get("class") == "timelines"
assert not list(full.getroot().iter(X + "script")) and not list(full.getroot().iter("{http://www.w3.org/2000/svg}script"))
labels = [text(t) for t in svg.iter("{http://www.w3.org/2000/svg}text")]
for w in ["bubblewrap (bwrap)", "runsc (runsc)", "CONTRADICTED", "INCONCLUSIVE", "CONFIRMED", "EXCEEDS", "UNAVAILABLE"]:
    assert w in labels, (w, labels)
titles = [text(t) for t in svg.iter("{http://www.w3.org/2000/svg}title")]
assert "2026-12-01: CONTRADICTED" in titles and "2026-11-25: CONFIRMED" in titles, titles
changes = [text(li) for li in tl.iter(X + "li")]
assert "bubblewrap (bwrap): CONFIRMED from 2026-11-25T10:00:00Z; then CONTRADICTED from 2026-12-01T10:00:00Z" in changes, changes
# Provenance per observation in the log.
log = [[text(td) for td in tr.findall(X + "td")] for tr in ids["log"].iter(X + "tr")]
prov = [r[-1] for r in log if r]
assert prov[0] == "run 1 on ci-runner-7; isotier 0.9.1; catalogue c0ffee1+dirty; probe isotier.probe/1", prov[0]
# Matrix sections.
heads = [text(h) for h in ids["matrix"].iter(X + "h3")]
assert heads == ["Local backends (4)", "Remote providers observed (0)",
                 "Offerings checked by their sources only (9)"], heads
groups = [text(th) for tr in ids["matrix"].iter(X + "tr") if tr.get("class") == "group" for th in tr]
assert "kata \u2014 Kata コンテナ" in groups, groups
# Green only when every required check ran; amber when one did not.
_, ids = load(sys.argv[2])
assert ids["banner"].get("class") == "overall pass" and text(ids["banner"]).startswith("OK: every required check ran"), text(ids["banner"])
_, ids = load(sys.argv[3])
assert ids["banner"].get("class") == "overall warn", ids["banner"].get("class")
bt = text(ids["banner"])
assert bt.startswith("INCOMPLETE: 1 warning") and "1 source could not be reached" in bt, bt
EOF

# --- JSON: the same content, valid against the schema ----------------------
python3 - "$TMP/full.json" "$TMP/clean.json" "$TMP/offline.json" "$R/runbook/report.schema.json" <<'EOF' || fail "JSON view"
import json, sys
full, clean, offline, schema = (json.load(open(p)) for p in sys.argv[1:5])
try:
    import jsonschema
    for d in (full, clean, offline):
        jsonschema.Draft202012Validator(schema).validate(d)
except ImportError:
    pass
s = full["summary"]
assert s["status"] == "ALERT" and s["severities"] == {"ALERT": 7, "WARN": 5, "note": 0}, s
assert s["missing_checks"] == ["2 backends not verified within 7 days", "5 sources could not be reached"], s
assert [a["severity"] for a in full["attention"]] == ["ALERT"] * 7 + ["WARN"] * 5
assert all(a["remedy"] for a in full["attention"])
u = [a for a in full["attention"] if a["kind"] == "unproven"][0]
assert u["backend"] == "runsc" and "drift.md#an-unproven-claim" in u["remedy"], u
assert full["history"].endswith("full.db")
o = full["observations"][0]
assert o["provenance"] == {"host": "ci-runner-7", "tool_version": "0.9.1",
                           "catalogue_commit": "c0ffee1+dirty", "probe_schema": "isotier.probe/1"}, o
sections = {(r["provider_id"], r["section"]) for r in full["matrix"]}
assert ("bubblewrap", "local") in sections and ("ember", "sources") in sections, sections
assert clean["summary"]["status"] == "OK" and clean["summary"]["missing_checks"] == []
assert offline["summary"]["status"] == "INCOMPLETE" and offline["summary"]["ok"] is True
EOF

# --- Markdown: banner and collapsed line ------------------------------------
md=$(cat "$TMP/full.md")
assert_contains "$md" "**ALERT:** 7 alerts need action; 5 warnings."
assert_contains "$md" "| WARN | source\\_unreachable | 5 items | far0, far1, far2, far3, far4 |"
assert_contains "$md" "- 5 sources could not be reached"
assert_contains "$(cat "$TMP/clean.md")" "**OK:** every required check ran"
assert_contains "$(cat "$TMP/offline.md")" "**INCOMPLETE:** 1 warning."
echo "report view: alerts first with remedies, honest banner, provenance, timelines, sections"
