#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches Debian's stock amd64 kernel with apt (no other network) and unpacks it into
# .deps/guest/ (or $ISOTIER_GUEST_DIR): vmlinuz (bzImage), vmlinux (uncompressed ELF with a PVH entry
# point), and modules/ with the modules a guest needs to mount the host root over virtio-9p
# (virtio_mmio, 9pnet_virtio, 9p and their dependencies) plus modules/order, the load order.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
default=$root/.deps/guest
# Installed as PREFIX/libexec/isotier/: where an installed isotier looks (reference/core/paths.c).
if [ -d "$root/../share/isotier" ]; then default=$(cd "$root/.." && pwd)/lib/isotier/guest; fi
out="${ISOTIER_GUEST_DIR:-$default}"
if [ -s "$out/vmlinux" ] && [ -s "$out/vmlinuz" ] && [ -s "$out/modules/order" ]; then exit 0; fi
mkdir -p "$out"
work=$(mktemp -d)
chmod 755 "$work"  # apt-get download drops to the _apt user
trap 'rm -rf "$work"' EXIT
cd "$work"
# linux-image-amd64 is a metapackage; its dependency names the versioned image.
image=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
[ -n "$image" ] || { echo "guest-kernel: cannot resolve linux-image-amd64" >&2; exit 1; }
apt-get download -q "$image" >/dev/null
dpkg -x ./*.deb x
vmlinuz=$(ls x/boot/vmlinuz-* | head -n1)
cp "$vmlinuz" "$out/vmlinuz.tmp"
# The bzImage payload is xz-compressed; find the xz stream and unpack the ELF inside.
python3 - "$vmlinuz" "$out/vmlinux.tmp" <<'PY'
import lzma, sys
data = open(sys.argv[1], 'rb').read()
magic = b'\xfd7zXZ\x00'
pos = data.find(magic)
while pos >= 0:
    try:
        dec = lzma.LZMADecompressor(format=lzma.FORMAT_XZ, memlimit=None)
        elf = dec.decompress(data[pos:])
        if elf[:4] == b'\x7fELF':
            open(sys.argv[2], 'wb').write(elf)
            sys.exit(0)
    except lzma.LZMAError:
        pass
    pos = data.find(magic, pos + 1)
sys.exit("guest-kernel: no xz ELF payload in " + sys.argv[1])
PY
# Modules for virtio-9p, dependencies first (read from each module's .modinfo "depends=").
rm -rf "$out/modules.tmp"
mkdir -p "$out/modules.tmp"
python3 - x "$out/modules.tmp" virtio_mmio 9pnet_virtio 9p <<'PY'
import glob, os, shutil, sys
src, dst, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
mods = {os.path.basename(p)[:-3].replace('-', '_'): p
        for p in glob.glob(src + '/lib/modules/*/kernel/**/*.ko', recursive=True)}
def deps(m):
    data = open(mods[m], 'rb').read()
    i = data.find(b'depends=')
    while i > 0 and data[i - 1] != 0:
        i = data.find(b'depends=', i + 1)
    if i < 0:
        return []
    return [d.replace('-', '_') for d in data[i + 8:data.index(b'\0', i)].decode().split(',') if d]
order = []
def visit(m, depth=0):
    if m in order:
        return
    if m not in mods or depth > 32:
        sys.exit("guest-kernel: module %s not in the kernel package" % m)
    for d in deps(m):
        visit(d, depth + 1)
    order.append(m)
for m in wanted:
    visit(m)
for m in order:
    shutil.copy(mods[m], os.path.join(dst, m + '.ko'))
open(os.path.join(dst, 'order'), 'w').write(''.join(m + '.ko\n' for m in order))
PY
cp x/boot/config-* "$out/config.tmp"
basename "$vmlinuz" | sed 's/^vmlinuz-//' > "$out/release.tmp"
mv "$out/vmlinuz.tmp" "$out/vmlinuz"
mv "$out/vmlinux.tmp" "$out/vmlinux"
mv "$out/config.tmp" "$out/config"
rm -rf "$out/modules"
mv "$out/modules.tmp" "$out/modules"
mv "$out/release.tmp" "$out/release"
echo "guest-kernel: $(cat "$out/release") in $out" >&2
