# SPDX-License-Identifier: Apache-2.0
# tests/tools/e2b-lib.sh - sourced (after tests/lib.sh) by remote_e2b.sh and remote_e2b_faults.sh:
# the planted API key, remote-lib.sh for the e2b backend, and `emu`.
KEY="sk-e2b-PLANTED-$$-$RANDOM-secret"
REMOTE_BACKEND=e2b REMOTE_SECRET="the API key" REMOTE_NOUN=sandboxes REMOTE_GONE=deleted
. "$ISOTIER_ROOT/tests/tools/remote-lib.sh"
trap 'stop_emu; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT

# emu NAME [emulator options]: starts an emulator; E2B_* point at it.
emu() {
  emu_start "$1" e2b_emulator.py "${@:2}"
  export E2B_API_KEY=$KEY ISOTIER_E2B_API_URL="http://127.0.0.1:$(cat "$D/port")"
  export ISOTIER_E2B_ENVD_URL="$ISOTIER_E2B_API_URL/envd/{id}"
}
