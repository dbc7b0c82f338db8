#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# probe_flatpak_marker.sh - container.flatpak_info in a real sandbox: bwrap as flatpak starts it,
# with /.flatpak-info bound in, is a CONTAINER layer named flatpak (the marker is asked before PID
# 1's comm, which names bwrap); the same bwrap without the file is named bubblewrap, and the
# marker alone never makes a layer (a host with the file at its root stays without a container).
source "$ISOTIER_ROOT/tests/lib.sh"
PROBE="${ISOTIER_PROBE:-$ISOTIER_ROOT/$BUILD/isotier-probe}"
[ -x "$PROBE" ] || fail "no probe at $PROBE"
command -v bwrap >/dev/null || skip "bwrap is not installed: scripts/deps.sh installs it"
printf '[Application]\nname=org.example.App\n' >"$TMP/flatpak-info"

run_bwrap() {  # extra bwrap arguments, then the probe runs; its JSON on stdout
  timeout 60 bwrap --unshare-pid --unshare-ipc --unshare-uts --die-with-parent --proc /proc \
    --dev /dev --ro-bind /sys /sys --ro-bind "$PROBE" /isotier-probe "$@" /isotier-probe --json
}
inner() {  # tier, then the innermost layer's kind:vendor and whether the marker is among its signals
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); l = d["layers"][-1]
print(d["observed_tier"], l["kind"] + ":" + l["vendor"], "container.flatpak_info" in l["signals"])' "$1"
}

run_bwrap --ro-bind "$TMP/flatpak-info" /.flatpak-info >"$TMP/flatpak.json" || fail "bwrap with the marker: $?"
assert_eq "$(inner "$TMP/flatpak.json")" "CONTAINER container:flatpak True" "bwrap with /.flatpak-info"
run_bwrap >"$TMP/plain.json" || fail "bwrap without the marker: $?"
assert_eq "$(inner "$TMP/plain.json")" "CONTAINER container:bubblewrap False" "bwrap without it"

# The marker alone: a replayed host capture with /.flatpak-info added gains no container layer.
"$PROBE" --root "$ISOTIER_ROOT/tests/fixtures/probe/real-firecracker-native" --json >"$TMP/host.json" ||
  fail "replay of the host capture"
cp -a "$ISOTIER_ROOT/tests/fixtures/probe/real-firecracker-native" "$TMP/host-root"
cp "$TMP/flatpak-info" "$TMP/host-root/.flatpak-info"
"$PROBE" --root "$TMP/host-root" --json >"$TMP/host-marker.json" || fail "replay with the marker"
assert_eq "$(json_get "$TMP/host-marker.json" observed_tier)" "$(json_get "$TMP/host.json" observed_tier)" \
  "a lone /.flatpak-info raises nothing"
assert_eq "$(python3 -c 'import json,sys; print([l["kind"] for l in json.load(open(sys.argv[1]))["layers"]])' "$TMP/host-marker.json")" \
  "['vm']" "no container layer from the marker alone"
echo "ok: /.flatpak-info names flatpak in a real bwrap sandbox and raises nothing alone"
