#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# catalogue_counts: every count or list of the catalogue that README.md and
# CHANGELOG.md state is generated from it (scripts/catalogue-counts.py) and
# agrees with it; a count kept by hand, or one that drifted, fails.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 is needed for scripts/catalogue-counts.py"
tool=$ISOTIER_ROOT/scripts/catalogue-counts.py
python3 "$tool" --root "$ISOTIER_ROOT" || fail "README.md/CHANGELOG.md disagree with the catalogue (run $tool --write)"
# The real documents state the counts at all (the check is not vacuous).
n=$(ls "$ISOTIER_ROOT"/catalogue/providers/*.json | wc -l)
grep -q "<!-- catalogue:offerings -->$n<!-- /catalogue:offerings -->" "$ISOTIER_ROOT/README.md" || fail "README.md does not state $n offerings"
grep -q "<!-- catalogue:unknown -->" "$ISOTIER_ROOT/CHANGELOG.md" || fail "CHANGELOG.md lists no UNKNOWN offerings"
# A drifted count, a hand-kept count, an unknown key and an open region fail, naming the line.
mkdir -p "$TMP/cat"
cp "$ISOTIER_ROOT"/catalogue/providers/runc.json "$ISOTIER_ROOT"/catalogue/providers/render.json "$TMP/cat/"
printf 'x\n<!-- catalogue:offerings -->2<!-- /catalogue:offerings --> and <!-- catalogue:unknown -->`render`<!-- /catalogue:unknown -->\n' >"$TMP/ok.md"
python3 "$tool" --catalogue "$TMP/cat" "$TMP/ok.md" || fail "a correct document was refused"
printf 'x\n<!-- catalogue:offerings -->3<!-- /catalogue:offerings -->\n' >"$TMP/drift.md"
set +e
out=$(python3 "$tool" --catalogue "$TMP/cat" "$TMP/drift.md" 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "drifted count"
assert_contains "$out" "drift.md:2: catalogue:offerings says '3', the catalogue says '2'"
printf 'We list 60 offerings.\n' >"$TMP/hand.md"
set +e
out=$(python3 "$tool" --catalogue "$TMP/cat" "$TMP/hand.md" 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "hand-kept count"
assert_contains "$out" "hand.md:1: '60 offerings' is a count kept by hand"
printf '<!-- catalogue:colour -->x<!-- /catalogue:colour -->\n<!-- catalogue:offerings -->2\n' >"$TMP/bad.md"
set +e
out=$(python3 "$tool" --catalogue "$TMP/cat" "$TMP/bad.md" 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "bad regions"
assert_contains "$out" "unknown key catalogue:colour"
assert_contains "$out" "bad.md:2: catalogue:offerings is never closed"
# --write repairs the drifted one.
python3 "$tool" --catalogue "$TMP/cat" --write "$TMP/drift.md"
assert_contains "$(cat "$TMP/drift.md")" "<!-- catalogue:offerings -->2<!-- /catalogue:offerings -->"
echo "catalogue_counts: ok"
