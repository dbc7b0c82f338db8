#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# create_offering: create() resolves a backend's tier per catalogue offering
# (v2): a backend whose catalogue id was renamed (renamed_from) still resolves
# to the renamed entry; a deprecated offering still resolves and says so; a
# retired one resolves to UNKNOWN and a requirement is refused before anything
# is provisioned.
. "$ISOTIER_ROOT/tests/lib.sh"
cat_src=$ISOTIER_ROOT/catalogue/providers

# offering_catalogue DIR PYTHON: a copy of the real catalogue, bubblewrap.json edited by PYTHON (d).
offering_catalogue() {
  mkdir -p "$1" && cp "$cat_src"/*.json "$1"/
  python3 - "$1" "$2" <<'PY'
import json, os, sys
d_dir, code = sys.argv[1], sys.argv[2]
path = os.path.join(d_dir, "bubblewrap.json")
d = json.load(open(path))
exec(code)
os.remove(path)
json.dump(d, open(os.path.join(d_dir, d["id"] + ".json"), "w"), indent=1)
PY
}
# backend_row CATALOGUE: the bwrap row of `isotier backends --json` as "claimed|resolved|provider|reason".
backend_row() {
  ISOTIER_DB=$(empty_history "$TMP/none.db") "$ISOTIER_BIN" backends --catalogue "$1" --json >"$TMP/b.json"
  python3 - "$TMP/b.json" <<'PY'
import json, sys
r = {x["backend"]: x for x in json.load(open(sys.argv[1]))}["bwrap"]
print("%s|%s|%s|%s" % (r["claimed_tier"], r["resolved_tier"], r["provider_id"], r["reason"]))
PY
}
SS='{"date": "2026-11-01", "url": "https://example.org/notice", "quote": "bwrap is going away"}'

echo "== a renamed offering: the backend's old catalogue id resolves to the new entry"
offering_catalogue "$TMP/renamed" 'd["id"] = "bubblewrap-userns"; d["renamed_from"] = ["bubblewrap"]'
"$ISOTIER_BIN" catalogue check --catalogue "$TMP/renamed" >/dev/null || fail "renamed catalogue does not validate"
row=$(backend_row "$TMP/renamed")
assert_eq "${row%%|*}" CONTAINER "renamed: claim"
assert_contains "$row" "CONTAINER|CONTAINER|bubblewrap-userns|catalogue entry bubblewrap-userns"
# Without renamed_from the old id is simply gone: UNKNOWN, with the reason.
offering_catalogue "$TMP/gone" 'd["id"] = "bubblewrap-userns"'
row=$(backend_row "$TMP/gone")
assert_contains "$row" "|UNKNOWN|" "no rename: unresolved"
assert_contains "$row" "no usable catalogue entry" "no rename: reason"

echo "== a deprecated offering still resolves and says so"
offering_catalogue "$TMP/deprecated" "d['status'] = 'deprecated'; d['status_source'] = json.loads('$SS')"
"$ISOTIER_BIN" catalogue check --catalogue "$TMP/deprecated" >/dev/null || fail "deprecated catalogue does not validate"
row=$(backend_row "$TMP/deprecated")
assert_contains "$row" "CONTAINER|CONTAINER|bubblewrap|" "deprecated: still resolves"
assert_contains "$row" "deprecated since 2026-11-01" "deprecated: reason"

echo "== a retired offering resolves to UNKNOWN and a requirement is refused"
offering_catalogue "$TMP/retired" "d['status'] = 'retired'; d['status_source'] = json.loads('$SS')"
row=$(backend_row "$TMP/retired")
assert_contains "$row" "CONTAINER|UNKNOWN|bubblewrap|catalogue offering bubblewrap is retired" "retired"
set +e
"$ISOTIER_BIN" run --new-db --db "$TMP/h.db" --backend bwrap --catalogue "$TMP/retired" --require-isolation CONTAINER -- /bin/echo provisioned \
  >"$TMP/retired.out" 2>"$TMP/retired.err"
rc=$?
set -e
assert_eq "$rc" 78 "retired: refused"
assert_contains "$(cat "$TMP/retired.err")" "is retired" "retired: reason"
[ ! -s "$TMP/retired.out" ] || fail "retired: the command ran"

echo "== a status without the provider's words does not validate, so it defends nothing"
offering_catalogue "$TMP/unsourced" "d['status'] = 'deprecated'"
row=$(backend_row "$TMP/unsourced")
assert_contains "$row" "|UNKNOWN|" "deprecated without status_source"
assert_contains "$row" "status_source" "reason names the field"
echo "ok: create() resolves per offering"
