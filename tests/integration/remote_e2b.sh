#!/usr/bin/env bash
# isotier-test: slow; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# The e2b backend against tests/tools/e2b_emulator.py (a test fixture speaking
# E2B's published API, with a real bwrap or runsc sandbox behind every create):
# two sandboxes per verification, compared with each other (shared kernel:
# a MICROVM claim is CONTRADICTED, by boot_id and by the cross-sandbox
# challenge; a kernel identity forged per sandbox is caught by that challenge:
# CONTRADICTED; a replayed microVM output NOT_CONTRADICTED at best, never
# proven; gVisor: unproven), both deleted on every path (faults, SIGINT), a delete that fails
# reported as a leak (70), and the planted API key in no output at all.
. "$ISOTIER_ROOT/tests/lib.sh"
. "$ISOTIER_ROOT/tests/tools/e2b-lib.sh"

# 1. Two bwrap sandboxes share the host's kernel (the emulator's honest mode
#    is two containers on this host, no kernel of their own): E2B's MICROVM
#    claim is CONTRADICTED by the two-sandbox comparison (exit 1), never by
#    this host; the cross-sandbox challenge sees it too, as it must.
emu shared
verify_remote shared
assert_eq "$rc" 1 "shared kernel: exit ($(cat "$D/out" "$D/err"))"
grep -Eq '^e2b +MICROVM \(firecracker\) +CONTAINER \(bubblewrap\) +CONTRADICTED' "$D/out" || fail "shared: $(cat "$D/out")"
assert_contains "$(cat "$D/out")" "two e2b sandboxes run on one kernel: the random task pattern one e2b sandbox made shows in the other's task count"
assert_eq "$(row)" "CONTRADICTED|shared|CONTAINER" "shared: stored row"
all_deleted shared 2
assert_eq "$(grep -c '^create ' "$D/ledger")" 2 "shared: two sandboxes per verification"
echo "ok: shared kernel -> CONTRADICTED"

# 1b. Exit codes no process exits with (256, -256, 0.5, -1): an error naming
#     the value, never success nor a byte of it; 0 and 3 carried whole.
exit_wide

# 2. A kernel identity of its own in each sandbox (forged: two containers on
#    this kernel, a distinct boot_id and btime bound over each's): the boot_ids
#    alone would say DEDICATED, but the cross-sandbox challenge - one sandbox
#    holds 256 threads in a random pattern while the other samples its task
#    count - sees the pattern: one kernel, SHARED, CONTRADICTED (exit 1).
emu dedicated --identity fake
verify_remote dedicated --json
assert_eq "$rc" 1 "forged identity: exit ($(cat "$D/err"))"
python3 - "$D/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["backend"] == "e2b" and r["remote"] is True, r
assert r["kernel_relation"] == "shared" and r["verdict"] == "CONTRADICTED", r
assert "two e2b sandboxes share one kernel: the random task pattern" in r["reason"], r
assert "whatever boot_id each shows" in r["reason"], r
assert r["leaked"] is None, r
PY
all_deleted dedicated 2
# The report's tier matrix shows the provider as observed, not only
# source-checked, and the verdict as refuted.
"$ISOTIER_BIN" report --db "$D/h.db" --format json --out "$D/report.json"
! grep -qF "$KEY" "$D/report.json" || fail "dedicated: the API key is in the report"
python3 - "$D/report.json" <<'PY'
import json, sys
row = [m for m in json.load(open(sys.argv[1]))["matrix"] if m["provider_id"] == "e2b"][0]
assert row["backend"] == "e2b" and row["observations"] == 1, row
assert row["observed_tier"] == "CONTAINER" and row["verdict"] == "CONTRADICTED", row
assert row["section"] == "remote" and not row["not_proven"], row
PY
echo "ok: a kernel identity forged each -> the cross challenge sees one kernel: CONTRADICTED"

# 2b. Every lying mode (remote-lib.sh lying_cases): fake identity and replay
#     are never proven, `run --require-verified` refuses, the report notes
#     the replay's NOT_CONTRADICTED.
lying_cases

# 3. gVisor behind each create: no boot_id to compare, the claim is unproven (2).
if runsc --network=none --ignore-cgroups --platform=ptrace do /bin/true 2>/dev/null; then
  emu gvisor --sandbox runsc
  verify_remote gvisor --json
  assert_eq "$rc" 2 "gvisor: exit ($(cat "$D/err"))"
  python3 - "$D/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
# No boot_id under gVisor: the Sentries' boot times decide (equal: shared, else
# uncompared); either way a VM outside gVisor is not shown to be the sandbox's.
assert r["kernel_relation"] in ("uncompared", "shared"), r
assert r["verdict"] == "INCONCLUSIVE" and r["unproven"], r
PY
  all_deleted gvisor 2
  echo "ok: gVisor sandboxes -> not shown dedicated, unproven"
else
  echo "note: runsc do unusable here; the uncompared case is left to the unit tests"
fi

# 4. No credentials: UNAVAILABLE naming the variable (69); --all leaves it out.
emu nocred
set +e
env -u E2B_API_KEY "$ISOTIER_BIN" verify --backend e2b --db "$D/h.db" >"$D/out" 2>"$D/err"; rc=$?
set -e
assert_eq "$rc" 69 "no credentials: exit"
assert_contains "$(cat "$D/out")" "not configured: set E2B_API_KEY"
[ ! -s "$D/ledger" ] || fail "no credentials: something was created"
echo "ok: no credentials -> UNAVAILABLE naming E2B_API_KEY"

# --all takes the remote backends that are configured, and only those. The local ones are
# verify_all's: a PATH with bwrap alone leaves the others unavailable (listed, not run).
mkdir -p "$D/bin" && ln -sf "$(command -v bwrap)" "$D/bin/bwrap"
set +e
env -u DAYTONA_API_KEY -u FLY_API_TOKEN -u VERCEL_TOKEN PATH="$D/bin" "$ISOTIER_BIN" verify --all --db "$D/all.db" --json >"$D/with.json" 2>"$D/err"
env -u E2B_API_KEY -u DAYTONA_API_KEY -u FLY_API_TOKEN -u VERCEL_TOKEN PATH="$D/bin" "$ISOTIER_BIN" verify --all --db "$D/all.db" --json >"$D/without.json" 2>>"$D/err"
set -e
python3 - "$D/with.json" "$D/without.json" <<'PY'
import json, sys
w = {r["backend"]: r for r in json.load(open(sys.argv[1]))["results"]}
wo = {r["backend"] for r in json.load(open(sys.argv[2]))["results"]}
assert "e2b" in w and w["e2b"]["remote"] and w["e2b"]["verdict"] == "CONTRADICTED", w.keys()
assert not {"daytona", "fly", "vercel"} & set(w), w.keys()
assert not {"e2b", "daytona", "fly", "vercel"} & wo and "bwrap" in wo, wo
assert w["bwrap"]["verdict"] == "CONFIRMED" and w["runc"]["verdict"] == "UNAVAILABLE", w
PY
echo "ok: --all includes e2b only when configured"

# 7. 429 with Retry-After: 1 on the first create: waited out, then the run works.
emu ratelimited --fault create-429
t0=$(date +%s%N)
verify_remote ratelimited
t1=$(date +%s%N)
assert_eq "$rc" 1 "429: exit ($(cat "$D/out" "$D/err"))"
assert_eq "$(grep -c '^POST /sandboxes$' "$D/requests")" 3 "429: creates asked"
[ $(( (t1 - t0) / 1000000 )) -ge 900 ] || fail "429: Retry-After not honoured"
all_deleted ratelimited 2
echo "ok: 429 Retry-After honoured"

# 7b. Retry-After as an HTTP-date (2 s ahead): waited out too.
emu ratelimiteddate --fault create-429-date
t0=$(date +%s%N)
verify_remote ratelimiteddate
t1=$(date +%s%N)
assert_eq "$rc" 1 "429 date: exit ($(cat "$D/out" "$D/err"))"
[ $(( (t1 - t0) / 1000000 )) -ge 900 ] || fail "429 date: Retry-After HTTP-date not honoured"
all_deleted ratelimiteddate 2
echo "ok: 429 Retry-After HTTP-date honoured"

# 10. 404 on delete: gone is gone, no leak.
emu del404 --fault delete-404
verify_remote del404
assert_eq "$rc" 1 "delete 404: exit ($(cat "$D/err"))"
! grep -q LEAK "$D/err" || fail "delete 404 reported as a leak"
echo "ok: delete 404 is not a leak"

# 11. Deletes that keep failing: a leak, with both ids, exit 70.
leak_case delete-fail sandbox
assert_contains "$(cat "$D/err")" "LEAK: e2b"
assert_contains "$(sqlite3 "$D/h.db" 'SELECT reason FROM observations')" "LEAKED"
echo "ok: failed delete -> LEAK with ids, exit 70"

