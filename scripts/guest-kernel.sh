#!/usr/bin/env bash
# Fetches Debian's stock amd64 kernel with apt (no other network) and unpacks it into
# .deps/guest/ (or $ISOTIER_GUEST_DIR): vmlinuz (bzImage) and vmlinux (uncompressed ELF with a PVH entry point).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="${ISOTIER_GUEST_DIR:-$root/.deps/guest}"
if [ -s "$out/vmlinux" ] && [ -s "$out/vmlinuz" ]; then exit 0; fi
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
basename "$vmlinuz" | sed 's/^vmlinuz-//' > "$out/release.tmp"
mv "$out/vmlinuz.tmp" "$out/vmlinuz"
mv "$out/vmlinux.tmp" "$out/vmlinux"
mv "$out/release.tmp" "$out/release"
echo "guest-kernel: $(cat "$out/release") in $out" >&2
