#!/usr/bin/env bash
# isotier-test: slow; uses: make-build
# SPDX-License-Identifier: Apache-2.0
# deb_package.sh - `make debs` builds the Debian packages (scripts/deb.sh, dpkg-buildpackage with
# dpkg-buildflags' hardening) into $BUILD/debs, the ones deb_install.sh then installs: built here,
# beside the quiet tests, so the quiet slot deb_install holds is spent on the job, not on a
# compiler. Every package is there, of this tree's version, with hardened binaries (BIND_NOW,
# PIE), and a second `make debs` with nothing changed builds nothing.
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
case $BUILD in /*) build_dir=$BUILD ;; *) build_dir=$R/$BUILD ;; esac
command -v dpkg-buildpackage >/dev/null || skip "dpkg-buildpackage (dpkg-dev) is not installed: scripts/deps.sh installs it"
command -v dh >/dev/null || skip "debhelper is not installed: scripts/deps.sh installs it"
make -C "$R" --no-print-directory -s BUILD="$BUILD" debs >"$TMP/deb.log" 2>&1 ||
  fail "make debs: $(tail -20 "$TMP/deb.log")"
version=$(sed -n 's/^#define ISOTIER_VERSION[[:space:]]*"\(.*\)"/\1/p' "$R/include/isotier.h")
arch=$(dpkg --print-architecture)
want=(isotier libisotier0 libisotier-dev)
command -v aarch64-linux-musl-gcc >/dev/null || command -v aarch64-linux-gnu-gcc >/dev/null && want+=(isotier-guest-aarch64)
for p in "${want[@]}"; do
  d=$build_dir/debs/${p}_${version}_$arch.deb
  [ -s "$d" ] || fail "make debs built no $d: $(ls "$build_dir/debs")"
  assert_eq "$(dpkg-deb -f "$d" Version)" "$version" "$p's version"
done
[ -s "$build_dir/debs/python3-isotier_${version}_all.deb" ] || fail "make debs built no python3-isotier"
# The hardening reached the packaged binaries (debian/rules passes the flags by name).
dpkg-deb -x "$build_dir/debs/isotier_${version}_$arch.deb" "$TMP/x"
flags=$(readelf -d "$TMP/x/usr/bin/isotier")
assert_contains "$flags" "BIND_NOW" "the packaged isotier's dynamic flags"
assert_contains "$flags" "PIE" "the packaged isotier's dynamic flags"
syms=$(readelf --dyn-syms --wide "$TMP/x/usr/bin/isotier")
grep -qE '__stack_chk_fail|__[a-z]+_chk@' <<<"$syms" ||
  fail "the packaged isotier has no stack protector nor fortified call"
# Up to date: nothing is built again.
stamp=$(stat -c %Y.%y "$build_dir/debs/.built")
make -C "$R" --no-print-directory -s BUILD="$BUILD" debs >"$TMP/deb2.log" 2>&1 || fail "make debs again: $(tail "$TMP/deb2.log")"
assert_eq "$(stat -c %Y.%y "$build_dir/debs/.built")" "$stamp" "the stamp of a make debs with nothing changed"
echo "deb_package: ${#want[@]} + 1 packages of $version in $build_dir/debs, hardened; built once"
