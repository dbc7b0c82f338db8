#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# Hardware attestation completes the remote proof (ADR-0020), against
# tests/tools/fly_emulator.py serving a recorded microVM probe output with a
# test authority's SEV-SNP reports (tests/tools/attest_authority.py) bound to
# each run, isotier trusting only that authority's roots
# (ISOTIER_ATTEST_ROOTS). An honest pair (two guests, each report bound to its
# own run) is CONFIRMED, "attested, measurement not judged"; a tampered
# report, one made for an earlier run's nonce, one over another probe output,
# a debug guest, a guest a migration agent may export and a report stating a
# newer TCB than its VCEK's are refused, each naming its check
# (NOT_CONTRADICTED, as without attestation); two sandboxes answered
# by one guest (one report_id) are CONTRADICTED; honest reports over outputs
# that are not the judged ones (a container, another kernel) raise nothing;
# the genuine AMD roots do not
# trust the test authority; the real probe in real sandboxes whose TSM tree
# refuses says so and nothing is attested (and, when the catalogue documents
# attestation for the offering, the reason says it was offered, not given);
# `verify --attest` on a host
# without a TSM changes nothing and says so.
. "$ISOTIER_ROOT/tests/lib.sh"
python3 -c 'import cryptography' 2>/dev/null || skip "python3 cryptography is not installed (the test authority)"
KEY="fly-PLANTED-$$-$RANDOM-secret"
REMOTE_BACKEND=fly REMOTE_SECRET="the token" REMOTE_NOUN=machines REMOTE_GONE=destroyed
. "$ISOTIER_ROOT/tests/tools/remote-lib.sh"
trap 'stop_emu; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT

# emu NAME MODE: a Fly emulator whose machines answer with the recording and
# MODE's evidence; isotier pins its test roots.
emu() {
  emu_start "$1" fly_emulator.py --app isotier-test --identity replay \
    --replay "$(replay_recording)" --attest "$2" --attest-roots "$TMP/$1-roots"
  export FLY_API_TOKEN=$KEY FLY_APP=isotier-test ISOTIER_FLY_API_URL="http://127.0.0.1:$(cat "$D/port")/v1"
  export ISOTIER_ATTEST_ROOTS="$TMP/$1-roots"
}
reason() { sqlite3 "$D/h.db" "SELECT reason FROM observations ORDER BY id DESC LIMIT 1"; }
verdict() { sqlite3 "$D/h.db" "SELECT verdict, ceiling_tier FROM observations ORDER BY id DESC LIMIT 1"; }

emu honest honest
verify_remote honest
assert_eq "$rc" 0 "honest: exit ($(cat "$D/out" "$D/err"))"
assert_eq "$(verdict)" "CONFIRMED|MICROVM" "honest: stored verdict"
case $(reason) in "attested, measurement not judged: two sev-snp guests, each bound to its own run; "*) ;; *) fail "honest: reason $(reason)" ;; esac
assert_contains "$(reason)" "two sev-snp guests, each bound to its own run"
assert_contains "$(reason)" "AMD ARK-Milan pinned in $TMP/honest-roots, VCEK served by the host"
assert_contains "$(cat "$D/out")" "CONFIRMED (attested)" "honest: verify's table"
all_deleted honest 2
echo "ok: an honest attested pair -> CONFIRMED (attested)"

# The same honest provider, isotier pinning AMD's real roots: not attested.
export ISOTIER_ATTEST_ROOTS="$ISOTIER_ROOT/catalogue/roots"
verify_remote honest-real-roots
assert_eq "$(verdict)" "NOT_CONTRADICTED|CONTAINER" "real roots: stored verdict"
assert_contains "$(reason)" "attestation refused"
echo "ok: the test authority is not trusted under AMD's pinned roots"

# The report tells the attested verdict apart as a stored fact: the first
# observation (honest) is attested, the second (real roots) is not; a row
# whose reason merely says "attested:" is not (the fact, not the words).
# A copy with what the write-ahead log beside it holds: never cp alone.
sqlite3 "$D/h.db" ".backup '$D/forged.db'"
sqlite3 "$D/forged.db" "UPDATE observations SET verdict = 'CONFIRMED', reason = 'attested: forged' WHERE id = 2"
for db in h forged; do
  "$ISOTIER_BIN" report --db "$D/$db.db" --format json --out "$D/$db.json" || fail "report json $db"
  "$ISOTIER_BIN" report --db "$D/$db.db" --format html --out "$D/$db.html" || fail "report html $db"
done
python3 - "$D/h.json" "$D/forged.json" <<'PY' || fail "report attested: $(head -c 1500 "$D/h.json")"
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))
    o = {x["id"]: x for x in r["observations"]}
    assert o[1]["verdict"] == "CONFIRMED" and o[1]["attested"] is True, o[1]
    assert o[2]["attested"] is False, o[2]
    row = [x for x in r["matrix"] if x["backend"] == "fly"]
    assert len(row) == 1 and row[0]["latest_observation_id"] == 2 and row[0]["attested"] is False, row
PY
assert_eq "$(grep -c '<td class="v v-confirmed">CONFIRMED (attested)</td>' "$D/h.html")" 1 "html: the attested observation in the log"
assert_eq "$(grep -c '<td class="v v-confirmed">CONFIRMED (attested)</td>' "$D/forged.html")" 1 "html: only the attested observation"
grep '<td>attested: forged</td>' "$D/forged.html" | grep -q '<td class="v v-confirmed">CONFIRMED</td>' ||
  fail "html: the forged row: $(grep 'attested: forged' "$D/forged.html" | head -c 600)"
echo "ok: the report marks the attested verdict, from the stored fact only"

# Each refusal names its check.
declare -A check=([tampered]="report.signature" [replayed]="report.report_data"
  [foreign]="report.report_data" [debug]="report.policy: debugging allowed"
  [migrate]="report.policy: MIGRATE_MA set" [oldtcb]="not the key certificate's TCB")
for mode in tampered replayed foreign debug migrate oldtcb; do
  emu "$mode" "$mode"
  verify_remote "$mode"
  assert_eq "$rc" 0 "$mode: exit ($(cat "$D/out" "$D/err"))"
  assert_eq "$(verdict)" "NOT_CONTRADICTED|CONTAINER" "$mode: stored verdict"
  assert_contains "$(reason)" "attestation refused"
  assert_contains "$(reason)" "${check[$mode]}"
  all_deleted "$mode" 2
  echo "ok: $mode evidence -> refused, NOT_CONTRADICTED"
done

# Honest reports bound to outputs nobody judged: the attested runs show a
# container inside a confidential VM, or another kernel than each sandbox's
# first run (a replayed microVM output judged beside two real guests).
for mode in container elsewhere; do
  emu "$mode" "$mode"
  verify_remote "$mode"
  assert_eq "$rc" 0 "$mode: exit ($(cat "$D/out" "$D/err"))"
  assert_eq "$(verdict)" "NOT_CONTRADICTED|CONTAINER" "$mode: stored verdict"
  case $(reason) in attested:*) fail "$mode: reason $(reason)" ;; esac
  assert_contains "$(reason)" "not attested: the reports are bound to outputs that are not the ones judged"
  all_deleted "$mode" 2
  echo "ok: attested outputs that are not the judged ones ($mode) -> NOT_CONTRADICTED"
done

emu shared shared
verify_remote shared
assert_eq "$rc" 1 "shared guest: exit ($(cat "$D/out" "$D/err"))"
assert_eq "$(verdict)" "CONTRADICTED|CONTAINER" "shared guest: stored verdict"
assert_contains "$(reason)" "one guest answered for both sandboxes"
all_deleted shared 2
echo "ok: two sandboxes, one guest -> CONTRADICTED"

# The real probe in real sandboxes whose configfs-tsm tree refuses an entry
# (read-only): the probe says so, nothing is attested, the kernel-sharing
# rules decide (two bwrap sandboxes on this kernel: CONTRADICTED).
emu_start refusing fly_emulator.py --app isotier-test --attest refusing
export ISOTIER_FLY_API_URL="http://127.0.0.1:$(cat "$D/port")/v1"
verify_remote refusing
assert_eq "$rc" 1 "refusing: exit ($(cat "$D/out" "$D/err"))"
assert_eq "$(verdict)" "CONTRADICTED|CONTAINER" "refusing: stored verdict"
assert_contains "$(reason)" "no attestation available (refused: no report entry could be made: Read-only file system)"
all_deleted refusing 2
echo "ok: a refusing TSM in the real sandbox -> no attestation, sharing still decides"

# The same sandboxes, the offering's catalogue entry documenting SEV-SNP
# attestation (verify reads the field): offered, not given, and said so.
python3 "$ISOTIER_ROOT/tests/tools/catalogue_variant.py" "$ISOTIER_ROOT/catalogue/providers" \
  "$TMP/documented" flyio-machines attestation=sev-snp
verify_remote documented --catalogue "$TMP/documented"
assert_eq "$(verdict)" "CONTRADICTED|CONTAINER" "documented: stored verdict"
assert_contains "$(reason)" "the catalogue documents sev-snp attestation for this offering, but its sandboxes gave none"
all_deleted documented 2
echo "ok: an offering documenting attestation that gave none -> said so in the reason"

# `verify --attest` on this host: no TSM here, so it says so and changes nothing.
stop_emu
set +e
"$ISOTIER_BIN" verify --backend bwrap --db "$TMP/local.db" --attest >"$TMP/local.out" 2>&1
rc=$?
set -e
assert_contains "$(cat "$TMP/local.out")" "attestation (this host): "
if [ -e /sys/kernel/config/tsm/report ]; then
  echo "note: this host has configfs-tsm; its evidence was checked against the pinned roots"
else
  assert_contains "$(cat "$TMP/local.out")" "no attestation available (absent: no /sys/kernel/config/tsm/report"
  assert_contains "$(cat "$TMP/local.out")" "verdicts unchanged"
fi
assert_eq "$(sqlite3 "$TMP/local.db" "SELECT verdict FROM observations")" CONFIRMED "local: verdict unchanged ($rc)"
echo "ok: verify --attest without a TSM: no attestation available, verdict unchanged"
