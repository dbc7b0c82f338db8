#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# The runc-userns backend for real: runc's bundle in a user namespace of its own. The probe sees
# runc's claim (CONTAINER) inside and names the user namespace; root inside is host uid 100000
# (the uid map, and a file it writes in the capture dir is that uid's on the host); the capture
# dir is given back to its owner; the generic checks (host view, timeout, signals, a missing
# binary) leave nothing behind.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
backend_setup runc-userns
check_probe claim container
check_outer_vm
python3 - "$TMP/live.json" <<'PY' || fail "runc-userns: the probe does not name the user namespace"
import json, sys
layers = json.load(open(sys.argv[1]))["layers"]
assert "container.ns_user" in layers[-1]["signals"], layers[-1]
PY
check_host_view

# Root inside is no user of the host's: the map, and what it writes is host uid 100000's.
cap="$TMP/userns-cap"
mkdir -p "$cap"
out=$("$DRIVER" --backend "$NAME" --capture "$cap" -- /bin/sh -c \
  'id -u; tr -s " " <"/proc/self/uid_map"; touch /.isotier/capture/mine' 2>"$TMP/map.err") ||
  fail "runc-userns: uid map: $(cat "$TMP/map.err")"
assert_eq "$(echo "$out" | head -n 1)" 0 "runc-userns: root inside"
assert_eq "$(echo "$out" | sed -n 2p)" " 0 100000 65536" "runc-userns: uid map"
assert_eq "$(stat -c %u "$cap/mine")" 100000 "runc-userns: a file root inside wrote"
assert_eq "$(stat -c %u "$cap")" "$(id -u)" "runc-userns: the capture dir given back"
# The host's root's files grant it nothing: a 0600 file of the host's root is not readable.
secret="$TMP/userns-secret"
mkdir -p "$secret" && chmod 755 "$secret" && echo s >"$secret/f" && chmod 600 "$secret/f"
rc=0
"$DRIVER" --backend "$NAME" -- /bin/cat "$secret/f" >/dev/null 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "runc-userns: root inside read a 0600 file of the host's root"
assert_nothing_left "user namespace"
echo "ok: runc-userns maps root to host uid 100000"

check_timeout 2
check_sigint 1
check_sigint 1 TERM
check_missing_binary runc
