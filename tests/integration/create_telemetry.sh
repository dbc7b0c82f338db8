#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# Audit events (JSON Lines, fsync'd, and the history) and OTLP/JSON spans
# received by a real HTTP listener on 127.0.0.1 carry the tier; a collector
# that is down costs a warning, never the operation.
. "$ISOTIER_ROOT/tests/lib.sh"
python3 "$ISOTIER_ROOT/tests/tools/otlp_listener.py" "$TMP/spans.jsonl" 120 >"$TMP/port" &
listener=$!
trap 'kill $listener 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
port=$(cat "$TMP/port")
[ -n "$port" ] || fail "OTLP listener did not start"

set +e
out=$("$ISOTIER_BIN" run --new-db --backend runc --require-isolation CONTAINER --db "$TMP/h.db" \
  --audit-log "$TMP/audit.jsonl" --otlp-endpoint "http://127.0.0.1:$port/v1/traces" \
  --otlp-file "$TMP/spans-file.jsonl" -- /bin/sh -c 'echo out; echo err >&2; exit 3' 2>"$TMP/err")
rc=$?
set -e
python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
audit = [json.loads(l) for l in open(d + "/audit.jsonl")]
assert [e["event"] for e in audit] == ["create", "exec", "destroy"], audit
for e in audit:
    assert e["backend"] == "runc" and e["resolved_tier"] == "CONTAINER" and e["required_tier"] == "CONTAINER", e
assert audit[1]["exit_status"] == 3, audit[1]
for name in ("spans.jsonl", "spans-file.jsonl"):
    spans = []
    for line in open(d + "/" + name):
        doc = json.loads(line)
        for rs in doc["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                spans.extend(ss["spans"])
    assert [s["name"] for s in spans] == ["isotier.create", "isotier.exec", "isotier.destroy"], (name, spans)
    for s in spans:
        attrs = {a["key"]: a["value"]["stringValue"] for a in s["attributes"]}
        assert attrs["isolation.tier"] == "CONTAINER" and attrs["isolation.required_tier"] == "CONTAINER", attrs
        assert attrs["isotier.backend"] == "runc", attrs
        assert len(s["traceId"]) == 32 and len(s["spanId"]) == 16, s
    assert len({s["traceId"] for s in spans}) == 1, "one trace per sandbox"
PY
n=$(sqlite3 "$TMP/h.db" "SELECT count(*) FROM audit_events WHERE backend='runc' AND resolved_tier='CONTAINER'")
assert_eq "$n" 3 "audit events in history"
assert_eq "$rc" 3 "exit status relayed"
assert_eq "$out" out "stdout relayed"
assert_contains "$(cat "$TMP/err")" err "stderr relayed"

# Collector down: a closed port. The run succeeds; a warning is printed.
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
out=$("$ISOTIER_BIN" run --new-db --backend bwrap --otlp-endpoint "http://127.0.0.1:$closed/v1/traces" -- /bin/echo fine 2>"$TMP/err2")
assert_eq "$out" fine "run with the collector down"
assert_contains "$(cat "$TMP/err2")" "warning: OTLP export to http://127.0.0.1:$closed/v1/traces failed"

# A refusal is a span too, with an error status.
set +e
"$ISOTIER_BIN" run --new-db --backend bwrap --require-isolation MICROVM --otlp-file "$TMP/refuse.jsonl" -- /bin/true 2>/dev/null
set -e
python3 - "$TMP/refuse.jsonl" <<'PY'
import json, sys
doc = json.loads(open(sys.argv[1]).readline())
s = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
attrs = {a["key"]: a["value"]["stringValue"] for a in s["attributes"]}
assert s["name"] == "isotier.refuse" and s["status"]["code"] == 2, s
assert attrs["isolation.tier"] == "CONTAINER" and attrs["isolation.required_tier"] == "MICROVM", attrs
assert attrs["isotier.decision"] == "refused", attrs
assert attrs["isolation.effective_tier"] == "CONTAINER", attrs
PY
echo "ok: audit events and spans carry the tier"
