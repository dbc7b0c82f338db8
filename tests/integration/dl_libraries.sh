#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# dl_libraries.sh - issue 24: libxml2 and libgit2 are dlopen()ed by the commands that use them
# (verify/sources/dl_xml.c, verify/churn/dl_git.c), never linked: isotier has no NEEDED entry for
# them, --version and history do not load them, `churn log` and `sources check` load them and
# work, and with one of them unloadable the command fails naming it and its package (exit 69;
# `sources check` before it fetches or records anything).
source "$ISOTIER_ROOT/tests/lib.sh"
bin=$ISOTIER_BIN
[ -x "$bin" ] || fail "no $bin: build first"
command -v readelf >/dev/null || skip "readelf (binutils) is needed to read NEEDED entries"
command -v git >/dev/null || skip "git CLI not installed: it builds the fixture repository"
command -v python3 >/dev/null || skip "python3 is needed for the fixture HTTP server"

echo "== no NEEDED entry for libxml2 or libgit2"
needed=$(readelf -d "$bin" | grep NEEDED)
assert_contains "$needed" "libc.so" "readelf -d lists NEEDED entries"
if grep -qE 'libxml2|libgit2' <<<"$needed"; then fail "isotier links them: $needed"; fi

# loaded CMD...: the libraries the dynamic loader brought in for CMD (LD_DEBUG=libs), one a line.
loaded() { (LD_DEBUG=libs "$@" 2>&1 >/dev/null || true) | sed -n 's/.*calling init: //p'; }

echo "== --version and history do not load them"
libs=$(loaded "$bin" --version)
assert_contains "$libs" "libcurl" "LD_DEBUG=libs shows the loaded libraries"
if grep -qE 'libxml2|libgit2' <<<"$libs"; then fail "--version loads them: $libs"; fi
libs=$(loaded "$bin" history --db "$TMP/history.db")
assert_contains "$libs" "libsqlite3" "history loads SQLite"
if grep -qE 'libxml2|libgit2' <<<"$libs"; then fail "history loads them: $libs"; fi

echo "== churn log loads libgit2 and works"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
  GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1 HOME="$TMP"
mkdir -p "$TMP/repo/catalogue/providers"
cd "$TMP/repo"
git init -q -b main .
cat >catalogue/providers/alpha.json <<'JSON'
{"id": "alpha", "name": "Provider alpha", "kind": "remote", "tier": "CONTAINER", "mechanism": "runc",
 "since": "2026-11-01", "sources": [], "history": [], "notes": "fixture"}
JSON
git add -A . && git commit -q -m one
out=$("$bin" churn log 2>&1) || fail "churn log failed: $out"
assert_contains "$out" "added          CONTAINER/runc"
libs=$(loaded "$bin" churn log)
assert_contains "$libs" "libgit2.so" "churn log loads libgit2"
if grep -q libxml2 <<<"$libs"; then fail "churn log loads libxml2: $libs"; fi

echo "== sources check loads libxml2 and reads the page"
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
python3 "$ISOTIER_ROOT/tests/tools/fixture_server.py" --root "$ISOTIER_ROOT/tests/fixtures/sources" \
  --port-file "$TMP/port" --lifetime 60 --log "$TMP/requests.log" &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || fail "fixture server did not start"
mkdir -p "$TMP/cat"
cat >"$TMP/cat/present.json" <<JSON
{"id": "present", "name": "Fixture present", "kind": "remote", "tier": "UNKNOWN", "mechanism": "unknown",
 "since": "2026-01-01", "history": [], "notes": "dl_libraries fixture",
 "sources": [{"url": "http://127.0.0.1:$(cat "$TMP/port")/page/present.html",
              "quote": "Each sandbox runs in its own Firecracker microVM", "publisher": "provider",
              "retrieved": "2026-11-30"}]}
JSON
sources() { "$bin" sources check --catalogue "$TMP/cat" --db "$TMP/s.db" --timeout 5 --json "$@"; }
out=$(sources 2>"$TMP/err") || fail "sources check failed: $(cat "$TMP/err") $out"
status() { python3 -c 'import json,sys; print(json.load(sys.stdin)["sources"][0]["status"])' <<<"$1"; }
assert_eq "$(status "$out")" PRESENT "the page's text was read (libxml2)"
libs=$(loaded sources)
assert_contains "$libs" "libxml2.so" "sources check loads libxml2"

echo "== an unloadable library is an error naming it and its package, not a crash"
lib=$(grep -m1 libgit2.so <<<"$(loaded "$bin" churn log)")
if ! unshare -rm true 2>/dev/null; then
  echo "no user namespaces here: the unloadable-library case is not run"
  exit 0
fi
set +e
out=$(unshare -rm sh -c 'mount --bind /dev/null "$1" && cd "$2" && exec "$3" churn log' sh \
  "$lib" "$TMP/repo" "$bin" 2>&1)
rc=$?
set -e
assert_eq "$rc" 69 "churn without libgit2: EX_UNAVAILABLE ($out)"
assert_contains "$out" "libgit2 is not available (install the Debian package libgit2-1.5)"
xml=$(grep -m1 libxml2.so <<<"$(loaded sources)")
set +e
out=$(unshare -rm sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$xml" \
  "$bin" sources check --catalogue "$TMP/cat" --db "$TMP/s2.db" --timeout 5 --json 2>&1)
rc=$?
set -e
# Refused before any fetch or history row (never every page read UNREACHABLE, as it was).
assert_eq "$rc" 69 "sources check without libxml2: EX_UNAVAILABLE ($out)"
assert_contains "$out" "libxml2 is not available (install the Debian package libxml2)"
! grep -q '"status"' <<<"$out" || fail "sources check without libxml2 printed results: $out"
[ ! -e "$TMP/s2.db" ] || [ "$(sqlite3 "$TMP/s2.db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)" = 0 ] ||
  fail "sources check without libxml2 recorded a run"
echo "ok"
