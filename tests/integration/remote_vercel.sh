#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# The vercel backend against tests/tools/vercel_emulator.py (a test fixture
# speaking the Vercel Sandbox API as its client calls it, a real bwrap sandbox
# behind every create, the probe's tarball really gunzipped and untarred):
# MICROVM claim CONTRADICTED on one kernel, NOT_CONTRADICTED at best (never
# proven) on two forged or a replayed microVM output; team/project
# named when missing; a create answered 500 swept by name; a stop that fails
# is a leak (70); the planted token is in no output.
. "$ISOTIER_ROOT/tests/lib.sh"
KEY="vcl-PLANTED-$$-$RANDOM-secret"
REMOTE_BACKEND=vercel REMOTE_SECRET="the token" REMOTE_NOUN=sandboxes REMOTE_GONE=stopped
. "$ISOTIER_ROOT/tests/tools/remote-lib.sh"
trap 'stop_emu; rm -rf "$TMP"' EXIT
emu() {
  emu_start "$1" vercel_emulator.py --team team_emu --project prj_emu "${@:2}"
  export VERCEL_TOKEN=$KEY VERCEL_TEAM_ID=team_emu VERCEL_PROJECT_ID=prj_emu
  export ISOTIER_VERCEL_API_URL="http://127.0.0.1:$(cat "$D/port")"
}

exit_wide

microvm_cases

emu nocred
verify_unconfigured VERCEL_PROJECT_ID "no project"
echo "ok: no project -> UNAVAILABLE naming VERCEL_PROJECT_ID"

create500_case /v3/sandboxes /v2/sandboxes
echo "ok: create 500 -> found by name, stopped"

leak_case stop-fail session
echo "ok: failed stop -> LEAK with ids"
