#!/usr/bin/env bash
# The daytona backend against tests/tools/daytona_emulator.py (a test fixture
# speaking Daytona's API and toolbox, a real bwrap sandbox behind every
# create): Daytona's entry stays UNKNOWN and the verdict says what was observed;
# a MICROVM claim (a catalogue variant) is CONTRADICTED by two sandboxes on one
# kernel and CONSISTENT with a kernel each; both deleted on every path; a
# delete that fails is a leak (70); the planted key is in no output.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v bwrap >/dev/null || skip "bwrap is not installed (the emulator's sandboxes)"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
bwrap --unshare-all --ro-bind / / true 2>/dev/null || skip "bwrap cannot create namespaces here"
KEY="dtn-PLANTED-$$-$RANDOM-secret"
EMU_PID=
stop_emu() { [ -z "$EMU_PID" ] || { kill "$EMU_PID" 2>/dev/null; wait "$EMU_PID" 2>/dev/null || true; }; EMU_PID=; }
trap 'stop_emu; rm -rf "$TMP"' EXIT
python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$ISOTIER_ROOT/catalogue/providers" \
  "$TMP/cat-microvm" daytona claim=MICROVM/firecracker

emu() {
  local name=$1; shift
  stop_emu
  D=$TMP/$name; mkdir -p "$D/state"
  python3 "$ISOTIER_ROOT/tests/tools/daytona_emulator.py" --port-file "$D/port" --key "$KEY" \
    --state "$D/state" --ledger "$D/ledger" --log "$D/requests" --lifetime 120 "$@" &
  EMU_PID=$!
  for _ in $(seq 50); do [ -s "$D/port" ] && break; sleep 0.1; done
  [ -s "$D/port" ] || fail "$name: the emulator did not start"
  export DAYTONA_API_KEY=$KEY ISOTIER_DAYTONA_API_URL="http://127.0.0.1:$(cat "$D/port")/api"
  touch "$D/ledger"
}
verify_dt() {
  local name=$1; shift
  set +e
  "$ISOTIER_BIN" verify --backend daytona --db "$D/h.db" --timeout 20 "$@" >"$D/out" 2>"$D/err"
  rc=$?
  set -e
  for f in "$D/out" "$D/err"; do ! grep -qF "$KEY" "$f" || fail "$name: the API key appears in $f"; done
  [ ! -f "$D/h.db" ] || ! sqlite3 "$D/h.db" .dump | grep -qF "$KEY" || fail "$name: the API key is in the history"
}
all_deleted() {
  local created deleted
  created=$(grep -c '^create ' "$D/ledger" || true)
  deleted=$(grep -c '^delete ' "$D/ledger" || true)
  [ "$created" -ge "${2:-1}" ] || fail "$1: $created sandboxes created"
  assert_eq "$deleted" "$created" "$1: sandboxes deleted of those created ($(cat "$D/ledger"))"
}
row() { sqlite3 "$D/h.db" "SELECT verdict, kernel_relation, observed_tier FROM observations ORDER BY id DESC LIMIT 1"; }

emu unknown
verify_dt unknown
assert_eq "$rc" 0 "UNKNOWN claim: exit ($(cat "$D/out" "$D/err"))"
assert_contains "$(cat "$D/out")" "the claim is UNKNOWN, nothing to judge; observed CONTAINER"
assert_eq "$(row)" "INCONCLUSIVE|shared|CONTAINER" "UNKNOWN claim: stored row"
assert_contains "$(sqlite3 "$D/h.db" 'SELECT reason FROM observations')" "daytona reported: sandbox class container (none asked for"
all_deleted unknown 2
echo "ok: UNKNOWN stays unjudged, what was observed is recorded"

emu shared
verify_dt shared --catalogue "$TMP/cat-microvm"
assert_eq "$rc" 1 "MICROVM claim, shared kernel: exit ($(cat "$D/out"))"
assert_eq "$(row)" "CONTRADICTED|shared|CONTAINER" "shared: stored row"
all_deleted shared 2
echo "ok: MICROVM claim on one kernel -> CONTRADICTED"

emu dedicated --identity fake
verify_dt dedicated --catalogue "$TMP/cat-microvm"
assert_eq "$rc" 0 "MICROVM claim, a kernel each: exit ($(cat "$D/out"))"
assert_eq "$(row)" "CONSISTENT|dedicated|CONTAINER" "dedicated: stored row"
all_deleted dedicated 2
echo "ok: a kernel each -> CONSISTENT"

emu nocred
set +e
env -u DAYTONA_API_KEY "$ISOTIER_BIN" verify --backend daytona --db "$D/h.db" >"$D/out" 2>&1; rc=$?
set -e
assert_eq "$rc" 69 "no credentials: exit"
assert_contains "$(cat "$D/out")" "not configured: set DAYTONA_API_KEY"
echo "ok: no credentials -> UNAVAILABLE"

emu create500 --fault create-500
verify_dt create500
assert_eq "$rc" 70 "create 500: exit"
assert_eq "$(grep -c '^POST /api/sandbox$' "$D/requests")" 2 "create 500: no blind retry"
grep -q '^GET /api/sandbox$' "$D/requests" || fail "create 500: not listed by label"
all_deleted create500 2
echo "ok: create 500 -> listed by label, deleted"

emu exec500 --fault exec-500
verify_dt exec500
assert_eq "$rc" 70 "exec 500: exit"
assert_contains "$(cat "$D/out")" "HTTP 500"
all_deleted exec500 2
echo "ok: exec 500 -> error, both deleted"

emu leak --fault delete-fail
verify_dt leak
assert_eq "$rc" 70 "leak: exit"
for id in $(sed -n 's/^create //p' "$D/ledger"); do
  assert_contains "$(cat "$D/err")" "$id" "leak: sandbox id named"
done
echo "ok: failed delete -> LEAK with ids"
