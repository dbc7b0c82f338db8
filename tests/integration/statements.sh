#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# statements.sh - verdicts carry their own proof (reference/attestation/statement.c,
# identity.c): a real bwrap verification under host identity A is a DSSE
# envelope an independent implementation verifies (Python's cryptography,
# tests/tools/dsse_verify.py); A's gate grants on it. A row forged into the
# file, a row copied from host B's history, an edited envelope and a row
# edited after signing each fail to grant (78), the refusal naming the
# signature check; `isotier identity` never prints the private key and
# `statement verify` fails a foreign key.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
python3 -c 'import cryptography' 2>/dev/null || skip "python3-cryptography is not installed (scripts/deps.sh)"
machine_id=$(cat /etc/machine-id 2>/dev/null || cat /var/lib/dbus/machine-id 2>/dev/null || true)
[[ $machine_id =~ ^[0-9a-f]{32}$ ]] || skip "no machine id on this host: no observation can be this host's"

a=$TMP/host-a b=$TMP/host-b
gate() { # gate DB: run's exit status; the refusal in $TMP/gate.err
  set +e
  ISOTIER_IDENTITY_DIR=$a "$ISOTIER_BIN" run --db "$1" --require-isolation CONTAINER \
    --require-verified 7 --backend bwrap -- true >"$TMP/gate.out" 2>"$TMP/gate.err"
  echo $?
  set -e
}
verify_as() { # verify_as IDENTITY DB
  ISOTIER_IDENTITY_DIR=$1 "$ISOTIER_BIN" verify --backend bwrap --db "$2" >"$TMP/verify.out" 2>&1 ||
    fail "verify of bwrap: $(cat "$TMP/verify.out")"
  grep -Eq '^bwrap .* CONFIRMED' "$TMP/verify.out" || fail "bwrap not CONFIRMED: $(cat "$TMP/verify.out")"
}

# 1. Identity: made on first use, the private key its owner's only, never printed.
ISOTIER_IDENTITY_DIR=$a "$ISOTIER_BIN" identity >"$TMP/id.out" || fail "isotier identity"
assert_contains "$(cat "$TMP/id.out")" "BEGIN PUBLIC KEY"
grep -q PRIVATE "$TMP/id.out" && fail "identity printed a private key"
assert_eq "$(stat -c %a "$a/host.key")" 600 "host.key mode"
ISOTIER_IDENTITY_DIR=$a "$ISOTIER_BIN" identity --public-key >"$TMP/a.pub"
cmp -s "$TMP/a.pub" "$a/host.pub" || fail "--public-key is not host.pub"
key_a=$(awk '/^key id/ {print $3}' "$TMP/id.out")
[[ $key_a =~ ^[0-9a-f]{64}$ ]] || fail "key id: $key_a"
assert_eq "$(ISOTIER_IDENTITY_DIR=$a "$ISOTIER_BIN" identity | awk '/^key id/ {print $3}')" "$key_a" "the key is made once"

# 2. An honest verification grants, and its envelope verifies elsewhere.
db=$TMP/a.db
verify_as "$a" "$db"
assert_eq "$(gate "$db")" 0 "the honest signed row grants: $(cat "$TMP/gate.err")"
sql "$db" "SELECT statement FROM observations" >"$TMP/a.jsonl"
python3 "$ISOTIER_ROOT/tests/tools/dsse_verify.py" "$TMP/a.jsonl" "$a/host.pub" >"$TMP/py.out" ||
  fail "independent DSSE verification: $(cat "$TMP/py.out")"
assert_eq "$(cat "$TMP/py.out")" "verified 1" "python verified the envelope"
"$ISOTIER_BIN" statement verify "$TMP/a.jsonl" --key "$a/host.pub" >"$TMP/sv.out" || fail "statement verify: $(cat "$TMP/sv.out")"
assert_contains "$(cat "$TMP/sv.out")" "ok line 1 key ${key_a:0:16} https://isotier.dev/observation/v1"

# 2b. attest export: the statements and a SLSA verification summary per backend, all
# verified by the independent checker; bwrap's summary PASSED.
vsa() { # vsa FILE: the verificationResult of the bwrap summary in an export
  python3 - "$1" <<'PY'
import base64, json, sys
for line in open(sys.argv[1]):
    st = json.loads(base64.b64decode(json.loads(line)["payload"]))
    if st["predicateType"] == "https://slsa.dev/verification_summary/v1" and st["subject"][0]["name"].endswith("/backend/bwrap"):
        print(st["predicate"]["verificationResult"], ",".join(st["predicate"]["verifiedLevels"]))
PY
}
ISOTIER_IDENTITY_DIR=$a "$ISOTIER_BIN" attest export --db "$db" >"$TMP/export.jsonl" || fail "attest export"
assert_eq "$(wc -l <"$TMP/export.jsonl")" 2 "one statement, one summary"
python3 "$ISOTIER_ROOT/tests/tools/dsse_verify.py" "$TMP/export.jsonl" "$a/host.pub" >"$TMP/py.out" ||
  fail "independent verification of the export: $(cat "$TMP/py.out")"
assert_eq "$(vsa "$TMP/export.jsonl")" "PASSED ISOTIER_TIER_CONTAINER" "bwrap's summary"

# 3. Host B: its own key, its own history; its envelope fails A's key (both checkers).
ISOTIER_IDENTITY_DIR=$b "$ISOTIER_BIN" identity --public-key >"$TMP/b.pub"
set +e
"$ISOTIER_BIN" statement verify "$TMP/a.jsonl" --key "$TMP/b.pub" >"$TMP/sv.out"; rc=$?
python3 "$ISOTIER_ROOT/tests/tools/dsse_verify.py" "$TMP/a.jsonl" "$TMP/b.pub" >"$TMP/py.out"; prc=$?
set -e
assert_eq "$rc" 1 "statement verify with another host's key"
assert_contains "$(cat "$TMP/sv.out")" "FAIL line 1"
assert_eq "$prc" 1 "python with another host's key"

# 4. A copied row: B's honest CONFIRMED (statement and all) appended to A's history.
verify_as "$b" "$TMP/b.db"
cols="run_id, observed_at, backend, provider_id, claimed_tier, claimed_mechanism, observed_tier, verdict, reason, kernel_relation, ceiling_tier, host_id, claim_digest, uuid, statement"
cp "$db" "$TMP/copied.db"
sql "$TMP/copied.db" "ATTACH '$TMP/b.db' AS b; INSERT INTO observations($cols)
  SELECT (SELECT max(id) FROM runs), observed_at, backend, provider_id, claimed_tier, claimed_mechanism,
  observed_tier, verdict, reason, kernel_relation, ceiling_tier, host_id, claim_digest, uuid || '-b', statement
  FROM b.observations"
assert_eq "$(gate "$TMP/copied.db")" 78 "a row copied from host B"
assert_contains "$(cat "$TMP/gate.err")" "signature check"

# 5. A forged row: a CONFIRMED inserted into the file, no statement.
cp "$db" "$TMP/forged.db"
sql "$TMP/forged.db" "INSERT INTO observations($cols) SELECT run_id, observed_at, backend, provider_id,
  claimed_tier, claimed_mechanism, observed_tier, verdict, reason, kernel_relation, ceiling_tier, host_id,
  claim_digest, uuid || '-f', NULL FROM observations"
assert_eq "$(gate "$TMP/forged.db")" 78 "a forged row"
assert_contains "$(cat "$TMP/gate.err")" "signature check: the row has no signed statement"
ISOTIER_IDENTITY_DIR=$a "$ISOTIER_BIN" attest export --db "$TMP/forged.db" >"$TMP/export.jsonl" 2>"$TMP/export.err"
assert_eq "$(vsa "$TMP/export.jsonl")" "FAILED " "the forged row's summary"
assert_contains "$(cat "$TMP/export.err")" "1 unsigned observation left out"

# 6. An edited envelope: its payload changed (a byte of the reason), the signature kept.
cp "$db" "$TMP/edited.db"
python3 - "$TMP/a.jsonl" >"$TMP/edited.json" <<'PY'
import base64, json, sys
env = json.loads(open(sys.argv[1]).readline())
body = base64.b64decode(env["payload"]).replace(b'"reason":"claimed', b'"reason":"Claimed', 1)
env["payload"] = base64.b64encode(body).decode()
print(json.dumps(env))
PY
sql "$TMP/edited.db" "UPDATE observations SET statement = CAST(readfile('$TMP/edited.json') AS TEXT)" 2>/dev/null ||
  sql "$TMP/edited.db" "UPDATE observations SET statement = '$(sed "s/'/''/g" "$TMP/edited.json")'"
assert_eq "$(gate "$TMP/edited.db")" 78 "an edited envelope"
assert_contains "$(cat "$TMP/gate.err")" "signature check: no signature verifies"

# 7. A row edited after signing (its time moved, the envelope intact).
cp "$db" "$TMP/moved.db"
sql "$TMP/moved.db" "UPDATE observations SET observed_at = '2000-01-01T00:00:00Z'"
sql "$TMP/moved.db" "UPDATE observations SET observed_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-1 minute')"
assert_eq "$(gate "$TMP/moved.db")" 78 "a row edited after signing"
assert_contains "$(cat "$TMP/gate.err")" "observation.observedAt"

# 8. B's key trusted explicitly (ISOTIER_TRUSTED_KEYS): B's own history grants for A.
set +e
ISOTIER_IDENTITY_DIR=$a "$ISOTIER_BIN" run --db "$TMP/b.db" --require-isolation CONTAINER \
  --require-verified 7 --backend bwrap -- true >/dev/null 2>"$TMP/gate.err"; rc=$?
ISOTIER_TRUSTED_KEYS=$TMP/b.pub ISOTIER_IDENTITY_DIR=$a "$ISOTIER_BIN" run --db "$TMP/b.db" \
  --require-isolation CONTAINER --require-verified 7 --backend bwrap -- true >/dev/null 2>"$TMP/gate2.err"; trc=$?
set -e
assert_eq "$rc" 78 "B's rows without B's key trusted"
assert_contains "$(cat "$TMP/gate.err")" "signature check"
assert_eq "$trc" 0 "B's rows with B's key in ISOTIER_TRUSTED_KEYS: $(cat "$TMP/gate2.err")"
# 8b. Reports mark imported and unsigned rows (JSON and OSCAL).
marks() { # marks DB FORMAT: "imported,unsigned" of each observation, oldest first
  "$ISOTIER_BIN" report --db "$1" --no-catalogue --format "$2" --out "$TMP/r.$2" >/dev/null 2>&1 || fail "report $2 of $1"
  python3 - "$TMP/r.$2" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if sys.argv[2] == "json":
    print(" ".join(f'{o["imported"]},{o["unsigned"]}'.lower() for o in d["observations"]))
else:
    for o in d["assessment-results"]["results"][0]["observations"]:
        p = {x["name"]: x["value"] for x in o["props"]}
        print(f'{p["imported"]},{p["unsigned"]}', end=" ")
    print()
PY
}
assert_eq "$(marks "$db" json)" "false,false" "an honest row"
assert_eq "$(marks "$TMP/forged.db" json)" "false,false false,true" "the forged row is unsigned"
"$ISOTIER_BIN" history export --db "$db" >"$TMP/exp.jsonl"
"$ISOTIER_BIN" history import --db "$TMP/imported.db" "$TMP/exp.jsonl" >/dev/null || fail "import"
assert_eq "$(marks "$TMP/imported.db" json)" "true,false" "an imported row (its statement travelled)"
assert_eq "$(marks "$TMP/forged.db" oscal | sed 's/ *$//')" "false,true" "OSCAL: the forged row is bwrap's latest"

# 9. Hostile input to statement verify: garbage, a wrong payloadType, too many
# signatures, an empty file; named, never a crash.
{
  echo 'not json'
  echo '{"payloadType":"text/plain","payload":"e30=","signatures":[{"keyid":"","sig":"AAAA"}]}'
  python3 -c 'import json; print(json.dumps({"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"sig":"AAAA"}]*17}))'
  echo '{"payloadType":"application/vnd.in-toto+json","payload":"!!!","signatures":[]}'
} >"$TMP/hostile.jsonl"
set +e
"$ISOTIER_BIN" statement verify "$TMP/hostile.jsonl" --key "$a/host.pub" >"$TMP/h.out" 2>&1; rc=$?
: >"$TMP/empty"
"$ISOTIER_BIN" statement verify "$TMP/empty" --key "$a/host.pub" >/dev/null 2>&1; erc=$?
"$ISOTIER_BIN" statement verify "$TMP/a.jsonl" --key "$TMP/nope.pub" >/dev/null 2>&1; krc=$?
set -e
assert_eq "$rc" 1 "hostile envelopes fail"
assert_eq "$(grep -c '^FAIL line' "$TMP/h.out")" 4 "each hostile line named: $(cat "$TMP/h.out")"
assert_contains "$(cat "$TMP/h.out")" "payloadType 'text/plain'"
assert_contains "$(cat "$TMP/h.out")" "17 signatures"
assert_eq "$erc" 65 "an empty file"
assert_eq "$krc" 66 "a missing key file"
echo "statements: signed rows grant and verify independently; forged, copied and edited rows do not"
