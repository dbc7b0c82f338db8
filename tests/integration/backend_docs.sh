#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# backend_docs.sh - the README's backend lists are the registry's (`isotier backends --names`,
# from reference/backends/backends.c): every local backend has a row in the example table of `make run`,
# every remote one is named where `verify --backend` for providers is described, and the table
# names no backend this build does not drive. A backend added to the registry and not to the
# README, or removed from one and not the other, fails here.
source "$ISOTIER_ROOT/tests/lib.sh"
BIN=$ISOTIER_BIN
README=$ISOTIER_ROOT/README.md
[ -x "$BIN" ] || fail "no $BIN (build first)"
"$BIN" backends --names >"$TMP/names" || fail "backends --names: $?"
awk -F'\t' 'NF != 3 || $1 == "" || ($2 != "local" && $2 != "remote") { exit 1 }' "$TMP/names" ||
  fail "backends --names: not name, local|remote, catalogue entry: $(cat "$TMP/names")"
[ "$(wc -l <"$TMP/names")" -ge 16 ] || fail "backends --names lists too few: $(cat "$TMP/names")"
# The example table: the first ```text block after "## Usage", rows up to the blank line.
sed -n '/^## Usage/,$p' "$README" | sed -n '/^```text/,/^$/p' | sed '1,2d;/^$/d' | awk '{print $1}' >"$TMP/table"
[ -s "$TMP/table" ] || fail "README: no example table under ## Usage"
while IFS=$'\t' read -r name where _; do
  if [ "$where" = local ]; then
    grep -qx -- "$name" "$TMP/table" || fail "README's example table has no row for local backend $name"
  else
    grep -q -- "--backend [a-z0-9|\\\\]*\\b$name\\b" "$README" ||
      fail "README does not name remote backend $name with verify --backend"
  fi
done <"$TMP/names"
while read -r name; do
  grep -q "^$name	" "$TMP/names" || fail "README's example table names $name, which this build does not drive"
done <"$TMP/table"
# The check can fail: a name the registry lacks is caught.
grep -q "^no-such-backend	" "$TMP/names" && fail "the registry lists no-such-backend"
echo "ok: README lists the $(wc -l <"$TMP/names") backends of the registry"
