#!/usr/bin/env bash
# Installs everything isotier needs on Debian 12, non-interactively and idempotently:
# build toolchain and libraries, the sandbox runtimes the backends drive, and the
# Debian guest kernel the qemu-microvm backend boots. Fast when all is already there.
set -euo pipefail

packages=(
  build-essential pkg-config musl-tools cpio gzip xz-utils binutils
  libcurl4-openssl-dev libxml2-dev libcjson-dev libsqlite3-dev sqlite3 libgit2-dev check
  bubblewrap runc runsc qemu-system-x86
  python3 hyperfine valgrind cppcheck clang-format git libxml2-utils strace procps bc
  clang libclang-rt-14-dev
)

root=$(cd "$(dirname "$0")/.." && pwd)
stamp="$root/build/.deps-ok"

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The guest kernel for qemu-microvm: Debian's own, unpacked into .deps/guest.
# We keep the bzImage and also extract the uncompressed ELF (PVH entry), which
# boots about 2.5x faster under TCG.
"$root/scripts/guest-kernel.sh"

mkdir -p "$root/build"
touch "$stamp"
