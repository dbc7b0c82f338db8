#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deb.sh - `make deb`: the Debian package of isotier, built with dpkg-deb from `make install
# PREFIX=/usr` into a staging root. Installs the CLI and the probe (/usr/bin), the guest init, the
# scheduled job and the guest-kernel fetchers (/usr/libexec/isotier), the library, its header,
# isotier.pc and man pages (1 and 3), the catalogue, schemas and runbook (/usr/share/isotier), the
# job's systemd service and timer (/lib/systemd/system), its settings (/etc/default/isotier, a
# conffile) and its state directory with the host's history (/var/lib/isotier/isotier.db).
# Environment: BUILD (default build), VERSION (from include/isotier.h), OUT (default $BUILD).
# Prints the path of the .deb.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD:-build}
version=${VERSION:-$(sed -n 's/^#define ISOTIER_VERSION[[:space:]]*"\(.*\)"/\1/p' include/isotier.h)}
out=${OUT:-$build}
arch=$(dpkg --print-architecture)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pkg=$stage/isotier

make --no-print-directory -s BUILD="$build" PREFIX=/usr DESTDIR="$pkg" install >/dev/null
# Shipped binaries carry no debug info: it names the build tree's paths (the probes and guest
# inits are linked with -s already).
strip --strip-unneeded "$pkg/usr/bin/isotier" "$pkg/usr/lib/libisotier.so.0"
strip --strip-debug "$pkg/usr/lib/libisotier.a"
gzip -9n "$pkg"/usr/share/man/man*/*

install -d "$pkg/lib/systemd/system" "$pkg/etc/default" "$pkg/var/lib/isotier" \
  "$pkg/usr/share/doc/isotier" "$pkg/DEBIAN"
chmod 0750 "$pkg/var/lib/isotier"
install -m 0644 "$pkg"/usr/share/isotier/runbook/jobs/isotier-reverify.{service,timer} "$pkg/lib/systemd/system/"
install -m 0644 packaging/isotier.default "$pkg/etc/default/isotier"
install -m 0644 README.md CHANGELOG.md "$pkg/usr/share/doc/isotier/"
gzip -9n "$pkg/usr/share/doc/isotier/CHANGELOG.md"
printf 'isotier %s: see /usr/share/isotier and the project README.\n' "$version" \
  >"$pkg/usr/share/doc/isotier/copyright"

# The shared libraries the binaries need, as Debian's tooling computes them.
mkdir -p "$stage/src/debian"
printf 'Source: isotier\n\nPackage: isotier\nArchitecture: any\n' >"$stage/src/debian/control"
depends=$(cd "$stage/src" && dpkg-shlibdeps -O -e"$pkg/usr/bin/isotier" -e"$pkg/usr/lib/libisotier.so.0" 2>/dev/null |
  sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# What isotier dlopen()s on first use (verify/churn/dl_git.h, verify/sources/dl_xml.h) is no NEEDED
# entry, so dpkg-shlibdeps cannot see it: the packages providing those sonames, by hand, with the
# versions their shlibs files ask for.
depends="$depends, libxml2 (>= 2.9.11), libgit2-1.5 (>= 1.5.1+ds)"

size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
sed -e "s/@VERSION@/$version/; s/@ARCH@/$arch/; s/@DEPENDS@/$depends/; s/@SIZE@/$size/" \
  packaging/control.in >"$pkg/DEBIAN/control"
echo /etc/default/isotier >"$pkg/DEBIAN/conffiles"
install -m 0755 packaging/postinst packaging/prerm packaging/postrm "$pkg/DEBIAN/"
(cd "$pkg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
  >"$pkg/DEBIAN/md5sums"

mkdir -p "$out"
deb=$out/isotier_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
echo "$deb"
