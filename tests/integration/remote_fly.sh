#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# The fly backend against tests/tools/fly_emulator.py (a test fixture speaking
# the Machines API, a real bwrap sandbox behind every create): Fly's MICROVM
# claim CONTRADICTED by two machines on one kernel, NOT_CONTRADICTED at best
# (never proven) with a kernel each forged or a microVM output replayed; credentials named when missing; a create answered 500
# swept by metadata; a destroy that fails is a leak (70); the planted token is
# in no output.
. "$ISOTIER_ROOT/tests/lib.sh"
KEY="fly-PLANTED-$$-$RANDOM-secret"
REMOTE_BACKEND=fly REMOTE_SECRET="the token" REMOTE_NOUN=machines REMOTE_GONE=destroyed
. "$ISOTIER_ROOT/tests/tools/remote-lib.sh"
trap 'stop_emu; rm -rf "$TMP"' EXIT
emu() {
  emu_start "$1" fly_emulator.py --app isotier-test "${@:2}"
  export FLY_API_TOKEN=$KEY FLY_APP=isotier-test ISOTIER_FLY_API_URL="http://127.0.0.1:$(cat "$D/port")/v1"
}

exit_wide

microvm_cases

# A hostile sandbox's capture (tests/tools/fault-probe.c "evil": a symlink to
# /etc/shadow, a FIFO, an 8 MiB file, 40 nested directories, a 250-byte name)
# is larger, as base64, than the 4 MiB a Fly exec answer may be: the artifact
# step refuses it, the observation is still judged and stored, and the reason
# says the capture was not kept (test_artifacts unpacks such archives).
emu evil --identity fake
ISOTIER_PROBE="$ISOTIER_ROOT/$BUILD/tests/fault-probe-evil" verify_remote evil
assert_contains "$(cat "$D/out")" "capture not kept: fetch /.isotier/capture"
assert_eq "$(sqlite3 "$D/h.db" "SELECT verdict FROM observations ORDER BY id DESC LIMIT 1")" CONTRADICTED "evil: verdict"
python3 - "$D/h.db" <<'PY' || fail "evil: evidence kept"
import io, sqlite3, sys, tarfile
blob = sqlite3.connect(sys.argv[1]).execute(
    "SELECT evidence FROM observations ORDER BY id DESC LIMIT 1").fetchone()[0]
assert not blob or not tarfile.open(fileobj=io.BytesIO(blob)).getmembers(), "members kept"
PY
all_deleted evil 2
echo "ok: an oversized remote capture is refused, the observation kept"

emu nocred
verify_unconfigured FLY_APP "no app"
echo "ok: no app -> UNAVAILABLE naming FLY_APP"

create500_case /v1/apps/isotier-test/machines /v1/apps/isotier-test/machines
echo "ok: create 500 -> found by metadata, destroyed"

leak_case delete-fail machine
echo "ok: failed destroy -> LEAK with ids"
