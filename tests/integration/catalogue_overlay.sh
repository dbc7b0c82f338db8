#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# catalogue_overlay: an operator's directory ($ISOTIER_CATALOGUE_OVERLAY here;
# /etc/isotier/catalogue.d on an installed host) lays its entries over the
# packaged catalogue: one there replaces the packaged entry of the same id
# for the gate (`backends`), `catalogue check` and the report, or adds an
# offering; an overlay file that does not load is an error naming it and
# never lets the packaged claim through; set and empty, there is none.
. "$(dirname "$0")/../lib.sh"
bin=$ISOTIER_BIN
[ -x "$bin" ] || fail "no isotier binary at $bin"
ISOTIER_DB=$(empty_history "$TMP/none.db") # a named history must exist: an empty one
export ISOTIER_DB
today=$(date -u +%F)
pkg=$TMP/pkg/providers over=$TMP/overlay
mkdir -p "$pkg" "$over"
entry() { # entry DIR ID TIER MECHANISM
  python3 - "$1/$2.json" "$2" "$3" "$4" "$today" <<'PY'
import json, sys
path, pid, tier, mech, today = sys.argv[1:]
json.dump({"id": pid, "provider": "fixture", "name": "Fixture " + pid, "kind": "local",
           "tier": tier, "mechanism": mech, "since": today,
           "sources": [{"url": "https://example.org/" + pid, "quote": "q " + pid,
                        "publisher": "provider", "retrieved": today}],
           "history": [], "notes": "catalogue_overlay fixture"}, open(path, "w"))
PY
}
entry "$pkg" bubblewrap CONTAINER bubblewrap
entry "$pkg" runc CONTAINER runc
tier_of() { # tier_of BACKEND: resolved tier with the environment given
  "$bin" backends --catalogue "$pkg" --json | python3 -c 'import json,sys
print([b for b in json.load(sys.stdin) if b["backend"] == sys.argv[1]][0]["resolved_tier"])' "$1"; }

export ISOTIER_CATALOGUE_OVERLAY=$over
assert_eq "$(tier_of bwrap)" CONTAINER "an empty overlay changes nothing"

# The operator lowers one claim and adds an offering.
entry "$over" bubblewrap UNKNOWN bubblewrap
entry "$over" extra MICROVM firecracker
assert_eq "$(tier_of bwrap)" UNKNOWN "the overlay's entry replaces the packaged one"
assert_eq "$(tier_of runc)" CONTAINER "the others stay packaged"
"$bin" catalogue check --catalogue "$pkg" --json --expiries >"$TMP/c.json" || fail "check: $(cat "$TMP/c.json")"
assert_eq "$(json_get "$TMP/c.json" providers)" 3 "two packaged, one added, one replaced"
python3 - "$TMP/c.json" <<'PY' || fail "expiries: $(cat "$TMP/c.json")"
import json, sys
ids = sorted(e["id"] for e in json.load(open(sys.argv[1]))["expiries"])
assert ids == ["extra", "runc"], ids  # bubblewrap is UNKNOWN now
PY
# The report reads the same catalogue. A history to report from: one sources
# check of an entry whose page cannot be reached (127.0.0.1's discard port).
mkdir -p "$TMP/h"
python3 - "$TMP/h/x.json" <<'PY'
import json, sys
json.dump({"id": "x", "name": "x", "kind": "local", "tier": "UNKNOWN", "mechanism": "unknown",
           "since": "2026-01-01", "sources": [{"url": "http://127.0.0.1:9/", "quote": "q",
           "publisher": "provider", "retrieved": "2026-01-01"}], "history": [], "notes": "n"},
          open(sys.argv[1], "w"))
PY
NO_PROXY=127.0.0.1 ISOTIER_CATALOGUE_OVERLAY= "$bin" sources check --catalogue "$TMP/h" --db "$TMP/r.db" \
  --timeout 2 >/dev/null 2>&1 || true
[ -e "$TMP/r.db" ] || fail "no history was created"
"$bin" report --db "$TMP/r.db" --catalogue "$pkg" --today "$today" --format json >"$TMP/r.json" ||
  fail "report"
python3 - "$TMP/r.json" <<'PY' || fail "report: $(head -c 2000 "$TMP/r.json")"
import json, sys
p = {x["id"]: x for x in json.load(open(sys.argv[1]))["providers"]}
assert p["bubblewrap"]["tier"] == "UNKNOWN" and "extra" in p and "runc" in p, p
PY

# Unset, the packaged claim again; set and empty, no overlay.
(unset ISOTIER_CATALOGUE_OVERLAY; assert_eq "$(tier_of bwrap)" CONTAINER "no overlay")
assert_eq "$(ISOTIER_CATALOGUE_OVERLAY= tier_of bwrap)" CONTAINER "an empty setting is no overlay"
assert_contains "$(ISOTIER_CATALOGUE_OVERLAY= "$bin" paths)" "catalogue overlay  none" "paths: none"
assert_contains "$("$bin" paths)" "catalogue overlay  $over" "paths names the overlay"

# A damaged overlay entry never lets the packaged claim through.
echo '{"id": "bubblewrap", "tier": ' >"$over/bubblewrap.json"
assert_eq "$(tier_of bwrap)" UNKNOWN "a damaged overlay entry"
set +e
"$bin" catalogue check --catalogue "$pkg" >"$TMP/bad.out" 2>&1; rc=$?
set -e
assert_eq "$rc" 65 "catalogue check names the damaged overlay file: $(cat "$TMP/bad.out")"
assert_contains "$(cat "$TMP/bad.out")" "$over/bubblewrap.json" "the file named"
echo ok
