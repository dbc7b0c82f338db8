#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# Every global symbol the library's archives define is named by the rule (HACKING.md):
# isotier__* (internal) or an isotier_* the public header declares ISOTIER_PUBLIC. An offender
# is named with the object that defines it; tests/tools/apply-symbol-renames.sh renames the
# ones the rule was brought in for. The check first runs on an archive with a stray name of its
# own, so it cannot pass by seeing nothing.
. "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
TOOL=$R/$BUILD/libisotier-tool.a
PUB=$R/$BUILD/libisotier.a
[ -e "$TOOL" ] && [ -e "$PUB" ] || fail "no $TOOL or $PUB (make all)"

public=$(sed -n 's/^ISOTIER_PUBLIC .*[ *]\(isotier_[a-z0-9_]*\)(.*/\1/p' "$R/include/isotier.h" | sort -u)
[ -n "$public" ] || fail "no ISOTIER_PUBLIC declarations in include/isotier.h"

# offenders ARCHIVE: "object: symbol" for each defined global symbol outside the rule.
offenders() {
  nm -g --defined-only -A "$1" | awk 'NF == 3 {n = split($1, p, ":"); print p[n - 1], $3}' |
    while read -r obj sym; do
      case $sym in
      isotier__?*) ;;
      isotier_?*) grep -qxF "$sym" <<<"$public" || echo "$obj: $sym (isotier_ with one underscore is the public API only)" ;;
      *) echo "$obj: $sym" ;;
      esac
    done
}

# The check itself: a stray global, a public-looking name the header does not declare, and
# the two good kinds; only the first two are named.
cat >"$TMP/stray.c" <<'C'
int judge(int x) { return x; }
int isotier_not_public(int x) { return x; }
int isotier__fine(int x) { return x; }
int isotier_version_major(void) { return 0; }
static int kept_local(int x) { return x; }
int isotier__uses(int x) { return kept_local(x); }
C
cc -c -o "$TMP/stray.o" "$TMP/stray.c" || fail "cannot compile the check's own object"
ar rcs "$TMP/stray.a" "$TMP/stray.o"
got=$(public=$(printf '%s\n' "$public" isotier_version_major) offenders "$TMP/stray.a" | sort)
want=$(printf '%s\n' "stray.o: isotier_not_public (isotier_ with one underscore is the public API only)" \
  "stray.o: judge")
assert_eq "$got" "$want" "the check on a known archive"

n_tool=$(nm -g --defined-only "$TOOL" | awk 'NF == 3' | wc -l)
[ "$n_tool" -gt 100 ] || fail "libisotier-tool.a defines $n_tool global symbols: the check sees nothing"
bad=$( { offenders "$TOOL"; offenders "$PUB"; } | sort -u)
if [ -n "$bad" ]; then
  echo "global symbols outside isotier__* / the public isotier_* (make them static, or rename:" >&2
  echo "add OLD to tests/tools/apply-symbol-renames.sh and run it):" >&2
  echo "$bad" >&2
  fail "$(wc -l <<<"$bad") global symbol(s) break the naming rule"
fi
echo "ok: $n_tool global symbols of libisotier-tool.a, every one isotier__* or public"
