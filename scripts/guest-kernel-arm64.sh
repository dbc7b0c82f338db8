#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches Debian's stock arm64 kernel with apt (no other network) and unpacks its Image (vmlinuz,
# gzip-compressed; qemu-system-aarch64 -kernel takes it as is) into .deps/guest-arm64/ (or
# $ISOTIER_GUEST_ARM64_DIR) for the qemu-aarch64 backend. Needs `dpkg --add-architecture arm64`
# (scripts/deps.sh does it). No modules: the aarch64 guest only runs the probe from its initramfs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
default=$root/.deps/guest-arm64
# Installed as PREFIX/libexec/isotier/: where an installed isotier looks (reference/core/paths.c).
if [ -d "$root/../share/isotier" ]; then default=$(cd "$root/.." && pwd)/lib/isotier/guest-arm64; fi
out="${ISOTIER_GUEST_ARM64_DIR:-$default}"
if [ -s "$out/vmlinuz" ] && [ -s "$out/release" ]; then exit 0; fi
mkdir -p "$out"
work=$(mktemp -d)
chmod 755 "$work"  # apt-get download drops to the _apt user
trap 'rm -rf "$work"' EXIT
cd "$work"
# linux-image-arm64 is a metapackage; its dependency names the versioned image.
image=$(apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
[ -n "$image" ] || { echo "guest-kernel-arm64: cannot resolve linux-image-arm64:arm64 (dpkg --add-architecture arm64; apt-get update)" >&2; exit 1; }
image=${image%:arm64}
apt-get download -q "$image:arm64" >/dev/null
dpkg -x ./*.deb x
vmlinuz=$(ls x/boot/vmlinuz-* | head -n1)
cp "$vmlinuz" "$out/vmlinuz.tmp"
cp x/boot/config-* "$out/config.tmp"
basename "$vmlinuz" | sed 's/^vmlinuz-//' >"$out/release.tmp"
mv "$out/vmlinuz.tmp" "$out/vmlinuz"
mv "$out/config.tmp" "$out/config"
mv "$out/release.tmp" "$out/release"
echo "guest-kernel-arm64: $(cat "$out/release") in $out" >&2
