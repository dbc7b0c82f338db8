#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# churn_scope.sh - the scope is part of a claim: a change of `scope` alone is
# churn (UNLOGGED until CHURN.md has an entry that writes the new scope,
# TIER/mechanism/scope, "-" for none); a heading without a scope does not log
# it; `churn log` and the JSON show it; a tier change that leaves the scope
# as it was is still logged by a heading without one; a scope outside the
# vocabulary, in a heading or a catalogue file, is refused. Real git
# repositories built here with the git CLI.
source "$ISOTIER_ROOT/tests/lib.sh"
command -v git >/dev/null || skip "git CLI not installed: it builds the fixture repositories"
[ -x "$ISOTIER_BIN" ] || fail "no $ISOTIER_BIN: build first"

export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
  GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1 HOME="$TMP"
R="$TMP/repo"
mkdir -p "$R/catalogue/providers"
cd "$R"
git init -q -b main .

# provider ID TIER MECHANISM [SCOPE]
provider() {
  python3 - "catalogue/providers/$1.json" "$@" <<'PY'
import json, sys
path, pid, tier, mech = sys.argv[1:5]
d = {"id": pid, "name": "Provider " + pid, "kind": "remote", "tier": tier, "mechanism": mech,
     "since": "2026-11-01", "sources": [], "history": [], "notes": "fixture"}
if len(sys.argv) > 5:
    d["scope"] = sys.argv[5]
json.dump(d, open(path, "w"))
PY
}
commit() { git add -A . && git commit -q -m "$1"; }
entry() { printf '\n### 2026-12-04 \xe2\x80\x94 %s: %s \xe2\x86\x92 %s\n- Source: https://example.org/%s\n- Note: fixture change.\n' "$1" "$2" "$3" "$1" >>CHURN.md; }
churn() { set +e; out=$("$ISOTIER_BIN" churn "$@" 2>&1); rc=$?; set -e; }

printf '# Churn log\n\n## Entries\n' >CHURN.md
provider lambda MICROVM firecracker
provider sprites MICROVM vm per-sandbox
provider other CONTAINER runc per-sandbox
commit "catalogue: three offerings"
git tag v0

echo "== a scope added, and one changed, with nothing else: UNLOGGED"
provider lambda MICROVM firecracker between-accounts
provider sprites MICROVM vm between-tenants
commit "scopes"
churn --since v0
assert_eq "$rc" 1 "a scope change is churn: $out"
assert_contains "$out" "UNLOGGED lambda: MICROVM/firecracker/- → MICROVM/firecracker/between-accounts"
assert_contains "$out" "UNLOGGED sprites: MICROVM/vm/per-sandbox → MICROVM/vm/between-tenants"
assert_contains "$out" "2 tier/mechanism/scope changes, 2 unlogged"
churn --since v0 --json
echo "$out" >"$TMP/c.json"
python3 - "$TMP/c.json" <<'PY' || fail "json: $out"
import json, sys
d = json.load(open(sys.argv[1]))
by = {c["id"]: c for c in d["changes"]}
assert by["lambda"]["kind"] == "scope" and by["lambda"]["logged"] is False, by
assert by["lambda"]["old"]["scope"] is None and by["lambda"]["new"]["scope"] == "between-accounts", by
assert by["sprites"]["old"]["scope"] == "per-sandbox", by
PY

echo "== a heading without a scope does not log a scope change"
printf '\n### 2026-12-04 \xe2\x80\x94 lambda: UNKNOWN/firecracker \xe2\x86\x92 MICROVM/firecracker\n- Source: https://example.org/x\n- Note: unrelated.\n' >>CHURN.md
commit "CHURN.md: an unrelated lambda entry"
churn --since v0
assert_eq "$rc" 1
assert_contains "$out" "UNLOGGED lambda"

echo "== entries that write the scope log it"
entry lambda MICROVM/firecracker/- MICROVM/firecracker/between-accounts
entry sprites MICROVM/vm MICROVM/vm/between-tenants
commit "CHURN.md: scopes"
churn --since v0
assert_eq "$rc" 0 "logged: $out"
assert_contains "$out" "logged   lambda: MICROVM/firecracker/- → MICROVM/firecracker/between-accounts"
git tag v1

echo "== churn log shows the scope change"
churn log
assert_eq "$rc" 0 "churn log: $out"
assert_contains "$out" "MICROVM/firecracker/- → MICROVM/firecracker/between-accounts"

echo "== a tier change that keeps the scope is logged by a heading without one"
provider other GVISOR gvisor per-sandbox
commit "other to gVisor"
churn --since v1
assert_eq "$rc" 1
assert_contains "$out" "UNLOGGED other: CONTAINER/runc/per-sandbox → GVISOR/gvisor/per-sandbox"
entry other CONTAINER/runc GVISOR/gvisor
commit "CHURN.md: other"
churn --since v1
assert_eq "$rc" 0 "a heading without a scope logs a change that keeps it: $out"

echo "== a scope outside the vocabulary is refused"
entry other GVISOR/gvisor/everyone MICROVM/kata
commit "CHURN.md: a bad scope"
churn --since v1
assert_eq "$rc" 65 "bad scope in a heading: $out"
assert_contains "$out" "scope must be per-sandbox, between-tenants, between-accounts or - (none)"
git reset -q --hard HEAD~1
provider other GVISOR gvisor everyone
commit "a bad scope in a file"
churn --since v1
assert_eq "$rc" 65 "bad scope in a file: $out"
assert_contains "$out" "field \"scope\""
echo "ok"
