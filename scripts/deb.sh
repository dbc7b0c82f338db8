#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deb.sh BUILD OUT VERSION - `make deb`: isotier's Debian packages, built by Debian's own tools
# from debian/ (debhelper; dpkg-buildpackage -us -uc -b) into OUT: isotier, libisotier0,
# libisotier-dev, python3-isotier (Architecture: all) and isotier-guest-aarch64 (amd64, where the
# aarch64 cross compiler is), with their .buildinfo and .changes. The packages' objects are built in BUILD/deb-obj with
# dpkg-buildflags' hardening; BUILD's own objects (the tests') are left alone, and so is every
# file outside the checkout (dpkg-buildpackage's default output is the parent directory).
# VERSION (include/isotier.h's) must be debian/changelog's latest: a release names its version
# in both. Prints the paths of the .debs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build} out=${2:-${1:-build}} version=${3:-}
[ -n "$version" ] || version=$(sed -n 's/^#define ISOTIER_VERSION[[:space:]]*"\(.*\)"/\1/p' include/isotier.h)
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
  { echo "deb: dpkg-buildpackage and debhelper are needed (scripts/deps.sh installs dpkg-dev, debhelper)" >&2; exit 69; }
changelog=$(dpkg-parsechangelog -S Version)
[ "$changelog" = "$version" ] || {
  echo "deb: debian/changelog's latest version is $changelog, include/isotier.h says $version: add a changelog entry (dch -v $version)" >&2
  exit 65
}
mkdir -p "$out"
out=$(cd "$out" && pwd)
arch=$(dpkg --print-architecture)
base=isotier_${version}_${arch}
# debhelper's working files in debian/ (each package's tree, debian/tmp): gone afterwards,
# whatever happens; the objects in BUILD/deb-obj stay for the next build.
cleanup() {
  rm -rf debian/tmp debian/.debhelper debian/files debian/debhelper-build-stamp \
    debian/*.substvars debian/*.debhelper debian/*.debhelper.log
  for p in $(dh_listpackages 2>/dev/null); do rm -rf "debian/$p"; done
}
trap cleanup EXIT
cleanup
# This version's earlier packages (and their debug symbols) only: OUT may hold other files.
for p in $(dh_listpackages); do rm -f "$out/${p}_${version}_"*.deb "$out/${p}-dbgsym_${version}_"*.deb; done
rm -f "$out/$base.buildinfo" "$out/$base.changes"
DEB_DESTDIR=$out PKG_BUILD=$build/deb-obj \
  dpkg-buildpackage -us -uc -b -nc --buildinfo-option=-u"$out" --changes-option=-u"$out" \
  --buildinfo-file="$out/$base.buildinfo" --changes-file="$out/$base.changes" >&2
for p in $(dh_listpackages); do ls "$out/${p}_${version}_"*.deb 2>/dev/null || true; done
