#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# isotier history: newest first, --backend, --limit, --json, terminal-safe,
# read-only; and a CONTRADICTED verdict (exit 1) recorded next to a CONFIRMED one.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
faults=$ISOTIER_ROOT/$BUILD/tests
[ -x "$faults/fault-probe-none" ] || fail "fault probes not built ($faults)"
db=$TMP/h.db
q() { sql "$db" "$1"; }

# No database yet: history fails cleanly and creates nothing.
set +e
out=$("$ISOTIER_BIN" history --db "$db" 2>&1); rc=$?
set -e
[ "$rc" -ne 0 ] || fail "history on a missing database succeeded"
assert_contains "$out" "$db"
[ ! -e "$db" ] || fail "history created $db"

# 1: a probe that sees no boundary inside bwrap -> CONTRADICTED, exit 1.
set +e
ISOTIER_PROBE=$faults/fault-probe-none "$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/o1" 2>&1; rc=$?
set -e
assert_eq "$rc" 1 "CONTRADICTED exits 1 ($(cat "$TMP/o1"))"
grep -Eq '^bwrap .* NONE +CONTRADICTED' "$TMP/o1" || fail "summary: $(cat "$TMP/o1")"
# 2: the real probe -> CONFIRMED, exit 0. 3: host, no claim.
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/o2" 2>&1 || fail "real probe in bwrap: $(cat "$TMP/o2")"
"$ISOTIER_BIN" verify --backend host --db "$db" >"$TMP/o3" 2>&1 || fail "host: $(cat "$TMP/o3")"
assert_eq "$(q "SELECT count(*) FROM observations")" 3 "three observations"

# Hostile text in the database (a reason with terminal escapes) must not reach the terminal raw.
q "UPDATE observations SET reason = 'evil ' || char(27) || '[2J' || char(7) || ' end' WHERE id = 1"
sum_before=$(sha256sum "$db" | cut -d' ' -f1)

"$ISOTIER_BIN" history --db "$db" >"$TMP/h" 2>&1 || fail "history: $(cat "$TMP/h")"
assert_eq "$(wc -l <"$TMP/h")" 4 "header + 3 rows"
assert_eq "$(sed -n 2p "$TMP/h" | awk '{print $4}')" host "newest first"
sed -n 2p "$TMP/h" | grep -q 'INCONCLUSIVE' || fail "host row: $(sed -n 2p "$TMP/h")"
sed -n 3p "$TMP/h" | grep -Eq '^2 +[0-9T:Z-]+ +[0-9]+ +bwrap +CONTAINER +CONTAINER +CONFIRMED' || fail "bwrap CONFIRMED row: $(sed -n 3p "$TMP/h")"
# --wide: the mechanism, the vendor and the whole reason.
"$ISOTIER_BIN" history --db "$db" --wide >"$TMP/hw" 2>&1 || fail "history --wide: $(cat "$TMP/hw")"
sed -n 3p "$TMP/hw" | grep -Eq 'bwrap +bubblewrap +CONTAINER \(bubblewrap\) +CONTAINER( \(bubblewrap\))? +CONFIRMED' || fail "bwrap --wide row: $(sed -n 3p "$TMP/hw")"
sed -n 4p "$TMP/hw" | grep -Eq 'bwrap .*NONE +CONTRADICTED +.*evil \\x1b\[2J\\x07 end' || fail "sanitized row: $(sed -n 4p "$TMP/hw" | od -c | head)"
if grep -q $'\x1b' "$TMP/h" "$TMP/hw"; then fail "a raw ESC reached the output"; fi

# --backend, --limit, --json.
"$ISOTIER_BIN" history --db "$db" --backend bwrap --json >"$TMP/j"
assert_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(o["verdict"] for o in d["observations"]))' "$TMP/j")" "CONFIRMED CONTRADICTED" "bwrap rows, newest first"
assert_eq "$(json_get "$TMP/j" observations.1.reason)" "evil "$'\x1b'"[2J"$'\x07'" end" "JSON keeps the text, escaped by the encoder"
grep -q '\\u001b' "$TMP/j" || fail "JSON does not escape ESC"
assert_eq "$(json_get "$TMP/j" observations.0.claimed_tier)" CONTAINER "claimed tier"
assert_eq "$(json_get "$TMP/j" observations.0.run_status)" ok "run status"
assert_eq "$(json_get "$TMP/j" observations.1.run_status)" ok "a run that found a contradiction still worked"
[ "$(json_get "$TMP/j" observations.0.evidence_bytes)" -gt 0 ] || fail "no evidence recorded"
"$ISOTIER_BIN" history --db "$db" --limit 1 --json >"$TMP/j1"
assert_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["observations"]))' "$TMP/j1")" 1 "--limit 1"
assert_eq "$(json_get "$TMP/j1" observations.0.backend)" host "--limit 1 keeps the newest"
"$ISOTIER_BIN" history --db "$db" --backend runsc >"$TMP/none"
assert_contains "$(cat "$TMP/none")" "(no observations match)"

# Read-only: the file is unchanged.
assert_eq "$(sha256sum "$db" | cut -d' ' -f1)" "$sum_before" "history modified the database"

# The host judged against a catalogue entry (--host-provider): on this machine
# kind (a Firecracker microVM) a Firecracker claim is CONFIRMED and a runc
# (CONTAINER) claim is exceeded.
if dmesg 2>/dev/null | grep -q FIRECK; then
  "$ISOTIER_BIN" verify --backend host --host-provider firecracker --db "$db" --json >"$TMP/hp.json" || fail "host vs firecracker"
  assert_eq "$(json_get "$TMP/hp.json" results.0.verdict) $(json_get "$TMP/hp.json" results.0.provider_id)" "CONFIRMED firecracker" "host vs firecracker"
  "$ISOTIER_BIN" verify --backend host --host-provider runc --db "$db" --json >"$TMP/hp2.json" || fail "host vs runc"
  assert_eq "$(json_get "$TMP/hp2.json" results.0.verdict)" EXCEEDS "host vs a CONTAINER claim"
  assert_eq "$(q "SELECT verdict || ' ' || provider_id || ' ' || claimed_tier FROM observations ORDER BY id DESC LIMIT 1")" "EXCEEDS runc CONTAINER" "stored"
fi

# A catalogue outside any git repository: commit "unknown". A broken file in
# it: still judged from the valid entries, recorded, and exit 65 naming the file.
mkdir -p "$TMP/cat"
cp "$ISOTIER_ROOT"/catalogue/providers/*.json "$TMP/cat/"
"$ISOTIER_BIN" verify --backend bwrap --catalogue "$TMP/cat" --db "$db" --json >"$TMP/c.json" || fail "copied catalogue"
assert_eq "$(json_get "$TMP/c.json" catalogue_commit)" unknown "catalogue commit outside git"
assert_eq "$(q "SELECT catalogue_commit FROM runs ORDER BY id DESC LIMIT 1")" unknown "stored commit"
printf '{"id": "broken", "tier": 7' >"$TMP/cat/broken.json"
set +e
"$ISOTIER_BIN" verify --backend bwrap --catalogue "$TMP/cat" --db "$db" --json >"$TMP/c2.json" 2>"$TMP/c2.err"
rc=$?
set -e
assert_eq "$rc" 65 "invalid catalogue file"
assert_contains "$(cat "$TMP/c2.err")" "broken.json"
assert_eq "$(json_get "$TMP/c2.json" results.0.verdict)" CONFIRMED "valid entries still judged"
set +e
"$ISOTIER_BIN" verify --backend bwrap --catalogue "$TMP/no-such-dir" --db "$db" >/dev/null 2>&1
assert_eq "$?" 65 "missing catalogue directory"
set -e

# Usage errors.
set +e
"$ISOTIER_BIN" history --db "$db" --limit -3 >/dev/null 2>&1; assert_eq "$?" 64 "--limit -3"
"$ISOTIER_BIN" history --db "$db" extra >/dev/null 2>&1; assert_eq "$?" 64 "extra argument"
"$ISOTIER_BIN" verify --backend nosuch --db "$db" >/dev/null 2>&1; assert_eq "$?" 64 "unknown backend"
"$ISOTIER_BIN" verify --all --backend bwrap --db "$db" >/dev/null 2>&1; assert_eq "$?" 64 "--all with --backend"
"$ISOTIER_BIN" verify --backend host --host-provider no-such-provider --db "$db" >/dev/null 2>&1; assert_eq "$?" 64 "unknown --host-provider"
# A database that cannot be used is not "locked" (75): 74 for I/O, 65 for not-a-database.
"$ISOTIER_BIN" verify --backend host --db "$TMP/no/such/dir/h.db" >/dev/null 2>&1; assert_eq "$?" 74 "database in a missing directory"
printf 'not sqlite at all, just text long enough to be read as a header....................' >"$TMP/text.db"
"$ISOTIER_BIN" verify --backend host --db "$TMP/text.db" >/dev/null 2>"$TMP/t.err"; assert_eq "$?" 65 "not a database"
"$ISOTIER_BIN" history --db "$TMP/text.db" >/dev/null 2>&1; [ "$?" -ne 0 ] || fail "history read a text file"
set -e
echo "history ok"
