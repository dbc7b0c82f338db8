#!/usr/bin/env bash
# isotier-test: fast; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# --attest runs the probe inside the new sandbox and fails closed when what it
# sees does not support the resolved tier: bwrap deliberately claimed as
# MICROVM in a test catalogue is caught, and the sandbox is gone afterwards.
. "$ISOTIER_ROOT/tests/lib.sh"
python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$ISOTIER_ROOT/catalogue/providers" "$TMP/lying" bubblewrap claim=MICROVM/firecracker
marker=isotier-attest-$$-$RANDOM
# A history of its own: ./isotier.db (the default) may hold observations of
# bwrap that resolve it below MICROVM before the attestation is reached.
db="$TMP/history.db"
mkdir "$TMP/sandboxes"
set +e
TMPDIR=$TMP/sandboxes "$ISOTIER_BIN" run --db "$db" --new-db --backend bwrap --catalogue "$TMP/lying" --require-isolation MICROVM \
  --attest --audit-log "$TMP/audit.jsonl" -- /bin/echo "$marker" >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
assert_eq "$rc" 78 "attestation failure exit status"
assert_contains "$(cat "$TMP/err")" "attestation failed: probe inside bwrap: CONTRADICTED, at most CONTAINER of its own"
! grep -q "$marker" "$TMP/out" || fail "the command ran after a failed attestation"
# The sandbox's root lives under TMPDIR, so its processes name it.
! pgrep -f "$TMP/sandboxes/" >/dev/null || fail "a sandbox process is left: $(pgrep -af "$TMP/sandboxes/")"
left=$(ls -A "$TMP/sandboxes" | tr '\n' ' ')
assert_eq "$left" "" "files left in TMPDIR after a failed attestation"
python3 - "$TMP/audit.jsonl" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
kinds = [e["event"] + ":" + e["decision"] for e in ev]
assert kinds == ["create:allowed", "attest:attestation-failed", "destroy:ok"], kinds
assert all(e["resolved_tier"] == "MICROVM" for e in ev), ev
# A failed attestation grants nothing: its record's effective tier is UNKNOWN.
assert [e["effective_tier"] for e in ev] == ["MICROVM", "UNKNOWN", "UNKNOWN"], ev
assert ev[1]["required_tier"] == "MICROVM" and "CONTRADICTED" in ev[1]["reason"], ev[1]
PY

# The honest claim attests and runs.
out=$("$ISOTIER_BIN" run --db "$db" --new-db --backend bwrap --require-isolation CONTAINER --attest -- /bin/echo "$marker")
assert_eq "$out" "$marker" "attested run output"
echo "ok: attestation fails closed"
