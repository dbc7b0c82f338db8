#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# `sources check` whose run's one sync of the history fails (its durability
# point, history_sqlite.c) reports no check stored, in text and --json, says
# why, and exits with the I/O error (74). Against a real HTTP server on
# 127.0.0.1 (tests/tools/fixture_server.py).
. "$ISOTIER_ROOT/tests/lib.sh"
command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh installs it)"
command -v python3 >/dev/null || skip "python3 is needed for the fixture HTTP server"
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
python3 "$ISOTIER_ROOT/tests/tools/fixture_server.py" --root "$ISOTIER_ROOT/tests/fixtures/sources" \
  --port-file "$TMP/port" --lifetime 60 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || fail "fixture server did not start"
base="http://127.0.0.1:$(cat "$TMP/port")"
mkdir "$TMP/cat"
for id in one two; do
  cat >"$TMP/cat/$id.json" <<JSON
{"id": "$id", "name": "Fixture $id", "kind": "remote", "tier": "UNKNOWN", "mechanism": "unknown",
 "since": "2026-01-01", "history": [], "notes": "sources_check_sync fixture",
 "sources": [{"url": "$base/page/present.html", "quote": "Each sandbox runs in its own Firecracker microVM",
              "publisher": "provider", "retrieved": "2026-11-30"}]}
JSON
done
db=$TMP/h.db
check() { "$ISOTIER_BIN" sources check --catalogue "$TMP/cat" --db "$db" --timeout 10 "$@"; }
eio() { strace -f -qq -o /dev/null -e trace=fdatasync -e inject=fdatasync:error=EIO "$@"; }

# One run first: the log exists, so the only sync left to fail is isotier's.
out=$(check 2>&1) || fail "sources check: $out"
assert_contains "$out" "2 of 2 checked: 2 PRESENT"
set +e
eio "$ISOTIER_BIN" sources check --catalogue "$TMP/cat" --db "$db" --timeout 10 >"$TMP/eio" 2>"$TMP/eio.err"
rc=$?
eio "$ISOTIER_BIN" sources check --catalogue "$TMP/cat" --db "$db" --timeout 10 --json >"$TMP/eio.json" 2>/dev/null
jrc=$?
set -e
assert_eq "$rc" 74 "sources check whose sync failed ($(cat "$TMP/eio" "$TMP/eio.err"))"
assert_eq "$jrc" 74 "sources check --json whose sync failed"
err=$(cat "$TMP/eio.err")
assert_contains "$err" "NOT known to be stored: the history could not be synced"
assert_contains "$err" "Input/output error"
! grep -q "still reads 'running'" <<<"$err" || fail "says the run still reads 'running': $err"
assert_eq "$(grep -c 'NOT stored]' "$TMP/eio")" 2 "checks marked NOT stored in the table"
assert_contains "$(cat "$TMP/eio")" "2 of 2 checked: 2 PRESENT, 0 CHANGED, 0 GONE, 0 UNREACHABLE; 2 NOT stored"
python3 - "$TMP/eio.json" <<'PY' || fail "--json: $(cat "$TMP/eio.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["counts"]["not_stored"] == 2, d["counts"]
assert [s["stored"] for s in d["sources"]] == [False, False], d["sources"]
PY
echo "ok: a sources check whose sync failed stores nothing it reports"
