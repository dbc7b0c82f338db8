#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# The static library defines the public isotier_* names and nothing else: its internal names
# (isotier__judge, isotier__probe_result_parse, every isotier__* the CLI uses) are local to its
# one object, so a program with its own judge() and probe_result_parse() (the names those two had
# before the isotier__ rule, tests/integration/symbol_names.sh) links statically against
# libisotier.a and runs, calling the library and its own functions. The shared library links
# with every dependency named (no undefined symbol left) and versions its exports ISOTIER_0.
. "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
A=$R/$BUILD/libisotier.a
SO=$R/$BUILD/libisotier.so.0
[ -e "$A" ] && [ -e "$SO" ] || fail "no $A or $SO (make all)"

declared=$(sed -n 's/^ISOTIER_PUBLIC .*[ *]\(isotier_[a-z_]*\)(.*/\1/p' "$R/include/isotier.h" | sort)
[ -n "$declared" ] || fail "no ISOTIER_PUBLIC declarations found"
defined=$(nm --defined-only -g "$A" | awk 'NF == 3 {print $3}' | sort)
assert_eq "$defined" "$declared" "global symbols of libisotier.a vs include/isotier.h"
# The names the issue found exported are there, local: the check above is not vacuous.
all_syms=$(nm "$A")
grep -qE ' t isotier__judge$' <<<"$all_syms" || fail "libisotier.a has no local isotier__judge: the check sees nothing"
grep -qE ' t isotier__probe_result_parse$' <<<"$all_syms" || fail "libisotier.a has no local isotier__probe_result_parse"
# One look tells a public name from an internal one: in the library's objects (the tool archive
# the CLI links, before localising) every function or datum named isotier_ with one underscore is
# public; the internal ones are isotier__ (ADR-0021).
tool_names=$(nm --defined-only -g "$R/$BUILD/libisotier-tool.a" | awk 'NF == 3 {print $3}' | grep '^isotier_[^_]' | sort -u)
assert_eq "$tool_names" "$declared" "isotier_ names (one underscore) in libisotier-tool.a vs include/isotier.h"
grep -q '^isotier__' < <(nm --defined-only -g "$R/$BUILD/libisotier-tool.a" | awk 'NF == 3 {print $3}') ||
  fail "no isotier__ name in libisotier-tool.a: the check above sees nothing"

cat >"$TMP/own.c" <<'C'
#include <isotier.h>
#include <stdio.h>
#include <string.h>
/* The program's own functions, named as libisotier's internal ones. */
int judge(int x) { return x + 1; }
int probe_result_parse(const char *s) { return (int)strlen(s); }
int main(void)
{
	int major = -1;
	const char *v = isotier_version(&major, NULL, NULL);
	isotier_tier t = ISOTIER_UNKNOWN;
	if (isotier_tier_parse(&t, "microvm") != 0 || t != ISOTIER_MICROVM)
		return 2;
	isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
	opts.backend = "no-such-backend";
	isotier_sandbox *sb = NULL;
	isotier_error err = ISOTIER_ERROR_INIT;
	int rc = isotier_create(&sb, &opts, &err);
	printf("version %s major %d judge %d parse %d create %s: %s\n", v, major, judge(41),
	       probe_result_parse("abc"), isotier_strerror(rc), err.message);
	return rc == ISOTIER_ENOTFOUND && judge(41) == 42 && probe_result_parse("abc") == 3 ? 0 : 1;
}
C
# The libraries the archive needs are the ones isotier.pc says (its Requires.private).
requires=$(sed -n 's/^Requires.private: *//p' "$R/$BUILD/isotier.pc")
[ -n "$requires" ] || fail "no Requires.private in $R/$BUILD/isotier.pc"
# shellcheck disable=SC2086 # one package name a word
libs=$(pkg-config --libs $requires)
# shellcheck disable=SC2086 # pkg-config prints several flags
cc -std=gnu11 -Wall -Wextra -Werror -I"$R/include" -o "$TMP/own-static" "$TMP/own.c" "$A" $libs -lpthread -lm \
  2>"$TMP/link.err" || fail "a program with its own judge() does not link against libisotier.a: $(cat "$TMP/link.err")"
out=$("$TMP/own-static") || fail "the statically linked program failed: $out"
assert_contains "$out" "judge 42 parse 3 create ENOTFOUND: create: no backend named 'no-such-backend'"
assert_contains "$out" "version $(sed -n 's/^#define ISOTIER_VERSION[[:space:]]*"\(.*\)"/\1/p' "$R/include/isotier.h") "

# The same against the shared library.
# shellcheck disable=SC2086
cc -std=gnu11 -Wall -Wextra -Werror -I"$R/include" -o "$TMP/own-shared" "$TMP/own.c" -L"$R/$BUILD" -lisotier \
  || fail "a program with its own judge() does not link against libisotier.so"
out=$(LD_LIBRARY_PATH=$R/$BUILD "$TMP/own-shared") || fail "the dynamically linked program failed: $out"
assert_contains "$out" "judge 42 parse 3 create ENOTFOUND"

# libisotier.so.0: every symbol it leaves undefined is defined by a library it names itself
# (DT_NEEDED; what -Wl,--no-undefined enforces at its link: floor() without -lm was the bug),
# and every export is under the version node ISOTIER_0 (reference/api/libisotier.map).
python3 - "$SO" <<'PY' || fail "libisotier.so.0: see above"
import re, subprocess, sys
so = sys.argv[1]
def run(*a):
    return subprocess.run(a, capture_output=True, text=True, check=True).stdout
exports = [l.split()[-1] for l in run("nm", "-D", "--defined-only", so).splitlines() if l.split()[1] in "TDB"]
bad = [n for n in exports if not n.endswith("@@ISOTIER_0")]
if bad or not exports:
    sys.exit("exports not versioned ISOTIER_0: %s" % (bad or "none at all"))
needed = re.findall(r"\(NEEDED\).*\[(.*)\]", run("readelf", "-d", so))
paths = dict(re.findall(r"^\s*(\S+) => (\S+)", run("ldd", so), re.M))
for path in re.findall(r"^\s*(/\S+) \(", run("ldd", so), re.M):  # the loader: no "=>"
    paths[path.rsplit("/", 1)[-1]] = path
given = set()
for lib in needed:
    for l in run("nm", "-D", "--defined-only", paths[lib]).splitlines():
        given.add(l.split()[-1].split("@")[0])
undefined = [l.split()[-1].split("@")[0] for l in run("nm", "-D", "--undefined-only", so).splitlines()]
missing = [u for u in undefined if u not in given and not u.startswith(("_ITM_", "__gmon_start__", "_Jv_"))]
if missing:
    sys.exit("undefined, in no library it names: " + " ".join(sorted(missing)))
print(f"{len(exports)} exports under ISOTIER_0; {len(undefined)} undefined symbols, each from {len(needed)} named libraries")
PY
echo "ok: libisotier.a defines only the public names; own judge() links statically and dynamically"
