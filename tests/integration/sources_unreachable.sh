#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# sources_unreachable.sh - whoever can block most sources must not keep the
# drift gate green (cmd_sources.c, --max-unreachable): 3 of 4 sources
# UNREACHABLE (a closed port on 127.0.0.1) and one PRESENT (a real HTTP server
# on 127.0.0.1) is no check: exit 75, the run stored as failed; half of them is
# still a check (0); the threshold is configurable.
. "$ISOTIER_ROOT/tests/lib.sh"

today=$(date -u +%F)
mkdir -p "$TMP/www"
echo '<html><body><main><p>Bubblewrap uses user namespaces to build the sandbox.</p></main></body></html>' >"$TMP/www/ok.html"
python3 "$ISOTIER_ROOT/tests/tools/fixture_server.py" --root "$TMP/www" --port-file "$TMP/port" --lifetime 120 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
[ -s "$TMP/port" ] || fail "fixture server did not start"
ok="http://127.0.0.1:$(cat "$TMP/port")/page/ok.html"
closed="http://127.0.0.1:9/nothing"  # discard: nothing listens

# catalogue DIR N_UNREACHABLE: one entry whose source answers, three more of
# which N point at the closed port.
catalogue() {
  rm -rf "$1"
  mkdir -p "$1"
  for i in 1 2 3 4; do
    url=$ok
    [ "$i" -gt 1 ] && [ "$((i - 1))" -le "$2" ] && url=$closed
    cat >"$1/p$i.json" <<JSON
{"id": "p$i", "name": "P$i", "kind": "remote", "tier": "CONTAINER", "mechanism": "bubblewrap",
 "since": "$today", "sources": [{"url": "$url", "quote": "Bubblewrap uses user namespaces to build the sandbox.",
 "publisher": "provider", "retrieved": "$today", "title": "fixture"}], "history": [], "notes": "fixture"}
JSON
  done
}

# check N_UNREACHABLE [ARGS...]: sources check's exit status.
check() {
  local n=$1
  shift
  catalogue "$TMP/cat$n" "$n"
  set +e
  "$ISOTIER_BIN" sources check --catalogue "$TMP/cat$n" --db "$TMP/h.db" --baseline "$TMP/none.json" \
    --timeout 5 "$@" >"$TMP/out" 2>"$TMP/err"
  echo $?
  set -e
}

assert_eq "$(check 3)" 75 "3 of 4 unreachable ($(cat "$TMP/err"))"
assert_contains "$(cat "$TMP/err")" "3 of 4 sources were UNREACHABLE, more than 50%"
if grep -q 'UNREACHABLE: nothing was checked' "$TMP/err"; then fail "called offline: $(cat "$TMP/err")"; fi
assert_eq "$(sql "$TMP/h.db" "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" failed "the run is stored as failed"
assert_eq "$(check 2)" 0 "2 of 4 unreachable: half is still a check ($(cat "$TMP/err"))"
assert_eq "$(check 3 --max-unreachable 80)" 0 "3 of 4 with --max-unreachable 80 ($(cat "$TMP/err"))"
assert_eq "$(check 2 --max-unreachable 25)" 75 "2 of 4 with --max-unreachable 25"
echo "ok: most sources unreachable is not a check"
