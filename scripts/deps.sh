#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs everything isotier needs on Debian 12, non-interactively and idempotently:
# build toolchain and libraries, the sandbox runtimes the backends drive (bubblewrap, runc, crun,
# systemd-nspawn, runsc, Docker, Podman, QEMU x86_64 and aarch64), the aarch64 cross toolchain (gcc and musl:arm64)
# for the arm64 probe, and the Debian guest kernels the qemu backends boot. Registers runsc as a
# Docker runtime. Fast when all is already there.
set -euo pipefail

packages=(
  build-essential pkg-config musl-tools cpio gzip xz-utils binutils
  libcurl4-openssl-dev libxml2-dev libcjson-dev libsqlite3-dev sqlite3 libgit2-dev check
  libpq-dev postgresql libssl-dev zlib1g-dev
  bubblewrap runc runsc qemu-system-x86
  crun docker.io podman qemu-system-arm gcc-aarch64-linux-gnu musl-dev:arm64
  systemd-container
  python3 python3-pytest python3-mypy python3-cryptography python3-jsonschema hyperfine valgrind cppcheck clang-format git libxml2-utils strace procps bc time
  chromium fonts-wqy-microhei
  clang libclang-rt-14-dev
  dpkg-dev
  # The packages (make deb, make package-test): debhelper builds them (dh-python: python3-isotier's
  # dependencies and byte-compilation), lintian and piuparts judge them, debootstrap makes the
  # Debian root they are installed into; prometheus' promtool checks the job's metrics textfile
  # (job_metrics.sh).
  debhelper dh-python lintian piuparts debootstrap prometheus
)

root=$(cd "$(dirname "$0")/.." && pwd)
stamp="$root/build/.deps-ok"

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
# The arm64 probe links musl for arm64 (musl-dev:arm64); the arm64 guest kernel is an arm64 package.
update=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${sudo_cmd[@]}" dpkg --add-architecture arm64
  update=1
fi

# Docker's runsc runtime (docker-runsc backend): added to /etc/docker/daemon.json when no runtime
# named runsc is there; everything else in that file is kept. Measured on this machine kind: runsc
# refuses to start under Docker without --network=none, and --platform=kvm hangs.
# Written before docker.io is installed, so a daemon its package starts already has it.
rc=0
"${sudo_cmd[@]}" python3 - /etc/docker/daemon.json <<'PY' || rc=$?
import json, os, sys
path = sys.argv[1]
conf = json.load(open(path)) if os.path.exists(path) and os.path.getsize(path) else {}
runtimes = conf.setdefault("runtimes", {})
if "runsc" not in runtimes:
    runtimes["runsc"] = {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace", "--network=none"]}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(conf, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print("deps: registered runsc in %s" % path, file=sys.stderr)
    sys.exit(10)
PY
if [ "$rc" = 10 ]; then
  # A daemon already running under systemd reads daemon.json only when it starts.
  if command -v systemctl >/dev/null && systemctl is-active --quiet docker 2>/dev/null; then
    "${sudo_cmd[@]}" systemctl restart docker
  fi
elif [ "$rc" != 0 ]; then
  echo "deps: cannot register runsc in /etc/docker/daemon.json" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  update=0
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The guest kernel for qemu-microvm: Debian's own, unpacked into .deps/guest.
# We keep the bzImage and also extract the uncompressed ELF (PVH entry), which
# boots about 2.5x faster under TCG.
"$root/scripts/guest-kernel.sh"
[ "$update" = 0 ] || "${sudo_cmd[@]}" apt-get update -qq
"$root/scripts/guest-kernel-arm64.sh"


mkdir -p "$root/build"
touch "$stamp"
