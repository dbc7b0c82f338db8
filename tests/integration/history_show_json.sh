#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# `history show ID --json` reads a tampered or corrupt history as strictly as
# isotier writes it (issue 25, defect 6): a stored document with a duplicate
# key is shown as null with a warning (one reading, never two), and bytes that
# are not UTF-8 in any column come out as U+FFFD: the output is valid UTF-8
# JSON, strictly decoded, with no object holding a key twice.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
db=$TMP/h.db
"$ISOTIER_BIN" verify --backend host --db "$db" >/dev/null 2>&1 || fail "verify on host to seed the history"
id=$(sqlite3 "$db" "SELECT max(id) FROM observations")
[ -n "$id" ] || fail "no observation stored"
# Tamper as a corrupt disk or a hostile editor would: 0xff, a lone
# continuation byte and a truncated sequence in text columns and inside the
# stored JSON documents' strings; a key given twice in the probe document.
sqlite3 "$db" "UPDATE observations SET
  reason = CAST(X'62616420FF20C0AF20E282' AS TEXT),
  layers_json = CAST(X'5B7B226B696E64223A2261FF62227D5D' AS TEXT),
  probe_json = '{\"tier\":\"CONTAINER\",\"tier\":\"MICROVM\"}'
  WHERE id = $id" || fail "could not tamper with the history"

rc=0
"$ISOTIER_BIN" history show "$id" --json --db "$db" >"$TMP/out" 2>"$TMP/err" || rc=$?
assert_eq "$rc" 0 "history show --json on a tampered row ($(cat "$TMP/err"))"
python3 - "$TMP/out" <<'PY' || fail "history show --json: not strict UTF-8 JSON with one reading: $(head -c 600 "$TMP/out")"
import json, sys
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8", "strict")          # raises on any invalid byte
def one_reading(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), "a key given twice: %r" % keys
    return dict(pairs)
doc = json.loads(text, object_pairs_hook=one_reading)
assert "\ufffd" in doc["reason"], doc["reason"]
assert doc["probe"] is None, doc["probe"]      # two readings: none shown
assert "\ufffd" in json.dumps(doc["layers"], ensure_ascii=False), doc["layers"]
PY
assert_contains "$(cat "$TMP/err")" "duplicate key"
assert_contains "$(cat "$TMP/err")" "(shown as null)"
echo "history show --json: a tampered row prints as valid UTF-8 JSON, one reading"
