#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# The report's latest is the newest observed, not the last written: an OLDER
# CONFIRMED observation imported after a NEWER CONTRADICTED one of the same
# backend and provider hides no contradiction (history import, the real CLI).
. "$ISOTIER_ROOT/tests/lib.sh"
obs() { # uuid observed_at verdict
  cat <<JSONL
{"type":"header","schema":"isotier.history.export/1","history_schema":9,"tool_version":"0.1.0"}
{"type":"run","uuid":"r-$1","started_at":"$2","finished_at":"$2","tool_version":"0.1.0","catalogue_commit":"abc","command":"verify","status":"ok","host":"elsewhere","host_id":null,"kernel":null}
{"type":"observation","uuid":"o-$1","run_uuid":"r-$1","observed_at":"$2","backend":"bwrap","provider_id":"bubblewrap","claimed_tier":"CONTAINER","observed_tier":"NONE","verdict":"$3","reason":"imported $1"}
JSONL
}
obs new 2026-11-20T08:00:00Z CONTRADICTED >"$TMP/new.jsonl"
obs old 2026-10-01T08:00:00Z CONFIRMED >"$TMP/old.jsonl"
for f in new old; do
  out=$("$ISOTIER_BIN" history import --db "$TMP/h.db" "$TMP/$f.jsonl" 2>&1) || fail "import $f: $out"
done
"$ISOTIER_BIN" report --db "$TMP/h.db" --no-catalogue --format json >"$TMP/r.json" 2>"$TMP/r.err" \
  || true
python3 - "$TMP/r.json" <<'PY' || fail "report: $(head -c 3000 "$TMP/r.json") $(cat "$TMP/r.err")"
import json, sys
d = json.load(open(sys.argv[1]))
lv = d["summary"]["latest_verdicts"]
assert lv["CONTRADICTED"] == 1 and lv["CONFIRMED"] == 0, lv
row = d["matrix"][0]
assert (row["latest_observation_id"], row["verdict"]) == (1, "CONTRADICTED"), row
assert [h["observation_id"] for h in d["hosts"]] == [1], d["hosts"]
PY
echo "ok: an old observation imported late does not hide a newer contradiction"
