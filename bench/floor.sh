#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/floor.sh - every isotier operation against its floor, measured in the same run as
# interleaved pairs (bench/pair.c: A B, B A, ...; medians, min/max, the median ratio's 95%
# interval), each with a verdict against a ratio target (issue 24):
#   verify --backend B    <= 1.3x  the bare runtime running the same static probe the same way
#                                  (--json --nonce --challenge 100 --capture, minimal root):
#                                  bwrap, runc, crun, runsc, docker, podman by their own CLI;
#                                  nspawn through isotier's backend alone (backend-run: no
#                                  catalogue, no history, no host view), said so in its label
#   verify qemu-microvm   <= 1.1x  the same guest boot with the accelerator already decided,
#                                  verify starting from an empty state directory (a fresh clone
#                                  on a fresh host: the KVM decision is made in the run)
# A target is met only when the median ratio's 99% interval is under it; otherwise MISSED with
# the reason (the whole interval over, or not shown within it): never a verdict noise flips. The
# probe's own floors are in bench/probe.sh, `sources check` against curl in bench/sources.sh.
# verify counts as a whole run when it exits 0 or 2 (it ran and could not prove a claim).
# Pairs: at least BENCH_PAIRS (default 10), more while the interval straddles the target, up to
# BENCH_MAX_PAIRS (default 40); qemu: QEMU_PAIRS (8) to QEMU_MAX_PAIRS (16). BENCH_BACKENDS
# (default: bwrap runc crun runsc nspawn docker podman qemu-microvm) picks the pairs. Figures
# only: exit 0 on a MISSED target; a pair whose commands fail is NOT MEASURED, named, and the
# next one runs (a failed run times nothing).
set -euo pipefail
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
cli=$root/$build/isotier
probe=$root/$build/isotier-probe
driver=$root/$build/tests/backend-run
[ -x "$cli" ] && [ -x "$probe" ] && [ -x "$driver" ] || { echo "bench/floor: build first (make BUILD=$build)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isotier-bench-floor.XXXXXX)
chmod 711 "$tmp"
trap 'rm -rf "$tmp"' EXIT
cc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$tmp/pair" "$root/bench/pair.c" -lm
pairs=${BENCH_PAIRS:-$(q 10 1)}
max_pairs=${BENCH_MAX_PAIRS:-$(q 40 1)}
export ISOTIER_STATE_DIR=$tmp/state ISOTIER_PROBE=$probe

# The probe's root, as the engines and OCI runtimes see it: the static probe at
# /.isotier/isotier-probe, an empty capture directory, mount points.
rootfs=$tmp/rootfs
mkdir -p "$rootfs/.isotier/capture" "$rootfs/proc" "$rootfs/dev" "$rootfs/sys" "$rootfs/tmp"
cp "$probe" "$rootfs/.isotier/isotier-probe"
chmod -R a+rX "$rootfs"
nonce=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
# The short window verify asks for (ISOTIER_CHALLENGE_MS in reference/evidence/host_watch.h).
challenge_ms=$(sed -n 's/^#define ISOTIER_CHALLENGE_MS *\([0-9]*\).*/\1/p' "$root/reference/evidence/host_watch.h")
args="/.isotier/isotier-probe --json --nonce $nonce --challenge ${challenge_ms:-150} --capture /.isotier/capture"
# Before every timed command: an empty capture directory (the probe refuses a full one) and a
# fresh history file for verify (what one run against a new --db costs).
printf '#!/bin/sh\nrm -rf "%s"/.isotier/capture "%s"/h.db* && mkdir -m 777 "%s"/.isotier/capture\n' \
  "$rootfs" "$tmp" "$rootfs" >"$tmp/prep"
chmod 755 "$tmp/prep"
verify="$cli verify --db $tmp/h.db --backend"
# As root, every isotier on the host shares one challenge lock (reference/evidence/host_watch.c): each
# pair runs holding it (pair -L), so no other verification's task pattern loads the CPU during a
# pair, and the timed verify takes a lock of its own, so it never queues behind one (a queue is
# the host's, not what verify costs; the floor has none). Not root: the state directory above
# is this run's own, and so is its lock.
hold=() timed_verify=$verify
if [ "$(id -u)" = 0 ]; then
  mkdir -p /run/isotier
  hold=(-L /run/isotier/challenge.lock)
  timed_verify="env ISOTIER_CHALLENGE_LOCK=$tmp/challenge.lock $verify"
fi
# Hybrid cgroups (v1 controllers, cgroup2 at /sys/fs/cgroup/unified): crun and podman refuse
# them; as isotier does, they run in a mount namespace where that cgroup2 mount is gone.
unhybrid=
if mountpoint -q /sys/fs/cgroup/unified 2>/dev/null; then
  printf '#!/bin/sh\nexec unshare -m --propagation private sh -c %s sh "$@"\n' \
    "'umount -l /sys/fs/cgroup/unified && exec \"\$@\"'" >"$tmp/unhybrid"
  chmod 755 "$tmp/unhybrid"
  unhybrid=$tmp/unhybrid
fi

# A pair this host could not measure (a run failed, a floor would not start: a busy or
# half-configured host) is named, in the output and in the verdicts, and the next one runs.
unmeasured() {
  echo "== $1: NOT MEASURED ($2)"
  echo "verify $1: NOT MEASURED ($2)" >>"${BENCH_SUMMARY:-/dev/null}"
}

echo "verify against the bare runtime (target <= 1.3x each; $pairs to $max_pairs interleaved pairs)"
available() { "$driver" --backend "$1" --available >/dev/null 2>&1; }
backends=(${BENCH_BACKENDS:-bwrap runc crun runsc nspawn docker podman qemu-microvm})
[ -z "${BENCH_QUICK:-}" ] || backends=(bwrap)
for b in "${backends[@]}"; do
  [ "$b" != qemu-microvm ] || continue # its own pair below: a fresh state directory, a 1.1x target
  if ! available "$b"; then
    echo "== $b: SKIPPED (unavailable: $("$driver" --backend "$b" --available 2>&1 | head -c 200))"
    continue
  fi
  # One verify first: warms the page cache and builds what is built once (the docker image).
  rc=0; $verify "$b" >/dev/null 2>&1 || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 2 ] || { unmeasured "$b" "verify --backend $b exited $rc"; continue; }
  floor_name="bare $b"
  case $b in
    bwrap)
      floor="bwrap --unshare-all --die-with-parent --new-session --clearenv --proc /proc --dev /dev
        --tmpfs /tmp --ro-bind $rootfs/.isotier/isotier-probe /.isotier/isotier-probe
        --bind $rootfs/.isotier/capture /.isotier/capture --chdir / -- $args" ;;
    runc|crun|runsc)
      bundle=$tmp/bundle
      if [ ! -f "$bundle/config.json" ]; then
        mkdir -p "$bundle" && (cd "$bundle" && runc spec)
        python3 - "$bundle/config.json" "$rootfs" "$args" <<'PY'
import json, sys
p, rootfs, args = sys.argv[1], sys.argv[2], sys.argv[3].split()
c = json.load(open(p))
c["process"]["terminal"] = False
c["process"]["args"] = args
c["root"] = {"path": rootfs, "readonly": True}
c["mounts"].append({"destination": "/.isotier/capture", "type": "bind",
                    "source": rootfs + "/.isotier/capture", "options": ["rbind", "rw"]})
json.dump(c, open(p, "w"))
PY
      fi
      mkdir -p "$tmp/rt-$b"
      extra=
      [ "$b" = runsc ] && extra="--platform=ptrace --network=none --ignore-cgroups"
      rt=$b
      [ "$b" = crun ] && rt="$unhybrid crun"
      floor="$rt --root $tmp/rt-$b $extra run --bundle $bundle isotier-floor-$$" ;;
    docker)
      # The image verify made: isotier-probe:<digest of the probe and the (minimal) root>.
      sha=$(sha256sum "$probe" | cut -d' ' -f1)
      tag=isotier-probe:$(printf 'isotier-image/1\nprobe %s\n' "$sha" | sha256sum | cut -c1-24)
      docker image inspect "$tag" >/dev/null 2>&1 || { unmeasured "$b" "no image $tag after verify"; continue; }
      floor="docker run --rm --network none --read-only --tmpfs=/tmp
        --mount type=bind,source=$rootfs/.isotier/capture,target=/.isotier/capture $tag $args" ;;
    podman)
      floor="$unhybrid podman run --rm --network none --read-only --ulimit nofile=1024:1024 --ulimit nproc=1024:1024
        --mount type=bind,source=$rootfs/.isotier/capture,target=/.isotier/capture --rootfs $rootfs $args" ;;
    *)
      floor_name="$b backend alone"
      floor="$driver --backend $b --minimal --probe $probe --capture $rootfs/.isotier/capture -- $args" ;;
  esac
  floor=$(echo $floor) # one line: pair splits on spaces
  "$tmp/prep"
  $floor >/dev/null 2>&1 || { unmeasured "$b" "its floor fails: $(echo "$floor" | cut -c1-120)"; continue; }
  "$tmp/prep"
  echo "== $b"
  "$tmp/pair" -n "$pairs" -N "$max_pairs" -w "$(q 1 0)" -t 1.3 -a 0,2 "${hold[@]}" -p "$tmp/prep" \
    -l "verify $b / $floor_name" "verify" "$timed_verify $b" "$floor_name" "$floor" | sed "s#$tmp/##g" ||
    unmeasured "$b" "a run failed or outlived its bound (above)"
done

echo
echo "qemu-microvm: verify from an empty state directory against the boot alone (target <= 1.1x)"
if [ -n "${BENCH_QUICK:-}" ]; then
  echo "== qemu-microvm: SKIPPED in quick mode (a boot is seconds)"
elif [[ " ${BENCH_BACKENDS:-qemu-microvm} " != *" qemu-microvm "* ]]; then
  echo "== qemu-microvm: SKIPPED (not in BENCH_BACKENDS)"
elif available qemu-microvm; then
  # What the decision comes to on this host, made once, then fixed for the floor.
  rc=0; $verify qemu-microvm >/dev/null 2>&1 || rc=$?
  if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then
    unmeasured qemu-microvm "verify --backend qemu-microvm exited $rc"
  else
  accel=tcg
  grep -qx kvm "$ISOTIER_STATE_DIR"/cache/kvm-* 2>/dev/null && accel=kvm
  printf '#!/bin/sh\nrm -rf "%s"/.isotier/capture "%s"/h.db* "%s"/fresh && mkdir -m 777 "%s"/.isotier/capture\n' \
    "$rootfs" "$tmp" "$tmp" "$rootfs" >"$tmp/prep"
  "$tmp/pair" -n "${QEMU_PAIRS:-8}" -N "${QEMU_MAX_PAIRS:-16}" -w 0 -t 1.1 -T 300 -a 0,2 "${hold[@]}" -p "$tmp/prep" -l "verify qemu-microvm (fresh) / boot ($accel)" \
    "verify-fresh" "env ISOTIER_STATE_DIR=$tmp/fresh $timed_verify qemu-microvm" \
    "boot-$accel" "env ISOTIER_QEMU_ACCEL=$accel $driver --backend qemu-microvm --minimal --probe $probe --capture $rootfs/.isotier/capture -- $args" |
    sed "s#$tmp/##g" || unmeasured qemu-microvm "a run failed or outlived its bound (above)"
  fi
else
  echo "== qemu-microvm: SKIPPED (unavailable)"
fi
