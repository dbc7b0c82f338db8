#!/usr/bin/env bash
# The vercel backend against tests/tools/vercel_emulator.py (a test fixture
# speaking the Vercel Sandbox API as its client calls it, a real bwrap sandbox
# behind every create, the probe's tarball really gunzipped and untarred):
# MICROVM claim CONTRADICTED on one kernel, CONSISTENT on two; team/project
# named when missing; a create answered 500 swept by name; a stop that fails
# is a leak (70); the planted token is in no output.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v bwrap >/dev/null || skip "bwrap is not installed (the emulator's sandboxes)"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
bwrap --unshare-all --ro-bind / / true 2>/dev/null || skip "bwrap cannot create namespaces here"
KEY="vcl-PLANTED-$$-$RANDOM-secret"
EMU_PID=
stop_emu() { [ -z "$EMU_PID" ] || { kill "$EMU_PID" 2>/dev/null; wait "$EMU_PID" 2>/dev/null || true; }; EMU_PID=; }
trap 'stop_emu; rm -rf "$TMP"' EXIT
emu() {
  local name=$1; shift
  stop_emu
  D=$TMP/$name; mkdir -p "$D/state"
  python3 "$ISOTIER_ROOT/tests/tools/vercel_emulator.py" --port-file "$D/port" --key "$KEY" \
    --team team_emu --project prj_emu --state "$D/state" --ledger "$D/ledger" --log "$D/requests" \
    --lifetime 120 "$@" &
  EMU_PID=$!
  for _ in $(seq 50); do [ -s "$D/port" ] && break; sleep 0.1; done
  [ -s "$D/port" ] || fail "$name: the emulator did not start"
  export VERCEL_TOKEN=$KEY VERCEL_TEAM_ID=team_emu VERCEL_PROJECT_ID=prj_emu
  export ISOTIER_VERCEL_API_URL="http://127.0.0.1:$(cat "$D/port")"
  touch "$D/ledger"
}
verify_vercel() {
  local name=$1; shift
  set +e
  "$ISOTIER_BIN" verify --backend vercel --db "$D/h.db" --timeout 20 "$@" >"$D/out" 2>"$D/err"
  rc=$?
  set -e
  for f in "$D/out" "$D/err"; do ! grep -qF "$KEY" "$f" || fail "$name: the token appears in $f"; done
  [ ! -f "$D/h.db" ] || ! sqlite3 "$D/h.db" .dump | grep -qF "$KEY" || fail "$name: the token is in the history"
}
all_deleted() {
  local created deleted
  created=$(grep -c '^create ' "$D/ledger" || true)
  deleted=$(grep -c '^delete ' "$D/ledger" || true)
  [ "$created" -ge "${2:-1}" ] || fail "$1: $created sandboxes created"
  assert_eq "$deleted" "$created" "$1: sandboxes stopped of those created ($(cat "$D/ledger"))"
}
row() { sqlite3 "$D/h.db" "SELECT verdict, kernel_relation, observed_tier FROM observations ORDER BY id DESC LIMIT 1"; }

emu shared
verify_vercel shared
assert_eq "$rc" 1 "shared kernel: exit ($(cat "$D/out" "$D/err"))"
grep -Eq '^vercel +MICROVM \(firecracker\) +CONTAINER \(bubblewrap\) +CONTRADICTED' "$D/out" || fail "shared: $(cat "$D/out")"
assert_eq "$(row)" "CONTRADICTED|shared|CONTAINER" "shared: stored row"
all_deleted shared 2
echo "ok: shared kernel -> CONTRADICTED"

emu dedicated --identity fake
verify_vercel dedicated
assert_eq "$rc" 0 "dedicated: exit ($(cat "$D/out"))"
assert_eq "$(row)" "CONSISTENT|dedicated|CONTAINER" "dedicated: stored row"
all_deleted dedicated 2
echo "ok: a kernel each -> CONSISTENT"

emu nocred
set +e
env -u VERCEL_PROJECT_ID "$ISOTIER_BIN" verify --backend vercel --db "$D/h.db" >"$D/out" 2>&1; rc=$?
set -e
assert_eq "$rc" 69 "no project: exit"
assert_contains "$(cat "$D/out")" "not configured: set VERCEL_PROJECT_ID"
echo "ok: no project -> UNAVAILABLE naming VERCEL_PROJECT_ID"

emu create500 --fault create-500
verify_vercel create500
assert_eq "$rc" 70 "create 500: exit"
assert_eq "$(grep -c '^POST /v3/sandboxes$' "$D/requests")" 2 "create 500: no blind retry"
all_deleted create500 2
echo "ok: create 500 -> found by name, stopped"

emu leak --fault stop-fail
verify_vercel leak
assert_eq "$rc" 70 "leak: exit"
for id in $(sed -n 's/^create //p' "$D/ledger"); do
  assert_contains "$(cat "$D/err")" "$id" "leak: session id named"
done
echo "ok: failed stop -> LEAK with ids"
