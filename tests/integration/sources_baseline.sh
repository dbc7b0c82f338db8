#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# sources_baseline: `isotier sources check` keeps what was read and says how a
# page moved, against pages replayed by a real HTTP server on 127.0.0.1
# (tests/tools/fixture_server.py). --update-baseline keeps the main text's
# hash and the passage around each quote; a later check tells apart a passage
# that changed around a quote still present (with a word diff), navigation
# that changed alone (nothing to report), a quote that vanished and a page
# whose main text changed elsewhere. The history row keeps the source's
# retrieved/published/publisher, the change and the diff; the report shows
# them. A damaged baseline is an error, never "no baseline".
. "$(dirname "$0")/../lib.sh"
bin=$ISOTIER_BIN
[ -x "$bin" ] || fail "no isotier binary at $bin"
command -v python3 >/dev/null || skip "python3 is needed for the fixture HTTP server"
command -v sqlite3 >/dev/null || skip "the sqlite3 shell is needed to inspect the history"
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
pages=$TMP/pages
mkdir -p "$pages"

q="Each sandbox runs in its own Firecracker microVM"
# page NAME NAV MAIN FOOTER: an HTML page with chrome around its main text.
page() {
  cat >"$pages/$1" <<EOF2
<!doctype html><html><head><title>$1</title><script>var build = "$RANDOM";</script></head>
<body><header role="banner">Docs home</header><nav><a href="/a">$2</a></nav>
<main><h1>Isolation</h1><p>Welcome to the sandbox documentation.</p>$3</main>
<aside>Related: $2</aside><footer>$4</footer></body></html>
EOF2
}
far="<p>Far away from the quote. Another section. A third one. Pricing is per second of runtime.</p>"
v1_passage="<p>Sandboxes start fast. $q with a dedicated kernel. Use it for untrusted code. Snapshots are supported.</p>"
page passage.html "Guides" "$v1_passage$far" "Copyright 2025"
page nav.html "Guides" "$v1_passage$far" "Copyright 2025"
page gone.html "Guides" "$v1_passage$far" "Copyright 2025"
page elsewhere.html "Guides" "$v1_passage$far" "Copyright 2025"
page repeated.html "Guides" "$v1_passage$far<p>Summary. $q with a dedicated kernel. End.</p>" "x"

python3 "$ISOTIER_ROOT/tests/tools/fixture_server.py" --root "$pages" --port-file "$TMP/port" \
  --lifetime 240 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || fail "fixture server did not start"
base="http://127.0.0.1:$(cat "$TMP/port")"

mkdir -p "$TMP/cat"
for p in passage nav gone elsewhere repeated; do
  python3 - "$TMP/cat/$p.json" "$p" "$base/page/$p.html" "$q" <<'PY'
import json, sys
path, pid, url, quote = sys.argv[1:]
json.dump({"id": pid, "name": "Fixture " + pid, "kind": "remote", "tier": "UNKNOWN",
           "mechanism": "unknown", "since": "2026-01-01",
           "sources": [{"url": url, "quote": quote, "publisher": "provider",
                        "retrieved": "2026-11-30", "published": "2026-11-01"}],
           "history": [], "notes": "sources_baseline fixture",
           **({"scope": "between-accounts"} if pid == "passage" else {})}, open(path, "w"))
PY
done
db=$TMP/history.db
lock=$TMP/sources.lock.json
check() { "$bin" sources check --catalogue "$TMP/cat" --db "$db" --timeout 5 "$@"; }

# No baseline yet: every read source is "no baseline", nothing drifts.
set +e
check --json >"$TMP/r0.json" 2>"$TMP/r0.err"; rc=$?
set -e
assert_eq "$rc" 0 "first check without a baseline: $(cat "$TMP/r0.err")"
[ ! -e "$lock" ] || fail "a check without --update-baseline wrote the baseline"
assert_eq "$(json_get "$TMP/r0.json" counts.no_baseline)" 5 "no baseline yet"
# The default baseline lives beside the provider directory.
assert_eq "$(json_get "$TMP/r0.json" baseline)" "$TMP/cat/../sources.lock.json" "default baseline path"

# Keep what was read.
set +e
check --baseline "$lock" --update-baseline >"$TMP/r1.out" 2>"$TMP/r1.err"; rc=$?
set -e
assert_eq "$rc" 0 "update-baseline: $(cat "$TMP/r1.err")"
assert_contains "$(cat "$TMP/r1.err")" "keeps 5 sources"
python3 - "$lock" "$q" <<'PY' || fail "baseline file: $(cat "$lock")"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "isotier.sources-baseline/1"
assert len(d["sources"]) == 5
for e in d["sources"]:
    assert re.fullmatch(r"[0-9a-f]{64}", e["main_text_sha256"]), e
    assert sys.argv[2].lower() in e["passage"], e
    # the sentences around the quote, nothing of the chrome or the far text
    assert "sandboxes start fast." in e["passage"] and "use it for untrusted code." in e["passage"], e
    assert "docs home" not in e["passage"] and "pricing" not in e["passage"], e
PY

# Unchanged pages: every source unchanged.
set +e
check --json --baseline "$lock" >"$TMP/r2.json"; rc=$?
set -e
assert_eq "$rc" 0 "unchanged pages"
assert_eq "$(json_get "$TMP/r2.json" counts.none)" 5 "unchanged"

# The pages move.
page passage.html "Guides" "<p>Sandboxes start fast. $q with a dedicated kernel. Use it for trusted code only. Snapshots are supported.</p>$far" "Copyright 2025"
page nav.html "Blog Pricing Careers" "$v1_passage$far" "Copyright 2026, all rights reserved"
page gone.html "Guides" "<p>Sandboxes start fast. Each sandbox runs in a container. Snapshots are supported.</p>$far" "Copyright 2025"
page elsewhere.html "Guides" "$v1_passage<p>Far away from the quote. Another section. A third one. Pricing is per minute of runtime.</p>" "Copyright 2025"
page repeated.html "Guides" "<p>Sandboxes start fast. $q with a dedicated kernel. Now read this instead.</p>$far<p>Summary. $q with a dedicated kernel. End.</p>" "x"
# the repeated quote's kept passage is its first occurrence's; an occurrence
# whose passage is still the kept one must keep it unchanged: make the second
# occurrence carry the kept passage.
page repeated.html "Guides" "<p>Intro. $q here now. Other.</p>$far<p>Sandboxes start fast. $q with a dedicated kernel. Use it for untrusted code. Snapshots are supported.</p>" "x"

set +e
check --json --baseline "$lock" >"$TMP/r3.json" 2>"$TMP/r3.err"; rc=$?
set -e
assert_eq "$rc" 1 "a changed passage and a vanished quote are findings: $(cat "$TMP/r3.err")"
python3 - "$TMP/r3.json" <<'PY' || fail "changes: $(cat "$TMP/r3.json")"
import json, sys
d = json.load(open(sys.argv[1]))
by = {s["provider"]: s for s in d["sources"]}
assert by["passage"]["status"] == "PRESENT" and by["passage"]["change"] == "passage_changed", by["passage"]
diff = by["passage"]["passage_diff"]
assert "[-untrusted code.-]" in diff and "{+trusted code only.+}" in diff, diff
assert "quote present, but the passage around it changed" in by["passage"]["detail"], by["passage"]
assert by["nav"]["status"] == "PRESENT" and by["nav"]["change"] == "none", by["nav"]
assert by["nav"]["passage_diff"] is None
assert by["gone"]["status"] == "CHANGED" and by["gone"]["change"] == "quote_gone", by["gone"]
assert by["elsewhere"]["status"] == "PRESENT" and by["elsewhere"]["change"] == "page_changed", by["elsewhere"]
assert by["repeated"]["change"] != "passage_changed", by["repeated"]
assert by["passage"]["retrieved"] == "2026-11-30" and by["passage"]["published"] == "2026-11-01"
c = d["counts"]
assert (c["none"], c["passage_changed"], c["page_changed"], c["quote_gone"]) == (1, 1, 2, 1), c
PY
# The history row keeps the source's dates and publisher, the change and the diff.
row=$(sqlite3 "$db" "SELECT retrieved || '|' || published || '|' || publisher || '|' || change FROM source_checks WHERE provider_id = 'passage' ORDER BY id DESC LIMIT 1")
assert_eq "$row" "2026-11-30|2026-11-01|provider|passage_changed" "stored row"
assert_contains "$(sqlite3 "$db" "SELECT passage_diff FROM source_checks WHERE provider_id = 'passage' ORDER BY id DESC LIMIT 1")" "{+trusted code only.+}"
assert_eq "$(sqlite3 "$db" "SELECT change FROM source_checks WHERE provider_id = 'nav' ORDER BY id DESC LIMIT 1")" "none" "nav row"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM source_checks WHERE change IS NULL")" 10 "rows of the two runs before a baseline existed"

# The text output shows the change and the diff.
set +e
out=$(check --baseline "$lock" --provider passage --provider nav 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "text run"
assert_contains "$out" "[passage changed]"
assert_contains "$out" "passage: "
assert_contains "$out" "{+trusted code only.+}"
assert_contains "$out" "1 unchanged, 1 passage changed"

# The report's Sources section shows the change and the diff.
"$bin" report --db "$db" --catalogue "$TMP/cat" --format md --out "$TMP/r.md"
assert_contains "$(cat "$TMP/r.md")" "passage around the quote changed since the baseline"
assert_contains "$(cat "$TMP/r.md")" "trusted code only."
"$bin" report --db "$db" --catalogue "$TMP/cat" --format json --out "$TMP/r.json"
assert_contains "$(cat "$TMP/r.md")" "UNKNOWN (unknown, scope between-accounts)"
"$bin" report --db "$db" --catalogue "$TMP/cat" --format html --out "$TMP/r.html"
assert_contains "$(cat "$TMP/r.html")" "passage around the quote changed since the baseline"
assert_contains "$(cat "$TMP/r.html")" "<pre class=\"diff\">"
assert_contains "$(cat "$TMP/r.html")" "{+trusted code only.+}"
assert_contains "$(cat "$TMP/r.html")" "scope <strong>between-accounts</strong>"
python3 - "$TMP/r.json" "$ISOTIER_ROOT/runbook/report.schema.json" <<'PY' || fail "JSON report checks"
import json, sys
d = json.load(open(sys.argv[1]))
changes = {c["provider_id"]: c["change"] for c in d["source_checks"]}
assert changes["passage"] == "passage_changed" and changes["nav"] == "none", changes
diffs = [c["passage_diff"] for c in d["source_checks"] if c["passage_diff"]]
assert any("{+trusted code only.+}" in x for x in diffs), diffs
scopes = {p["id"]: p["scope"] for p in d["providers"]}
assert scopes["passage"] == "between-accounts" and scopes["nav"] is None, scopes
try:
    import jsonschema
except ImportError:
    sys.exit(0)
# The parts this test is about: each provider (scope) and each check
# (change, passage_diff) against the documented schema.
schema = json.load(open(sys.argv[2]))
defs = {"$defs": schema["$defs"]}
for sub, items in ((schema["properties"]["providers"]["items"], d["providers"]),
                   ({"$ref": "#/$defs/check"}, d["source_checks"])):
    v = jsonschema.Draft202012Validator(dict(defs, **sub))
    errors = [e for item in items for e in v.iter_errors(item)]
    assert not errors, [(list(e.path), e.message) for e in errors[:5]]
bad = dict(d["providers"][0], scope="per-account")
assert list(jsonschema.Draft202012Validator(dict(defs, **schema["properties"]["providers"]["items"])).iter_errors(bad))
PY

# A damaged baseline fails closed, naming the file; a symbolic link is never written through.
printf '{"format": "isotier.sources-baseline/1", "sources": [{"url": 1}]}' >"$TMP/bad.json"
set +e
out=$(check --baseline "$TMP/bad.json" --provider nav 2>&1); rc=$?
set -e
assert_eq "$rc" 65 "damaged baseline: $out"
assert_contains "$out" "$TMP/bad.json: sources[0].url"
ln -s "$TMP/elsewhere-target" "$TMP/link.json"
set +e
out=$(check --baseline "$TMP/link.json" --update-baseline --provider nav 2>&1); rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a symbolic link as the baseline was written through: $out"
assert_contains "$out" "symbolic link"
[ ! -e "$TMP/elsewhere-target" ] || fail "the link's target was created"
# Updating takes today's reading for the quotes present; the gone one keeps its old entry.
check --baseline "$lock" --update-baseline >/dev/null 2>&1 || true
set +e
check --json --baseline "$lock" >"$TMP/r4.json"; rc=$?
set -e
assert_eq "$(json_get "$TMP/r4.json" counts.none)" 4 "after the update, unchanged"
assert_eq "$(json_get "$TMP/r4.json" counts.quote_gone)" 1 "the gone quote stays gone"
echo "sources_baseline: ok"
