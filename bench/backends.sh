#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/backends.sh - per backend, the wall time of provision + probe run (--json, with a
# capture dir) + destroy, through the backend test driver (no catalogue, no history).
# Targets (issue 4): bwrap, runc <= 50 ms; runsc <= 300 ms; qemu-microvm (TCG) <= 2 s.
# Issue 15 adds crun, docker, docker-runsc, podman, podman-runsc (no target: the engines' own
# overhead, reported) and qemu-aarch64 (TCG, no target); each with its median per probe run.
# A Docker daemon is started for the docker backends when none answers, and stopped afterwards.
# Every local backend of the registry is measured (`isotier backends --names`); one without a
# target above reports its figures only. Also the qemu-microvm boot with the host root over
# virtio-9p (`isotier run`'s path).
set -euo pipefail
# BENCH_QUICK=1 (make test): one run of everything, tiny inputs; checks the bench works, no figures.
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
driver="$root/$build/tests/backend-run"
probe="$root/$build/isotier-probe"
[ -x "$driver" ] && [ -x "$probe" ] && [ -x "$root/$build/isotier" ] || { echo "bench/backends: build first (make BUILD=$build)" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench/backends: hyperfine not installed" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isotier-bench-backends.XXXXXX)
chmod 711 "$tmp"
trap '"$root/scripts/dockerd.sh" stop "$tmp/dockerd"; rm -rf "$tmp"' EXIT
command -v dockerd >/dev/null && { "$root/scripts/dockerd.sh" start "$tmp/dockerd" || true; }
# hyperfine -N runs --prepare without a shell: one program that empties a directory.
printf '#!/bin/sh\nrm -rf "$1" && mkdir -m 755 "$1"\n' >"$tmp/fresh-dir"
chmod 755 "$tmp/fresh-dir"
# Targets by name; any other backend has none (-). The backends are the registry's local ones
# (`isotier backends --names`), so a new backend is measured with no edit here.
declare -A target=([bwrap]=50 [runc]=50 [runsc]=300 [qemu-microvm]=2000 [crun]=50)
mapfile -t backends < <("$root/$build/isotier" backends --names | awk -F'\t' '$2 == "local" { print $1 }')
[ "${#backends[@]}" -gt 0 ] || { echo "bench/backends: backends --names lists no local backend" >&2; exit 1; }
[ -z "${BENCH_QUICK:-}" ] || backends=(bwrap runc) # quick: the bench works (bench_quick.sh)
for b in "${backends[@]}"; do
  if ! why=$("$driver" --backend "$b" --available); then
    echo "== $b: SKIPPED (unavailable: $why)"
    continue
  fi
  runs=$(q 20 1)
  case $b in qemu-*) runs=${QEMU_RUNS:-$(q 5 1)} ;; docker*|podman*) runs=${ENGINE_RUNS:-$(q 10 1)} ;; esac
  echo "== $b (target: ${target[$b]:--} ms)"
  # Each run its own, empty capture directory: the probe refuses a
  # non-empty one (the first measured run would exit 73).
  hyperfine -N --style basic --warmup "$(q 1 0)" --runs "$runs" --export-json "$tmp/$b.json" \
    --prepare "$tmp/fresh-dir $tmp/cap-$b" \
    "$driver --backend $b --minimal --probe $probe --capture $tmp/cap-$b -- /.isotier/isotier-probe --json --capture /.isotier/capture" \
    2>&1 | grep -v '^ *$' | sed "s#$driver#backend-run#; s#$probe#isotier-probe#; s#$tmp/##"
  python3 - "$tmp/$b.json" "$b" "${target[$b]:--}" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
mean, target = r["mean"] * 1000, sys.argv[3]
median = statistics.median(r["times"]) * 1000
verdict = "" if target == "-" else ("  (within target)" if mean <= float(target) else f"  (OVER the {target} ms target)")
print(f"{sys.argv[2]}: median {median:.1f} ms per probe run, mean {mean:.1f} ms, min {r['min']*1000:.1f} ms, max {r['max']*1000:.1f} ms{verdict}")
PY
done
if [ -z "${BENCH_QUICK:-}" ] && "$driver" --backend qemu-microvm --available >/dev/null; then
  echo "== qemu-microvm, host root over virtio-9p: /bin/true"
  hyperfine -N --style basic --warmup "$(q 1 0)" --runs "${QEMU_RUNS:-$(q 5 1)}" "$driver --backend qemu-microvm -- /bin/true" \
    2>&1 | grep -v '^ *$' | sed "s#$driver#backend-run#"
fi
