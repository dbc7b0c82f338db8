#!/usr/bin/env bash
# isotier-test: slow; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# The daytona backend against tests/tools/daytona_emulator.py (a test fixture
# speaking Daytona's API and toolbox, a real bwrap sandbox behind every
# create): Daytona's entry stays UNKNOWN and the verdict says what was observed;
# a MICROVM claim (a catalogue variant) is CONTRADICTED by two sandboxes on one
# kernel and, with a kernel each (forged) or a replayed microVM output, at best
# NOT_CONTRADICTED, never proven; both deleted on every path; a
# delete that fails is a leak (70); the planted key is in no output.
. "$ISOTIER_ROOT/tests/lib.sh"
KEY="dtn-PLANTED-$$-$RANDOM-secret"
REMOTE_BACKEND=daytona REMOTE_SECRET="the API key" REMOTE_NOUN=sandboxes REMOTE_GONE=deleted
. "$ISOTIER_ROOT/tests/tools/remote-lib.sh"
trap 'stop_emu; rm -rf "$TMP"' EXIT
python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$ISOTIER_ROOT/catalogue/providers" \
  "$TMP/cat-microvm" daytona claim=MICROVM/firecracker

emu() {
  emu_start "$1" daytona_emulator.py "${@:2}"
  export DAYTONA_API_KEY=$KEY ISOTIER_DAYTONA_API_URL="http://127.0.0.1:$(cat "$D/port")/api"
}

emu unknown
verify_remote unknown
assert_eq "$rc" 0 "UNKNOWN claim: exit ($(cat "$D/out" "$D/err"))"
assert_contains "$(cat "$D/out")" "the claim is UNKNOWN, nothing to judge; observed CONTAINER"
assert_eq "$(row)" "INCONCLUSIVE|shared|CONTAINER" "UNKNOWN claim: stored row"
assert_contains "$(sqlite3 "$D/h.db" 'SELECT reason FROM observations')" "daytona reported: sandbox class container (none asked for"
all_deleted unknown 2
echo "ok: UNKNOWN stays unjudged, what was observed is recorded"

exit_wide

# The MICROVM claim: CONTRADICTED on one kernel, never proven by a lie.
microvm_cases --catalogue "$TMP/cat-microvm"

emu nocred
verify_unconfigured DAYTONA_API_KEY "no credentials"
echo "ok: no credentials -> UNAVAILABLE"

create500_case /api/sandbox /api/sandbox
echo "ok: create 500 -> listed by label, deleted"

emu exec500 --fault exec-500
verify_remote exec500
assert_eq "$rc" 70 "exec 500: exit"
assert_contains "$(cat "$D/out")" "HTTP 500"
all_deleted exec500 2
echo "ok: exec 500 -> error, both deleted"

leak_case delete-fail sandbox
echo "ok: failed delete -> LEAK with ids"
