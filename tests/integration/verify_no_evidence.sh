#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# verify --no-evidence (issue #24): no capture directory at all (no
# mkdtemp, no bind mount, the probe not asked to --capture), no evidence
# stored, the observation saying so, and the same verdict as a run that
# keeps its capture (no verdict reads the capture).
. "$ISOTIER_ROOT/tests/lib.sh"

command -v strace >/dev/null || skip "strace is not installed (scripts/deps.sh installs it)"
command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
db=$TMP/h.db
q() { sql "$db" "$1"; }
# The capture directory is made under $TMPDIR: a private one shows what
# each run left there.
mkdir "$TMP/tmpdir"
export TMPDIR=$TMP/tmpdir

# Every directory made and program started, by isotier and the sandbox.
traced() {
  strace -f -qq --seccomp-bpf -s 256 -o "$1" -e trace=mkdir,mkdirat,execve \
    "$ISOTIER_BIN" verify --backend bwrap --db "$db" --json "${@:2}"
}

traced "$TMP/with" >"$TMP/with.json" 2>"$TMP/with.err" || fail "verify: $(cat "$TMP/with.err")"
traced "$TMP/without" --no-evidence >"$TMP/without.json" 2>"$TMP/without.err" \
  || fail "verify --no-evidence: $(cat "$TMP/without.err")"

# The run that keeps evidence made a capture directory and asked for it
# (else the checks on the other run below prove nothing).
grep -q 'isotier-capture-' "$TMP/with" || fail "the default run made no capture directory"
grep -q '"--capture"' "$TMP/with" || fail "the default run did not ask the probe to capture"
assert_eq "$(json_get "$TMP/with.json" results.0.evidence_bytes | cut -d. -f1)" \
  "$(q 'SELECT length(content) FROM evidence_blobs')" "the default run's evidence"
! grep -q 'isotier-capture-' "$TMP/without" || fail "--no-evidence made a capture directory: $(grep isotier-capture- "$TMP/without" | head -3)"
! grep -q '"--capture"' "$TMP/without" || fail "--no-evidence asked the probe to capture"
assert_eq "$(ls -A "$TMP/tmpdir")" "" "what the runs left in TMPDIR"
echo "ok: --no-evidence makes no capture directory and asks for no capture"

# Stored: the default run's evidence, none for --no-evidence, and why.
assert_eq "$(q 'SELECT count(*) FROM observations WHERE evidence_sha256 IS NOT NULL')" 1 "observations with evidence"
assert_eq "$(q 'SELECT evidence_sha256 IS NULL, evidence_format IS NULL FROM observations WHERE id = 2')" "1|1" \
  "the --no-evidence observation's evidence"
assert_eq "$(json_get "$TMP/without.json" results.0.evidence_bytes | cut -d. -f1)" 0 "evidence_bytes printed"
assert_contains "$(q 'SELECT reason FROM observations WHERE id = 2')" "no evidence kept (not asked: --no-evidence)"
! grep -q "no evidence kept" <<<"$(q 'SELECT reason FROM observations WHERE id = 1')" \
  || fail "the default run's observation says no evidence was kept"
show=$("$ISOTIER_BIN" history show 2 --db "$db") || fail "history show 2"
assert_contains "$show" "evidence 0 bytes"
assert_contains "$show" "no evidence kept (not asked"
echo "ok: the observation stores no evidence and says it was not asked for"

# The same verdict, observed tier and kernel relation either way.
for f in verdict observed_tier kernel_relation; do
  assert_eq "$(json_get "$TMP/without.json" results.0.$f)" "$(json_get "$TMP/with.json" results.0.$f)" "$f"
done
assert_eq "$(json_get "$TMP/without.json" results.0.verdict)" CONFIRMED "bwrap's verdict"
echo "ok: the same verdict without the capture"
