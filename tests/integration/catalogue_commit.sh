#!/usr/bin/env bash
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
cp -r "$ISOTIER_ROOT/catalogue/providers" "$TMP/plain"
"$ISOTIER_BIN" verify --backend host --catalogue "$TMP/plain" --db "$TMP/h.db" >/dev/null
assert_eq "$(commit_of_last_run)" "unknown" "catalogue outside git"
echo "ok: catalogue revisions recorded"
