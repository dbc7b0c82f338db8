#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# catalogue_check: `isotier catalogue check` fails every fixture catalogue under
# tests/fixtures/catalogue/<rule>/ with the expected messages (naming file and
# field, in text and --json output), passes the valid ones, and passes the real
# catalogue/providers.
. "$(dirname "$0")/../lib.sh"
bin=$ISOTIER_BIN
[ -x "$bin" ] || fail "no isotier binary at $bin"
fixtures=$ISOTIER_ROOT/tests/fixtures/catalogue
today=2026-12-01 # fixtures are dated against this day
n_rules=0

for dir in "$fixtures"/*/; do
  dir=${dir%/}
  rule=$(basename "$dir")
  [ -f "$dir/expect" ] || fail "$rule: no expect file"
  want_rc=0
  grep -q '^error|' "$dir/expect" && want_rc=65
  set +e
  out=$("$bin" catalogue check --catalogue "$dir" --today "$today" 2>&1)
  rc=$?
  "$bin" catalogue check --catalogue "$dir" --today "$today" --json >"$TMP/$rule.json" 2>"$TMP/$rule.err"
  jrc=$?
  set -e
  assert_eq "$rc" "$want_rc" "$rule: exit status (output: $out)"
  assert_eq "$jrc" "$want_rc" "$rule: --json exit status"
  while IFS='|' read -r sev file field msg; do
    case $sev in '#'*|'') continue ;; esac
    # Text: "<dir>/<file>: <field>: <severity>: ...<msg>..."
    prefix="$dir/$file: ${field:+$field: }$sev: "
    grep -F -- "$prefix" <<<"$out" | grep -qF -- "$msg" ||
      fail "$rule: expected '$prefix...$msg...' in:
$out"
    python3 - "$TMP/$rule.json" "$sev" "$dir/$file" "$field" "$msg" <<'PY' || fail "$rule: --json lacks $sev $file $field '$msg'"
import json, sys
path, sev, file, field, msg = sys.argv[1:]
d = json.load(open(path))
assert d["ok"] == (d["errors"] == 0)
assert any(f["severity"] == sev and f["file"] == file and f["field"] == field and msg in f["message"]
           for f in d["findings"]), d["findings"]
PY
  done <"$dir/expect"
  n_rules=$((n_rules + 1))
done
[ "$n_rules" -ge 20 ] || fail "only $n_rules fixture catalogues found"

# --max-age widens the window: the stale source passes at 200 days.
set +e
out=$("$bin" catalogue check --catalogue "$fixtures/stale-source" --today "$today" --max-age 200 2>&1)
rc=$?
set -e
assert_eq "$rc" 0 "stale-source with --max-age 200 ($out)"
# ...and the default window moves with --today: the valid fixture goes stale.
set +e
out=$("$bin" catalogue check --catalogue "$fixtures/valid" --today 2027-06-01 2>&1)
rc=$?
set -e
assert_eq "$rc" 65 "valid fixture judged in 2027"
assert_contains "$out" "sources[0].retrieved: error: retrieved 2026-11-20, 193 days ago"

# Bad arguments are usage errors, a missing directory is not a pass.
set +e
"$bin" catalogue check --today 2026-02-30 >/dev/null 2>&1; rc1=$?
"$bin" catalogue check --max-age -3 >/dev/null 2>&1; rc2=$?
"$bin" catalogue check --catalogue "$TMP/nonexistent" >/dev/null 2>&1; rc3=$?
set -e
assert_eq "$rc1" 64 "--today 2026-02-30"
assert_eq "$rc2" 64 "--max-age -3"
[ "$rc3" -ne 0 ] || fail "a missing catalogue directory passed"

# Hostile input: a file over the 256 KiB cap is reported, not parsed.
mkdir "$TMP/huge"
python3 -c 'import json; print(json.dumps({"id": "huge", "notes": "x" * 300000}))' >"$TMP/huge/huge.json"
set +e
out=$("$bin" catalogue check --catalogue "$TMP/huge" 2>&1)
rc=$?
set -e
assert_eq "$rc" 65 "oversized file"
assert_contains "$out" "$TMP/huge/huge.json: error:"
assert_contains "$out" "larger than 262144 bytes"

# The JSON Schema agrees with the validator on the real catalogue and the
# valid fixtures, and rejects the schema-expressible fixture failures.
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - "$ISOTIER_ROOT" <<'PY' || fail "provider.schema.json disagrees with the validator"
import glob, json, sys, jsonschema
root = sys.argv[1]
schema = json.load(open(root + "/catalogue/provider.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for f in glob.glob(root + "/catalogue/providers/*.json") + glob.glob(root + "/tests/fixtures/catalogue/valid/*.json"):
    errs = [e.message for e in v.iter_errors(json.load(open(f)))]
    assert not errs, (f, errs)
for rule in ["bad-mechanism", "bad-tier", "bad-vocabulary", "mechanism-contradicts-tier", "missing-field",
             "mistyped-field", "no-provider-source", "unknown-field", "empty-quote", "no-sources", "malformed-date",
             "offering-status"]:
    for f in glob.glob(root + "/tests/fixtures/catalogue/%s/*.json" % rule):
        assert list(v.iter_errors(json.load(open(f)))), ("schema accepts", f)
for name in ["offering-renamed/new-a", "offering-renamed/not-a-list", "offering-provider/bad-provider"]:
    f = root + "/tests/fixtures/catalogue/%s.json" % name  # cross-file rules are the validator's alone
    assert list(v.iter_errors(json.load(open(f)))), ("schema accepts", f)
PY
else
  echo "note: python3 jsonschema missing; schema cross-check not run"
fi

# The real catalogue passes (warnings allowed), in text and JSON.
real=$ISOTIER_ROOT/catalogue/providers
n_real=$(find "$real" -maxdepth 1 -name '*.json' | wc -l)
[ "$n_real" -gt 0 ] || fail "catalogue/providers has no entries"
set +e
out=$("$bin" catalogue check --catalogue "$real" 2>&1)
rc=$?
set -e
assert_eq "$rc" 0 "the real catalogue must pass: $out"
"$bin" catalogue check --catalogue "$real" --json >"$TMP/real.json"
assert_eq "$(json_get "$TMP/real.json" ok)" True "real catalogue --json ok"
assert_eq "$(json_get "$TMP/real.json" providers)" "$n_real" "every real file loaded"
# An empty directory (a wrong --catalogue) is an error, not a valid catalogue.
mkdir -p "$TMP/empty-catalogue"
set +e
out=$("$bin" catalogue check --catalogue "$TMP/empty-catalogue" 2>&1)
rc=$?
set -e
assert_eq "$rc" 65 "empty catalogue directory"
assert_contains "$out" "no provider files"
echo "catalogue_check: $n_rules fixture catalogues and $n_real real providers checked"
