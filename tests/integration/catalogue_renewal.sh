#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# catalogue_renewal: a source whose quoted passage `sources check` found
# unchanged against its baseline is re-verified as of that check, so the
# catalogue has no expiry cliff (runbook/cadence.md). Pages are served by a
# real HTTP server on 127.0.0.1 (tests/tools/fixture_server.py), checks go to a
# real SQLite history. Without a renewing check a source expires as before,
# with a warning 30 days ahead; a passage that moved, a quote that went, and
# rows that came in by history import renew nothing; the gate (`backends`)
# and `catalogue check --db` read the same renewals. A year of weekly checks
# that found every passage unchanged leaves no claim expired a year ahead.
. "$(dirname "$0")/../lib.sh"
bin=$ISOTIER_BIN
[ -x "$bin" ] || fail "no isotier binary at $bin"
command -v python3 >/dev/null || skip "python3 is needed for the fixture HTTP server"
command -v sqlite3 >/dev/null || skip "the sqlite3 shell is needed to write a year of checks"
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
export ISOTIER_DB=$TMP/not-the-host.db # nothing here may read the host's history
pages=$TMP/pages
mkdir -p "$pages" "$TMP/cat"
day() { date -u -d "$1 days" +%F; } # today (UTC) moved by N days
today=$(day 0)
retrieved=$(day -80) # expires in 10 days without a renewal
old=$(day -100)      # expired 10 days ago without a renewal

q="Each sandbox runs in its own lightweight virtual machine"
page() {
  cat >"$pages/$1" <<EOF2
<!doctype html><html><head><title>$1</title></head><body><nav>Docs</nav>
<main><h1>Isolation</h1><p>Sandboxes start fast. $q with a dedicated kernel. $2 Snapshots are supported.</p></main>
<footer>Copyright</footer></body></html>
EOF2
}
for p in steady moved gone unread bubblewrap; do page "$p.html" "Use it for untrusted code."; done

python3 "$ISOTIER_ROOT/tests/tools/fixture_server.py" --root "$pages" --port-file "$TMP/port" \
  --lifetime 240 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || fail "fixture server did not start"
base="http://127.0.0.1:$(cat "$TMP/port")"

entry() { # entry ID TIER MECHANISM RETRIEVED
  python3 - "$TMP/cat/$1.json" "$1" "$base/page/$1.html" "$q" "$2" "$3" "$4" <<'PY'
import json, sys
path, pid, url, quote, tier, mech, retrieved = sys.argv[1:]
json.dump({"id": pid, "provider": "fixture", "name": "Fixture " + pid, "kind": "local",
           "tier": tier, "mechanism": mech, "since": retrieved,
           "sources": [{"url": url, "quote": quote, "publisher": "provider",
                        "retrieved": retrieved}],
           "history": [], "notes": "catalogue_renewal fixture"}, open(path, "w"))
PY
}
for p in steady moved gone unread; do entry "$p" MICROVM firecracker "$retrieved"; done
entry bubblewrap CONTAINER bubblewrap "$old" # the bwrap backend's claim
db=$TMP/history.db
lock=$TMP/sources.lock.json
check() { "$bin" sources check --catalogue "$TMP/cat" --db "$db" --baseline "$lock" --timeout 5 \
  --provider steady --provider moved --provider gone --provider bubblewrap "$@"; }
cat_check() { "$bin" catalogue check --catalogue "$TMP/cat" "$@"; }
errors_of() { python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted({f["file"].rsplit("/", 1)[-1][:-5] for f in d["findings"] if f["severity"] == "error"})))' "$1"; }
resolved() { "$bin" backends --catalogue "$TMP/cat" --db "$db" --json >"$TMP/b.json" &&
  python3 -c 'import json,sys
for b in json.load(open(sys.argv[1])):
    if b["backend"] == "bwrap": print(b["resolved_tier"], "|", b["reason"])' "$TMP/b.json"; }

# Before any check: the warning 30 days ahead, the expiry on its day.
set +e
cat_check --json >"$TMP/c0.json"; rc=$?
set -e
assert_eq "$rc" 65 "bubblewrap's source expired 10 days ago"
assert_eq "$(errors_of "$TMP/c0.json")" "bubblewrap" "only the old source has expired"
assert_contains "$(cat "$TMP/c0.json")" "expires $(day 10), in 10 days" "the warning ahead"
set +e
cat_check --today "$(day 20)" --json >"$TMP/c1.json"; rc=$?
set -e
assert_eq "$rc" 65 "20 days ahead"
assert_eq "$(errors_of "$TMP/c1.json")" "bubblewrap gone moved steady unread" "no check: every source expires"

# The first check keeps the baseline: a check without one renews nothing
# (it shows the words are on the page, not that the passage is unchanged).
check --update-baseline >"$TMP/k0.out" 2>&1 || fail "first check: $(cat "$TMP/k0.out")"
assert_eq "$(resolved | cut -d' ' -f1)" "UNKNOWN" "no baseline, no renewal: the old claim stays expired"
set +e
cat_check --db "$db" --today "$(day 20)" --json >"$TMP/c2.json"
set -e
assert_eq "$(errors_of "$TMP/c2.json")" "bubblewrap gone moved steady unread" "no baseline yet"

# The weekly check: every passage unchanged renews its source as of today.
check >"$TMP/k1.out" 2>&1 || fail "second check: $(cat "$TMP/k1.out")"
set +e
cat_check --db "$db" --today "$(day 20)" --json --expiries >"$TMP/c3.json"; rc=$?
set -e
assert_eq "$rc" 65 "unread was not checked"
assert_eq "$(errors_of "$TMP/c3.json")" "unread" "renewed by the check: all but the unread source"
python3 - "$TMP/c3.json" "$today" "$(day 90)" "$retrieved" "$(day 10)" <<'PY' || fail "expiries: $(cat "$TMP/c3.json")"
import json, sys
d = json.load(open(sys.argv[1]))
today, renewed_expiry, retrieved, unread_expiry = sys.argv[2:]
by = {e["id"]: e for e in d["expiries"]}
assert by["steady"] == dict(by["steady"], expires=renewed_expiry, verified=today, retrieved=retrieved), by
assert by["unread"]["expires"] == unread_expiry and by["unread"]["verified"] is None, by
assert [e["expires"] for e in d["expiries"]] == sorted(e["expires"] for e in d["expiries"]), "soonest first"
assert d["db"].endswith("history.db"), d["db"]
PY
cat_check --db "$db" --today "$(day 20)" --expiries >"$TMP/c3.txt" 2>&1 || true
assert_contains "$(cat "$TMP/c3.txt")" "$(day 90)  steady" "the text listing"
assert_contains "$(cat "$TMP/c3.txt")" "re-verified $today" "the text listing names the renewal"
# A renewed source warns 30 days before its new expiry.
cat_check --db "$db" --today "$(day 70)" --json >"$TMP/c4.json" || true
assert_contains "$(cat "$TMP/c4.json")" "expires $(day 90), in 20 days (retrieved $retrieved (passage re-verified $today)" "renewed warning"
# The gate reads the same renewal: bwrap's claim stands again.
r=$(resolved)
assert_eq "${r%% |*}" "CONTAINER" "the gate: $r"
assert_contains "$r" "passage re-verified $today" "the gate says why"

# The report shows the renewal and the expiry beside each source.
"$bin" report --db "$db" --catalogue "$TMP/cat" --today "$(day 20)" --format json >"$TMP/r.json" ||
  fail "report"
python3 - "$TMP/r.json" "$today" "$(day 90)" "$(day 10)" <<'PY' || fail "report sources: $(head -c 3000 "$TMP/r.json")"
import json, sys
d = json.load(open(sys.argv[1]))
today, renewed_expiry, unread_expiry = sys.argv[2:]
src = {p["id"]: p["sources"][0] for p in d["providers"]}
assert src["steady"]["verified"] == today and src["steady"]["expires"] == renewed_expiry, src["steady"]
assert src["steady"]["age_days"] == 20 and not src["steady"]["stale"], src["steady"]
assert src["unread"]["verified"] is None and src["unread"]["expires"] == unread_expiry, src["unread"]
assert src["unread"]["stale"], src["unread"]
# Declared beside observed: the declared tier is dated by its renewal, not the older retrieval.
decl = {p["id"]: p["declared_on"] for p in d["providers"]}
assert decl["steady"] == today, decl
rows = [r for r in d["matrix"] if r["provider_id"] == "steady"]
assert rows and all(r["declared_on"] == today for r in rows), rows
PY
"$bin" report --db "$db" --catalogue "$TMP/cat" --today "$(day 20)" --format md >"$TMP/r.md" || fail "report md"
assert_contains "$(cat "$TMP/r.md")" "passage re-verified $today, expires $(day 90)" "the markdown report"

# A passage that moved and a quote that went void every renewal since the
# retrieval, even with later unchanged checks: a person re-reads the page.
page moved.html "Use it for trusted code only."
cat >"$pages/gone.html" <<EOF2
<html><body><main><p>Sandboxes start fast. Each sandbox runs in a container.</p></main></body></html>
EOF2
set +e
check >"$TMP/k2.out" 2>&1; rc=$?
set -e
assert_eq "$rc" 1 "a moved passage and a gone quote: $(cat "$TMP/k2.out")"
page moved.html "Use it for untrusted code."
page gone.html "Use it for untrusted code."
check >"$TMP/k3.out" 2>&1 || fail "the pages came back: $(cat "$TMP/k3.out")"
set +e
cat_check --db "$db" --today "$(day 20)" --json >"$TMP/c5.json"
set -e
assert_eq "$(errors_of "$TMP/c5.json")" "gone moved unread" "a CHANGED or moved passage still needs a person"

# A year of weekly checks that found every passage unchanged. A test cannot
# wait a year: the steady source's real check row is stored again for each
# week ahead (as the weekly job would have stored it, in this host's own run).
mkdir -p "$TMP/year"
cp "$TMP/cat/steady.json" "$TMP/cat/bubblewrap.json" "$TMP/year/"
sqlite3 "$db" "WITH RECURSIVE w(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM w WHERE k < 52)
  INSERT INTO source_checks (run_id, checked_at, provider_id, url, quote, status, http_status,
    content_sha256, detail, retrieved, published, publisher, change, passage_diff)
  SELECT c.run_id, strftime('%Y-%m-%dT%H:%M:%SZ', c.checked_at, '+' || (7 * w.k) || ' days'),
    c.provider_id, c.url, c.quote, c.status, c.http_status, c.content_sha256, c.detail,
    c.retrieved, c.published, c.publisher, c.change, c.passage_diff
  FROM w, (SELECT * FROM source_checks WHERE provider_id IN ('steady', 'bubblewrap')
    AND change = 'none' ORDER BY id DESC LIMIT 2) c"
year=$(day 365)
set +e
"$bin" catalogue check --catalogue "$TMP/year" --db "$db" --today "$year" --json >"$TMP/y1.json"; rc=$?
set -e
assert_eq "$rc" 0 "a year ahead with weekly checks: $(cat "$TMP/y1.json")"
assert_eq "$(json_get "$TMP/y1.json" errors)" 0 "no expired claim a year ahead"
set +e
"$bin" catalogue check --catalogue "$TMP/year" --today "$year" --json >"$TMP/y2.json"; rc=$?
set -e
assert_eq "$rc" 65 "a year ahead without the history"
assert_eq "$(errors_of "$TMP/y2.json")" "bubblewrap steady" "without the checks both expire"
# Checks dated after the day judged renew nothing then.
set +e
"$bin" catalogue check --catalogue "$TMP/year" --db "$db" --today "$(day 20)" --json >"$TMP/y3.json"
set -e
python3 - "$TMP/y3.json" "$(day 14)" <<'PY' || fail "future checks: $(cat "$TMP/y3.json")"
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["expiries"]:
    assert e["verified"] is not None and e["verified"] <= sys.argv[2], e
PY

# Rows that came in by history import renew nothing (only this host's own
# checks do), though they may void.
sqlite3 "$db" "UPDATE runs SET command = 'import'"
set +e
"$bin" catalogue check --catalogue "$TMP/year" --db "$db" --today "$year" --json >"$TMP/y4.json"
set -e
assert_eq "$(errors_of "$TMP/y4.json")" "bubblewrap steady" "imported checks renew nothing"
assert_eq "$(resolved | cut -d' ' -f1)" "UNKNOWN" "nor for the gate"

# --db must name a history: an absent file is not an empty one.
set +e
cat_check --db "$TMP/absent.db" >/dev/null 2>"$TMP/absent.err"; rc=$?
set -e
assert_eq "$rc" 66 "absent --db: $(cat "$TMP/absent.err")"
echo "ok"
