#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# Each run records which catalogue revision it judged against: the HEAD of the
# catalogue's git repository, "+dirty" when its files differ from HEAD, and
# "unknown" outside git.
. "$ISOTIER_ROOT/tests/lib.sh"
repo=$TMP/repo
mkdir -p "$repo"
cp -r "$ISOTIER_ROOT/catalogue/providers" "$repo/providers"
git -C "$repo" init -q
git -C "$repo" -c user.email=t@example.invalid -c user.name=t add providers
git -C "$repo" -c user.email=t@example.invalid -c user.name=t commit -qm catalogue
head=$(git -C "$repo" rev-parse HEAD)
commit_of_last_run() { sqlite3 "$TMP/h.db" "SELECT catalogue_commit FROM runs ORDER BY id DESC LIMIT 1"; }

"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head" "clean catalogue"
sed -i 's/"notes": "/"notes": "edited. /' "$repo/providers/runc.json"
"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head+dirty" "edited catalogue"
git -C "$repo" checkout -q providers/runc.json
touch "$repo/unrelated-file"
"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head" "a change outside the catalogue"
# Issue 24: starting libgit2 parses the whole CA bundle, so the answer is memoised in the state
# directory, keyed on HEAD (read from the repository's files) and the identity of every file it
# depends on; a tree changed in the last 2 s gets no memo. Every change below is a new key.
export ISOTIER_STATE_DIR=$TMP/state
memos() { ls "$ISOTIER_STATE_DIR/cache" 2>/dev/null | grep -c '^catcommit-' || true; }
sleep 3 # older than the racy window: this tree's answer may be kept
"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head" "clean catalogue, memo made"
assert_eq "$(memos)" 1 "one memo for the clean tree"
"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head" "clean catalogue, from the memo"
# A memo anyone could have written is not believed.
for f in "$ISOTIER_STATE_DIR"/cache/catcommit-*; do printf '%040d\n' 0 >"$f"; chmod 666 "$f"; done
"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head" "a foreign memo is ignored"
# An edit, then the same edit staged, each older than the window: new keys, +dirty each time.
sed -i 's/"notes": "/"notes": "edited again. /' "$repo/providers/runc.json"
sleep 3
"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head+dirty" "edited catalogue (memo keyed on the file)"
git -C "$repo" add providers/runc.json
sleep 3
"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head+dirty" "staged edit (memo keyed on the index)"
git -C "$repo" -c user.email=t@example.invalid -c user.name=t commit -qm edit
head2=$(git -C "$repo" rev-parse HEAD)
sleep 3
"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head2" "a new commit (memo keyed on HEAD)"
git -C "$repo" pack-refs --all
"$ISOTIER_BIN" verify --backend host --catalogue "$repo/providers" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "$head2" "HEAD from packed-refs"
[ "$(memos)" -ge 3 ] || fail "expected a memo per state, found $(memos)"
cp -r "$ISOTIER_ROOT/catalogue/providers" "$TMP/plain"
"$ISOTIER_BIN" verify --backend host --catalogue "$TMP/plain" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "unknown" "catalogue outside git"
echo "ok: catalogue revisions recorded"
