#!/usr/bin/env bash
# isotier-test: fast; uses: make-build
# SPDX-License-Identifier: Apache-2.0
# `make install` into a temporary prefix: the library exports exactly what
# include/isotier.h declares ISOTIER_PUBLIC; the documented example builds
# with `pkg-config --cflags --libs isotier` against the installed prefix and
# runs without LD_LIBRARY_PATH, finding the installed catalogue; the CLI, the
# probe, the man pages and the catalogue are where the prefix says.
. "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
prefix=$TMP/prefix
make -C "$R" --no-print-directory -s install BUILD="$BUILD" PREFIX="$prefix" >"$TMP/install.log" 2>&1 \
  || fail "make install: $(tail -20 "$TMP/install.log")"
for f in bin/isotier bin/isotier-probe lib/libisotier.so.0 lib/libisotier.so lib/libisotier.a \
         include/isotier.h lib/pkgconfig/isotier.pc libexec/isotier/isotier-guest-init \
         share/isotier/catalogue/providers/runc.json share/man/man1/isotier.1 share/man/man1/isotier-run.1 \
         share/man/man8/isotier-reverify.8 share/man/man3/libisotier.3 libexec/isotier/isotier-metrics \
         share/isotier/runbook/jobs/isotier.default; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
# The aarch64 probe and guest init, when the cross compiler built them (scripts/deps.sh installs it),
# in lib/isotier (no program of this host's), where the installed isotier finds them.
if [ -x "$R/$BUILD/isotier-probe-aarch64" ]; then
  for f in lib/isotier/isotier-probe-aarch64 lib/isotier/isotier-guest-init-aarch64; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
  done
  [ ! -e "$prefix/bin/isotier-probe-aarch64" ] || fail "an aarch64 binary in bin/"
  assert_contains "$("$prefix/bin/isotier" paths)" \
    "guest init aarch64 $prefix/lib/isotier/isotier-guest-init-aarch64  (installed, present)" "the installed aarch64 guest init"
fi
# The man pages say what --help cannot: the environment, the files, the exit statuses, the job.
for s in ENVIRONMENT FILES "EXIT STATUS"; do
  grep -q "^\.SH $s\$" "$prefix/share/man/man1/isotier.1" || fail "isotier(1) has no $s section"
done
for s in CONFIGURATION "EXIT STATUS" METRICS FILES; do
  grep -q "^\.SH $s\$" "$prefix/share/man/man8/isotier-reverify.8" || fail "isotier-reverify(8) has no $s section"
done
# Every metric the job writes is documented (runbook/jobs/isotier-metrics.py's names).
for m in $(grep -o '"isotier_[a-z_]*"' "$R/runbook/jobs/isotier-metrics.py" | tr -d '"' | sort -u); do
  grep -qF "$m" "$prefix/share/man/man8/isotier-reverify.8" ||
    fail "metric $m is not in isotier-reverify(8)"
done
# Each exit status of the CLI (verify/cmd/cli.h) is in isotier(1).
for c in $(sed -n 's/^\s*EXIT_[A-Z]* = \([0-9]*\),.*/\1/p' "$R/verify/cmd/cli.h"); do
  grep -qx "\.B $c" "$prefix/share/man/man1/isotier.1" || fail "exit status $c is not in isotier(1)'s EXIT STATUS"
done
# The unit's Documentation= names pages that are installed.
for d in $(sed -n 's/^Documentation=//p' "$prefix"/share/isotier/runbook/jobs/isotier-reverify.{service,timer}); do
  case $d in
    man:*) n=${d#man:}; page=${n%%(*}; sect=${n#*(}; sect=${sect%)}
           [ -e "$prefix/share/man/man$sect/$page.$sect" ] || fail "Documentation=$d: no such page installed" ;;
    file://*) [ -e "${d#file://}" ] || fail "Documentation=$d: not installed" ;;
  esac
done
assert_eq "$(readelf -d "$prefix/lib/libisotier.so.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" libisotier.so.0 "soname"

# The exported symbols are the header's, no more, no fewer.
# (Each under the version node ISOTIER_0: name@@ISOTIER_0.)
exported=$(nm -D --defined-only "$prefix/lib/libisotier.so.0" | awk '$2 ~ /^[TDB]$/ {sub(/@.*/, "", $3); print $3}' | sort)
declared=$(sed -n 's/^ISOTIER_PUBLIC .*[ *]\(isotier_[a-z_]*\)(.*/\1/p' "$R/include/isotier.h" | sort)
[ -n "$declared" ] || fail "no ISOTIER_PUBLIC declarations found"
assert_eq "$exported" "$declared" "exported symbols vs include/isotier.h"
# Debian's symbols file names every export too (dpkg-gensymbols otherwise only notes the new
# one, and a package depending on it gets too low a version).
listed=$(awk '/^ isotier_/ {sub(/@.*/, "", $1); print $1}' "$R/debian/libisotier0.symbols" | sort)
assert_eq "$listed" "$exported" "debian/libisotier0.symbols vs the exported symbols"

# The example, built the documented way against the installed prefix only.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs isotier) || fail "pkg-config does not find the installed isotier"
! grep -q -- "-I$R" <<<"$flags" || fail "pkg-config points into the source tree: $flags"
# isotier.pc lists what the library links, no more (libxml2 and libgit2 are the CLI's).
assert_eq "$(pkg-config --print-requires-private isotier | awk '{print $1}' | sort | tr '\n' ' ')" \
  "libcjson libcrypto libcurl libpq sqlite3 zlib " "isotier.pc Requires.private"
linked=$(readelf -d "$prefix/lib/libisotier.so.0" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
for lib in libxml2 libgit2; do
  ! grep -q "$lib" <<<"$linked" || fail "libisotier links $lib, which only the CLI uses: $linked"
done
undefined=$(nm -D --undefined-only "$prefix/lib/libisotier.so.0")
! grep -q "git_\|xml\|html[A-Z]" <<<"$undefined" || fail "libisotier refers to libgit2 or libxml2 symbols"
cc -std=c11 -Wall -Wextra -Werror "$R/reference/examples/require_microvm.c" $flags -o "$TMP/example" \
  || fail "the example does not build against the installed prefix"
# ldd's whole output first: grep -q in a pipe stops reading at the match, and ldd killed by
# SIGPIPE fails the pipeline (pipefail) whenever it had more to write.
loaded=$(env -u LD_LIBRARY_PATH ldd "$TMP/example")
grep -qF "libisotier.so.0 => $prefix/lib/libisotier.so.0" <<<"$loaded" || fail "the example does not load the installed library: $loaded"
cd "$TMP"
set +e
env -u LD_LIBRARY_PATH -u ISOTIER_CATALOGUE "$TMP/example" bwrap MICROVM /bin/echo no >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
assert_eq "$rc" 78 "installed example refuses ($(cat "$TMP/err"))"
assert_contains "$(cat "$TMP/err")" "resolves to CONTAINER, weaker than the required MICROVM"
out=$(env -u LD_LIBRARY_PATH -u ISOTIER_CATALOGUE "$TMP/example" runc CONTAINER /bin/echo yes)
assert_contains "$out" "backend=runc tier=CONTAINER"

# The installed CLI reads the installed catalogue (not the checkout's).
cp "$prefix/share/isotier/catalogue/providers/runc.json" "$TMP/runc.json"
python3 - "$prefix/share/isotier/catalogue/providers/runc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["tier"] = "UNKNOWN"; d["mechanism"] = "unknown"; json.dump(d, open(sys.argv[1], "w"))
PY
env -u ISOTIER_CATALOGUE "$prefix/bin/isotier" backends --json >"$TMP/b.json"
assert_eq "$(python3 -c 'import json,sys; print({r["backend"]: r for r in json.load(open(sys.argv[1]))}["runc"]["claimed_tier"])' "$TMP/b.json")" UNKNOWN "installed CLI reads PREFIX/share/isotier/catalogue"
"$prefix/bin/isotier-probe" --json >/dev/null || fail "installed probe"
echo "ok: make install, exported symbols, example from the installed prefix"
