#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# churn.sh - `isotier churn` on real git repositories built here with the git
# CLI (the tool itself reads them with libgit2 only): logged and unlogged tier
# and mechanism changes, additions and removals, renames, merges, malformed
# history, missing refs, shallow clones, the churn log and the release gate.
source "$ISOTIER_ROOT/tests/lib.sh"
command -v git >/dev/null || skip "git CLI not installed: it builds the fixture repositories"
[ -x "$ISOTIER_BIN" ] || fail "no $ISOTIER_BIN: build first"

export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
  GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1 HOME="$TMP"
R="$TMP/repo"
mkdir -p "$R/catalogue/providers"
cd "$R"
git init -q -b main .

# provider ID TIER MECHANISM [FILE-STEM]: a catalogue file as FORMAT.md has it.
provider() {
  cat >"catalogue/providers/${4:-$1}.json" <<EOF
{"id": "$1", "name": "Provider $1", "kind": "remote", "tier": "$2", "mechanism": "$3",
 "since": "2026-11-01", "sources": [], "history": [], "notes": "fixture"}
EOF
}
commit() { git add -A . && git commit -q -m "$1"; }
# entry ID OLD NEW: a CHURN.md entry (OLD/NEW as TIER/mechanism).
entry() { printf '\n### 2026-11-30 \xe2\x80\x94 %s: %s \xe2\x86\x92 %s\n- Source: https://example.org/%s\n- Note: fixture change.\n' "$1" "$2" "$3" "$1" >>CHURN.md; }
# churn ARGS...: runs the tool, output in $out, exit status in $rc.
churn() { set +e; out=$("$ISOTIER_BIN" churn "$@" 2>&1); rc=$?; set -e; }

printf '# Churn log\n\n```\n### 2026-01-01 \xe2\x80\x94 example: GVISOR/gvisor \xe2\x86\x92 MICROVM/kata\n```\n\n## Entries\n' >CHURN.md
provider alpha CONTAINER runc
provider beta MICROVM firecracker
provider gamma GVISOR gvisor
provider delta UNKNOWN unknown
commit "catalogue: four providers"
git tag v0
first=$(git rev-parse HEAD)

echo "== an unchanged catalogue passes"
echo readme >README && commit "unrelated"
churn --since v0
assert_eq "$rc" 0 "unchanged catalogue"
assert_contains "$out" "0 provider changes, 0 tier/mechanism/scope changes, 0 unlogged"

echo "== a tier change without an entry fails and lists it; a mechanism-only change too"
provider alpha GVISOR gvisor
provider beta MICROVM kata
commit "alpha to gVisor, beta to Kata"
git branch two-changes
churn --since v0
assert_eq "$rc" 1 "unlogged changes"
assert_contains "$out" "UNLOGGED alpha: CONTAINER/runc → GVISOR/gvisor"
assert_contains "$out" "UNLOGGED beta: MICROVM/firecracker → MICROVM/kata"
assert_contains "$out" "2 unlogged"
churn --since v0 --json --junit "$TMP/j.xml"
assert_eq "$rc" 1
echo "$out" >"$TMP/c.json"
assert_eq "$(json_get "$TMP/c.json" unlogged)" 2
assert_eq "$(json_get "$TMP/c.json" changes.0.kind)" tier+mechanism
assert_eq "$(json_get "$TMP/c.json" changes.1.kind)" mechanism
assert_eq "$(json_get "$TMP/c.json" changes.1.old.mechanism)" firecracker
python3 - "$TMP/j.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
cases = s.findall("testcase")
assert len(cases) == 2 and s.get("failures") == "2", ET.tostring(s)
assert all(c.find("failure") is not None for c in cases)
EOF

echo "== with entries it passes (one entry logged, one still missing first)"
entry alpha CONTAINER/runc GVISOR/gvisor
commit "CHURN.md: alpha"
churn --since v0
assert_eq "$rc" 1 "beta is still unlogged"
assert_contains "$out" "logged   alpha: CONTAINER/runc → GVISOR/gvisor (CHURN.md:"
assert_contains "$out" "1 unlogged"
entry beta MICROVM/firecracker MICROVM/kata
commit "CHURN.md: beta"
churn --since v0
assert_eq "$rc" 0 "all logged"
assert_contains "$out" "2 tier/mechanism/scope changes, 0 unlogged"
# The entry is read from --until: at two-changes there is none yet.
churn --since v0 --until two-changes
assert_eq "$rc" 1 "CHURN.md at --until"

echo "== --since accepts tags, branches, full and short commit ids"
git branch base "$first"
for ref in v0 base "$first" "${first:0:10}" main~3; do
  churn --since "$ref"
  assert_eq "$rc" 0 "--since $ref"
  assert_contains "$out" "2 tier/mechanism/scope changes, 0 unlogged"
done

echo "== a provider added and one removed need no entry"
provider epsilon MICROVM vm
git rm -q catalogue/providers/delta.json
commit "epsilon in, delta out"
churn --since v0 --json
assert_eq "$rc" 0
echo "$out" >"$TMP/c.json"
python3 - "$TMP/c.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
kinds = {c["id"]: c["kind"] for c in d["changes"]}
assert kinds == {"alpha": "tier+mechanism", "beta": "mechanism", "delta": "removed",
                 "epsilon": "added"}, kinds
assert d["changes"][2]["new"] is None and d["changes"][3]["old"] is None
EOF
git tag v1

echo "== renaming a file keeps its id: no add+remove; a rename with a tier change is one change"
git mv catalogue/providers/gamma.json catalogue/providers/gamma-sandbox.json
commit "rename gamma's file"
churn --since v1
assert_eq "$rc" 0 "rename only"
assert_contains "$out" "0 provider changes"
git mv catalogue/providers/gamma-sandbox.json catalogue/providers/gamma-vm.json
provider gamma MICROVM firecracker gamma-vm
commit "gamma moves to microVMs, file renamed"
churn --since v1
assert_eq "$rc" 1
assert_contains "$out" "renamed catalogue/providers/gamma.json -> catalogue/providers/gamma-vm.json"
assert_contains "$out" "UNLOGGED gamma: GVISOR/gvisor → MICROVM/firecracker"
assert_contains "$out" "1 provider change, "
churn --since v1 --until v0
assert_eq "$rc" 1 "reversed range: the reverse changes are unlogged"
assert_contains "$out" "warning: v1 is not an ancestor of v0"

echo "== two moves between revisions are logged by a chain of entries"
entry gamma GVISOR/gvisor MICROVM/kata
entry gamma MICROVM/kata MICROVM/firecracker
commit "CHURN.md: gamma, in two steps"
churn --since v1
assert_eq "$rc" 0 "chain of entries"

echo "== merge commits"
git checkout -q -b feature
provider beta MICROVM cloud-hypervisor
commit "feature: beta on cloud-hypervisor"
git checkout -q main
echo more >>README && commit "main: unrelated"
git merge -q --no-ff -m "merge feature" feature
merge=$(git rev-parse HEAD)
churn --since v1
assert_eq "$rc" 1
assert_contains "$out" "UNLOGGED beta: MICROVM/kata → MICROVM/cloud-hypervisor"
assert_contains "$out" "logs beta: MICROVM/firecracker → MICROVM/kata, not this change)"
entry beta MICROVM/kata MICROVM/cloud-hypervisor
commit "CHURN.md: beta"
churn --since v1
assert_eq "$rc" 0 "merged change logged"

echo "== churn log: first-parent timeline per provider"
churn log
assert_eq "$rc" 0 "log"
assert_contains "$out" "alpha"
assert_contains "$out" "tier+mechanism CONTAINER/runc → GVISOR/gvisor"
assert_contains "$out" "${merge:0:12}"   # the merge carries the merged branch's change
assert_contains "$out" "mechanism      MICROVM/kata → MICROVM/cloud-hypervisor"
assert_contains "$out" "removed        (was UNKNOWN/unknown)"
assert_contains "$out" "added          CONTAINER/runc"
churn log --since v1 --json
assert_eq "$rc" 0
echo "$out" >"$TMP/log.json"
python3 - "$TMP/log.json" "$merge" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["events"]
got = [(e["id"], e["kind"], e["old"]["tier"] + "/" + e["old"]["mechanism"],
        e["new"]["tier"] + "/" + e["new"]["mechanism"]) for e in ev]
assert got == [("gamma", "tier+mechanism", "GVISOR/gvisor", "MICROVM/firecracker"),
               ("beta", "mechanism", "MICROVM/kata", "MICROVM/cloud-hypervisor")], got
assert ev[1]["commit"] == sys.argv[2], ev[1]
assert all(len(e["date"]) == 20 for e in ev)
EOF

echo "== the repository is found from a subdirectory, or given with --repo"
(cd catalogue/providers && "$ISOTIER_BIN" churn --since v1 >/dev/null) || fail "discovery from a subdirectory"
cd "$TMP"
churn --since v1 --repo "$R"
assert_eq "$rc" 0 "--repo"
churn --since v1 --repo "$TMP"
assert_eq "$rc" 65 "--repo that is not a repository"
cd "$R"

echo "== a ref that does not exist is an error (65), not a pass"
churn --since v9.9.9
assert_eq "$rc" 65 "missing ref"
assert_contains "$out" "revision 'v9.9.9' not found"
churn --since v0 --until no-such-branch
assert_eq "$rc" 65
churn --since 0123456789abcdef0123456789abcdef01234567
assert_eq "$rc" 65 "missing commit id"
churn
assert_eq "$rc" 64 "--since is required"
churn --since v0 --bogus
assert_eq "$rc" 64

echo "== a malformed historical file is an error (65) naming revision and path"
good=$(git rev-parse HEAD)
echo '{"id": "zeta", "tier": "MICROVM",' >catalogue/providers/zeta.json
commit "broken zeta"
git tag broken
echo '{"id": "zeta", "tier": "MICROVM"}' >catalogue/providers/zeta.json
commit "zeta without mechanism"
git tag old-schema
python3 -c 'import json; print(json.dumps({"id": "zeta", "tier": "MICROVM", "mechanism": "vm", "notes": "x" * (2 << 20)}))' >catalogue/providers/zeta.json
commit "a 2 MiB provider file"
git tag huge
git rm -q catalogue/providers/zeta.json && commit "drop zeta"
churn --since huge
assert_eq "$rc" 65 "oversized historical file"
assert_contains "$out" "zeta.json: larger than 1048576 bytes"
churn --since broken
assert_eq "$rc" 65 "unparsable JSON in --since"
assert_contains "$out" "revision broken ("
assert_contains "$out" "catalogue/providers/zeta.json: not valid JSON"
churn --since old-schema
assert_eq "$rc" 65 "missing field"
assert_contains "$out" "zeta.json: field \"mechanism\" missing"
cp catalogue/providers/alpha.json catalogue/providers/alpha-copy.json
commit "two files with one id"
dup=$(git rev-parse HEAD)
churn --since v1
assert_eq "$rc" 65 "duplicate id"
assert_contains "$out" "both have id \"alpha\""
git rm -q catalogue/providers/alpha-copy.json && commit "drop the copy"

echo "== churn log warns about unreadable revisions and goes on across them"
ln -s ../../README catalogue/providers/evil.json
commit "a symlinked catalogue file"
symlinked=$(git rev-parse HEAD)
provider beta MICROVM qemu  # a real change while the symlink is there: not readable
commit "beta moves to qemu, symlink still present"
inside=$(git rev-parse HEAD)
git rm -q catalogue/providers/evil.json && commit "drop the symlink"
provider alpha GVISOR runsc
commit "alpha's mechanism changes after the symlink is gone"
after=$(git rev-parse HEAD)
# The check (and the release gate) stay strict about the revisions they compare.
churn --since "$symlinked"
assert_eq "$rc" 65 "churn --since a revision with a symlinked file"
assert_contains "$out" "evil.json: a symbolic link"
set +e
out=$("$ISOTIER_BIN" churn log --since "$good" --json 2>"$TMP/log.err"); rc=$?
set -e
assert_eq "$rc" 0 "log through broken revisions"
err=$(cat "$TMP/log.err")
assert_contains "$err" "warning: skipped revision ${symlinked:0:12}: revision $symlinked: catalogue/providers/evil.json: a symbolic link"
assert_contains "$err" "zeta.json: not valid JSON"
assert_contains "$err" "zeta.json: larger than 1048576 bytes"
assert_contains "$err" "both have id \"alpha\""
echo "$out" >"$TMP/skip.json"
python3 - "$TMP/skip.json" "$symlinked" "$dup" "$after" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
symlinked, dup, after = sys.argv[2:5]
skipped = [k["commit"] for k in d["skipped"]]
# broken, old-schema, huge, the duplicate id, the symlink and the commit after it
assert len(skipped) == 6, d["skipped"]
assert symlinked in skipped and dup in skipped, skipped
assert all(len(k["date"]) == 20 and k["reason"].startswith("revision ") for k in d["skipped"])
got = [(e["id"], e["kind"], e["old"]["mechanism"], e["new"]["mechanism"], e["commit"]) for e in d["events"]]
# beta's move, made while the catalogue was unreadable, is carried by the next readable revision.
assert ("beta", "mechanism", "cloud-hypervisor", "qemu") in [g[:4] for g in got], got
assert got[-1][0] == "alpha" and got[-1][4] == after, got
PY
churn log --since "$good"
assert_eq "$rc" 0 "text log through broken revisions"
assert_contains "$out" "MICROVM/cloud-hypervisor → MICROVM/qemu"
# Nothing readable at all: an error.
churn log --since "$symlinked" --until "$inside"
assert_eq "$rc" 65 "a log whose only revision is unreadable"
assert_contains "$out" "no revision's catalogue could be read"

echo "== a malformed CHURN.md at --until is an error (65) naming the line"
cp CHURN.md "$TMP/churn.bak"
printf '\n### 2026-11-31 \xe2\x80\x94 alpha: CONTAINER/runc \xe2\x86\x92 GVISOR/gvisor\n- Source: https://x/\n- Note: n\n' >>CHURN.md
commit "bad date in CHURN.md"
line=$(grep -n '2026-11-31' CHURN.md | cut -d: -f1)
churn --since v1
assert_eq "$rc" 65 "malformed CHURN.md"
assert_contains "$out" "CHURN.md:$line: expected a date"
cp "$TMP/churn.bak" CHURN.md && commit "fix CHURN.md"

echo "== a shallow clone without --since is an error (65), not a pass"
git clone -q --depth 1 "file://$R" "$TMP/shallow"
churn --repo "$TMP/shallow" --since "$first"
assert_eq "$rc" 65 "shallow clone"
assert_contains "$out" "shallow clone"
churn log --repo "$TMP/shallow"
assert_eq "$rc" 65 "log in a shallow clone"

echo "== release gate: CHANGELOG.md lists each release's churn"
cat >CHANGELOG.md <<'EOF'
# Changelog

## [Unreleased]

## [0.1.0] - 2026-12-01
### Added
- The catalogue.
EOF
commit "CHANGELOG for 0.1.0"
git tag v0.1.0
provider epsilon GVISOR gvisor
entry epsilon MICROVM/vm GVISOR/gvisor
commit "epsilon moves to gVisor"
churn release-check --unreleased
assert_eq "$rc" 1 "Unreleased section does not list it"
assert_contains "$out" "[Unreleased] ### Churn lists 2026-11-30 — epsilon: MICROVM/vm → GVISOR/gvisor: not listed"
python3 - <<'EOF'
s = open("CHANGELOG.md").read().replace("## [Unreleased]\n", "## [Unreleased]\n\n## [0.2.0] - 2026-12-02\n### Churn\n- 2026-11-30 — epsilon: MICROVM/vm → GVISOR/gvisor\n")
open("CHANGELOG.md", "w").write(s)
EOF
commit "CHANGELOG for 0.2.0"
git tag v0.2.0
churn release-check --junit "$TMP/r.xml"
assert_eq "$rc" 0 "release-check at the v0.2.0 tag"
assert_contains "$out" "release 0.2.0: catalogue churn v0.1.0"
grep -q 'classname="release" name="\[0.2.0\] ### Churn lists 2026-11-30' "$TMP/r.xml" || fail "junit release testcase"
# The first release compares against an empty catalogue: every CHURN.md entry is its churn.
churn release-check --tag v0.1.0
assert_eq "$rc" 1 "the first release lists none of the five entries"
assert_contains "$out" "release 0.1.0: catalogue churn (empty catalogue) .. v0.1.0"
assert_contains "$out" "FAILED   [0.1.0] ### Churn lists 2026-11-30 — alpha: CONTAINER/runc → GVISOR/gvisor: not listed"
assert_contains "$out" "5 failed"
# A changelog bullet without a CHURN.md entry fails.
sed -i 's/^## \[Unreleased\]$/&\n\n## [0.2.1] - 2026-12-02\n### Churn\n- 2026-11-29 — alpha: GVISOR\/gvisor → MICROVM\/kata/' CHANGELOG.md
commit "CHANGELOG lists a change CHURN.md does not have"
git tag v0.2.1
churn release-check --tag v0.2.1 --json
assert_eq "$rc" 1
assert_contains "$out" "is listed but CHURN.md has no such entry"
churn release-check --tag v0.3.0
assert_eq "$rc" 65 "release tag that does not exist"
churn release-check --tag latest
assert_eq "$rc" 64 "not a version tag"

echo "== hostile file names reach the terminal and JUnit escaped"
provider evil CONTAINER runc $'evil\e[2J<x>&'
commit "a file name with an escape sequence and markup"
churn --since v0.2.1 --junit "$TMP/e.xml"
assert_eq "$rc" 0
assert_contains "$out" 'added    evil: CONTAINER/runc (catalogue/providers/evil\x1b[2J<x>&.json)'
if grep -q $'\e' <<<"$out"; then fail "raw ESC byte on the terminal"; fi
python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$TMP/e.xml" || fail "JUnit is not well-formed XML"

echo "== --junit never turns a database or a device into XML"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("create table t(x)"); c.commit()' "$TMP/self.db"
sum=$(sha256sum "$TMP/self.db" | cut -d' ' -f1)
churn --since v0.2.1 --junit "$TMP/self.db"
assert_eq "$rc" 64 "--junit an SQLite database"
assert_contains "$out" "an SQLite database; not overwriting it"
assert_eq "$(sha256sum "$TMP/self.db" | cut -d' ' -f1)" "$sum" "--junit changed the database"
if [ -c /dev/full ]; then
  churn --since v0.2.1 --junit /dev/full
  assert_eq "$rc" 74 "--junit /dev/full"
  [ -c /dev/full ] || fail "/dev/full is no longer a character device"
fi
mkfifo "$TMP/junit.fifo"
cat "$TMP/junit.fifo" >"$TMP/junit.out" &
reader=$!
churn --since v0.2.1 --junit "$TMP/junit.fifo"
assert_eq "$rc" 0 "--junit FIFO"
wait $reader
[ -p "$TMP/junit.fifo" ] || fail "--junit replaced the FIFO"
python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$TMP/junit.out" || fail "JUnit through the FIFO"
churn --since v0.2.1 --junit "$TMP"
assert_eq "$rc" 73 "--junit a directory"

echo "== offerings (catalogue v2): a rename with renamed_from is one change, a deprecation is reported"
R2="$TMP/offerings"
mkdir -p "$R2/catalogue/providers"
cd "$R2"
git init -q -b main .
printf '# Churn log\n\n## Entries\n' >CHURN.md
# offering ID TIER MECHANISM [EXTRA-JSON]: an offering file with v2 fields.
offering() {
  cat >"catalogue/providers/$1.json" <<EOF
{"id": "$1", "provider": "acme", "name": "Acme $1", "kind": "remote", "tier": "$2",
 "mechanism": "$3", "since": "2026-11-01", "sources": [], "history": [], "notes": "fixture"${4:+, $4}}
EOF
}
offering acme MICROVM firecracker
offering acme-sdk MICROVM firecracker
offering acme-old UNKNOWN unknown
commit "catalogue: three acme offerings"
git tag o0
git rm -q catalogue/providers/acme.json
offering acme-vm MICROVM firecracker '"renamed_from": ["acme"]'
offering acme-sdk MICROVM firecracker '"status": "deprecated", "status_source": {"date": "2026-11-20", "url": "https://example.org/d", "quote": "deprecated"}'
commit "acme: the default offering is now acme-vm; the SDK is deprecated"
churn --since o0
assert_eq "$rc" 0 "a rename and a deprecation need no CHURN.md entry ($out)"
assert_contains "$out" "renamed  acme-vm: MICROVM/firecracker (renamed from acme)"
assert_contains "$out" "status   acme-sdk: MICROVM/firecracker (status current → deprecated)"
assert_contains "$out" "2 provider changes, 0 tier/mechanism/scope changes, 0 unlogged"
if grep -qE "(removed|added) +acme" <<<"$out"; then fail "a rename reported as removal and addition: $out"; fi
churn --since o0 --json
echo "$out" >"$TMP/o.json"
assert_eq "$(json_get "$TMP/o.json" changes.0.kind)" status
assert_eq "$(json_get "$TMP/o.json" changes.0.new.status)" deprecated
assert_eq "$(json_get "$TMP/o.json" changes.1.kind)" renamed
assert_eq "$(json_get "$TMP/o.json" changes.1.renamed_from)" acme
"$ISOTIER_BIN" churn log >"$TMP/olog.txt" 2>&1 || fail "churn log over offerings"
assert_contains "$(cat "$TMP/olog.txt")" "renamed from acme"
echo "== a rename that also changes the tier must be logged (under the new or the old id)"
git rm -q catalogue/providers/acme-vm.json
offering acme-gv GVISOR gvisor '"renamed_from": ["acme-vm", "acme"]'
commit "acme: the default class moves to gVisor under a new id"
churn --since o0
assert_eq "$rc" 1 "an unlogged rename with a tier change"
assert_contains "$out" "UNLOGGED acme-gv: MICROVM/firecracker → GVISOR/gvisor"
assert_contains "$out" "renamed from acme"
entry acme MICROVM/firecracker GVISOR/gvisor
commit "churn: acme to gVisor"
churn --since o0
assert_eq "$rc" 0 "logged under the old id ($out)"
echo "== malformed v2 fields in history are errors naming the file"
printf '{"id": "bad", "tier": "UNKNOWN", "mechanism": "unknown", "renamed_from": "acme"}' >catalogue/providers/bad.json
commit "bad renamed_from"
churn --since o0
assert_eq "$rc" 65 "renamed_from not an array"
assert_contains "$out" 'catalogue/providers/bad.json: field "renamed_from" must be an array'
printf '{"id": "bad", "tier": "UNKNOWN", "mechanism": "unknown", "status": "sunset"}' >catalogue/providers/bad.json
commit "bad status"
churn --since o0
assert_eq "$rc" 65 "status outside the vocabulary"
assert_contains "$out" 'field "status" must be'

cd "$R"
echo "== the check says which revision CHURN.md was read from"
churn --since v0.2.1
assert_contains "$out" "CHURN.md read from HEAD ($(git rev-parse HEAD | cut -c1-12))"
churn --since v0.2.1 --json
echo "$out" >"$TMP/from.json"
assert_contains "$(json_get "$TMP/from.json" churn_md_from)" "HEAD ("

echo "== --worktree: the working tree's catalogue and CHURN.md (a pre-commit check)"
provider epsilon MICROVM kata
churn --worktree
assert_eq "$rc" 1 "an uncommitted, unlogged tier change ($out)"
assert_contains "$out" "catalogue churn HEAD ($(git rev-parse HEAD | cut -c1-12)) .. the working tree"
assert_contains "$out" "CHURN.md read from the working tree ($R/CHURN.md)"
assert_contains "$out" "UNLOGGED epsilon: GVISOR/gvisor → MICROVM/kata"
# The working tree is a path, shown whole, never as a cut commit hash nor in until_commit.
assert_contains "$out" ".. the working tree ($R)"
churn --worktree --json
echo "$out" >"$TMP/wt.json"
assert_eq "$(json_get "$TMP/wt.json" until_commit)" None "--worktree has no until commit"
assert_eq "$(json_get "$TMP/wt.json" until)" "the working tree ($R)" "--worktree's until"
churn --since v0.2.1
assert_eq "$rc" 0 "without --worktree the commit is what counts"
entry epsilon GVISOR/gvisor MICROVM/kata
churn --worktree
assert_eq "$rc" 0 "logged in the working tree's CHURN.md ($out)"
assert_contains "$out" "logged   epsilon: GVISOR/gvisor → MICROVM/kata"
churn --worktree --until HEAD~1
assert_eq "$rc" 64 "--worktree with --until"
churn release-check --worktree
assert_eq "$rc" 64 "--worktree is for the check"
mv CHURN.md "$TMP/churn.keep" && mkfifo CHURN.md
churn --worktree
assert_eq "$rc" 65 "a FIFO for CHURN.md is refused, not read"
assert_contains "$out" "CHURN.md: not a regular file"
rm CHURN.md && mv "$TMP/churn.keep" CHURN.md
git checkout -q -- CHURN.md catalogue

echo "== the changelog gate spells out the heading it expected and the fix"
git tag v0.3.0
churn release-check --tag v0.3.0 --junit "$TMP/g.xml"
assert_eq "$rc" 1 "no section for 0.3.0"
assert_contains "$out" "section missing: expected the heading '## [0.3.0] - YYYY-MM-DD'"
python3 - "$TMP/g.xml" <<'PY' || fail "JUnit failures carry the fix"
import sys, xml.etree.ElementTree as ET
fails = [c.find("failure") for c in ET.parse(sys.argv[1]).iter("testcase") if c.find("failure") is not None]
assert fails and all("'## [0.3.0] - YYYY-MM-DD'" in (f.text or "") + f.get("message") for f in fails), [f.get("message") for f in fails]
PY
# "- None" next to a real entry is a contradiction.
provider zeta GVISOR gvisor
entry zeta CONTAINER/runc GVISOR/gvisor
sed -i 's/^## \[Unreleased\]$/&\n\n## [0.4.0] - 2026-12-03\n### Churn\n- None\n- 2026-11-30 — zeta: CONTAINER\/runc → GVISOR\/gvisor/' CHANGELOG.md
commit "zeta, and a changelog that says None beside it"
git tag v0.4.0
churn release-check --tag v0.4.0
assert_eq "$rc" 1 "'- None' beside a real entry"
assert_contains "$out" "'- None' only when nothing churned: '- None' beside real entries in '## [0.4.0] - YYYY-MM-DD': remove the '- None' line"
provider zeta MICROVM vm
commit "zeta again, unlogged"
churn --since v0.4.0 --junit "$TMP/u.xml"
assert_eq "$rc" 1
grep -q "add to CHURN.md &quot;### YYYY-MM-DD — zeta: GVISOR/gvisor → MICROVM/vm&quot;" "$TMP/u.xml" ||
  fail "the JUnit failure of an unlogged change does not carry the fix: $(grep failure "$TMP/u.xml")"

echo "churn: all checks passed"
