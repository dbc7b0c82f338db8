#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# A VM counts toward MICROVM only when it is the sandbox's own. On a VM host
# (this machine kind is a Firecracker microVM) a container or gVisor backend
# wrongly claimed MICROVM must not be let through: verify says so and alerts,
# and `run --require-isolation MICROVM` refuses before provisioning; a real
# microVM (qemu-microvm) is CONFIRMED with a kernel identity of its own.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
host_boot=$(cat /proc/sys/kernel/random/boot_id)
variant() { python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$ISOTIER_ROOT/catalogue/providers" "$TMP/$1" "$2" "$3"; }

# refused BACKEND CATALOGUE DB: run --require-isolation MICROVM exits 78 and never runs CMD.
refused() {
  local backend=$1 cat=$2 db=$3 marker=isotier-failclosed-$$-$RANDOM rc
  set +e
  "$ISOTIER_BIN" run --backend "$backend" --catalogue "$cat" --db "$db" --require-isolation MICROVM \
    -- /bin/echo "$marker" >"$TMP/run.out" 2>"$TMP/run.err"
  rc=$?
  set -e
  assert_eq "$rc" 78 "$backend claimed MICROVM: run exit status ($(cat "$TMP/run.err"))"
  assert_contains "$(cat "$TMP/run.err")" "ConfigurationError: backend $backend resolves to UNKNOWN"
  ! grep -q "$marker" "$TMP/run.out" || fail "$backend: the command ran"
}

for mech in firecracker vm; do
  # runc: its kernel is the host's, so the host's VM is no boundary of its own.
  variant "runc-$mech" runc "claim=MICROVM/$mech"
  db=$TMP/runc-$mech.db
  set +e
  "$ISOTIER_BIN" verify --backend runc --catalogue "$TMP/runc-$mech" --db "$db" >"$TMP/v.out" 2>&1; rc=$?
  set -e
  assert_eq "$rc" 1 "runc claimed MICROVM/$mech: verify exit ($(cat "$TMP/v.out"))"
  grep -Eq '^runc +MICROVM \('"$mech"'\) +CONTAINER \(runc\) +CONTRADICTED' "$TMP/v.out" || fail "runc/$mech summary: $(cat "$TMP/v.out")"
  assert_contains "$(cat "$TMP/v.out")" "the VM seen is the host's"
  assert_contains "$(cat "$TMP/v.out")" "boot_id $host_boot"
  row=$(sqlite3 "$db" "SELECT verdict, kernel_relation, ceiling_tier FROM observations")
  assert_eq "$row" "CONTRADICTED|shared|CONTAINER" "runc/$mech stored row"
  refused runc "$TMP/runc-$mech" "$db"
  "$ISOTIER_BIN" backends --catalogue "$TMP/runc-$mech" --db "$db" --json >"$TMP/b.json"
  python3 - "$TMP/b.json" <<'PY'
import json, sys
r = {x["backend"]: x for x in json.load(open(sys.argv[1]))}["runc"]
assert r["claimed_tier"] == "MICROVM" and r["resolved_tier"] == "UNKNOWN", r
assert "host's" in r["reason"], r
PY
  # --attest fails closed too, on an otherwise fresh history (no observation yet).
  set +e
  "$ISOTIER_BIN" run --new-db --backend runc --catalogue "$TMP/runc-$mech" --db "$TMP/fresh-$mech.db" \
    --require-isolation MICROVM --attest -- /bin/echo attested >"$TMP/a.out" 2>"$TMP/a.err"; rc=$?
  set -e
  assert_eq "$rc" 78 "runc/$mech --attest exit ($(cat "$TMP/a.err"))"
  assert_contains "$(cat "$TMP/a.err")" "attestation failed: probe inside runc: CONTRADICTED"
  [ ! -s "$TMP/a.out" ] || fail "runc/$mech: attested command ran"

  # runsc: the kernel identity it shows is the Sentry's; a VM outside it cannot
  # be shown to be its own: at most INCONCLUSIVE, which alerts (exit 2).
  variant "runsc-$mech" runsc "claim=MICROVM/$mech"
  db=$TMP/runsc-$mech.db
  set +e
  "$ISOTIER_BIN" verify --backend runsc --catalogue "$TMP/runsc-$mech" --db "$db" --json >"$TMP/v.json" 2>"$TMP/v.err"; rc=$?
  set -e
  assert_eq "$rc" 2 "runsc claimed MICROVM/$mech: verify exit ($(cat "$TMP/v.err"))"
  python3 - "$TMP/v.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["results"][0]
assert b["verdict"] == "INCONCLUSIVE" and b["unproven"] is True, b
assert b["ceiling_tier"] == "GVISOR", b
assert "Sentry" in b["reason"], b
PY
  refused runsc "$TMP/runsc-$mech" "$db"
  assert_contains "$(cat "$TMP/run.err")" "shows at most GVISOR of its own"
done

# A real microVM: a kernel of its own, CONFIRMED, and MICROVM is defended.
db=$TMP/qemu.db
"$ISOTIER_BIN" verify --backend qemu-microvm --db "$db" --json >"$TMP/q.json" 2>"$TMP/q.err" || fail "qemu-microvm: $(cat "$TMP/q.err")"
python3 - "$TMP/q.json" "$host_boot" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["results"][0]
assert b["verdict"] == "CONFIRMED", b
assert b["kernel_relation"] == "dedicated" and b["ceiling_tier"] == "MICROVM", b
assert "a kernel of its own" in b["reason"] and sys.argv[2] in b["reason"], b
PY
guest_boot=$(sqlite3 "$db" "SELECT json_extract(probe_json, '$.kernel.boot_id') FROM observations")
[ -n "$guest_boot" ] && [ "$guest_boot" != "$host_boot" ] || fail "guest boot_id '$guest_boot' vs host '$host_boot'"
out=$("$ISOTIER_BIN" run --backend qemu-microvm --db "$db" --require-isolation MICROVM --require-verified 1 --trust-history -- /bin/echo vm-ok)
assert_eq "$out" vm-ok "qemu-microvm satisfies MICROVM with a fresh CONFIRMED observation"

# The honest claims stay CONFIRMED on this VM host, and exit 0.
"$ISOTIER_BIN" verify --backend runc --backend runsc --db "$TMP/honest.db" >"$TMP/h.out" 2>&1 || fail "honest claims: $(cat "$TMP/h.out")"
assert_eq "$(sqlite3 "$TMP/honest.db" "SELECT group_concat(backend || ':' || verdict || ':' || ceiling_tier, ' ') FROM (SELECT * FROM observations ORDER BY backend)")" \
  "runc:CONFIRMED:CONTAINER runsc:CONFIRMED:GVISOR" "honest claims"
echo "ok: a wrongly claimed MICROVM is refused on a VM host; a real microVM is CONFIRMED"
