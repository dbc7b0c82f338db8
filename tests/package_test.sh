#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# package_test.sh - `make package-test`: isotier's Debian packages as Debian's tools and an
# operator meet them. Not part of `make test`: it needs a Debian mirror (debootstrap, apt,
# piuparts fetch the dependencies) and takes minutes. Root only. Phases, each failing the run:
#   build     make deb (dpkg-buildpackage) into a directory of its own
#   lintian   bookworm's lintian over the .changes: 0 errors, 0 warnings; every override in
#             debian/*.lintian-overrides carries its reason (a comment above it or above the
#             run of overrides it belongs to)
#   dev       a bookworm root (debootstrap minbase + systemd, cached in BUILD/package-test)
#             with only libisotier-dev installed by apt (its dependencies from the mirror): a C
#             program builds with `pkg-config --cflags --libs isotier` and runs
#   systemd   the same root booted with systemd as PID 1 (systemd-nspawn -b): the packages
#             installed, the timer enabled and active, the service run once (the job on the host
#             backend: the journal, metrics.prom); python3-isotier imported by Debian's python3
#             from dist-packages, against the installed libisotier.so.0 and catalogue (a
#             refusal with its audit record); `systemctl disable --now` of the timer
#             survives an upgrade (the packages repacked one version up, installed by apt in the
#             running system); purge leaves no file of isotier's behind (the history, the
#             timer's stamp, the state directory), the isotier group aside (Debian keeps system
#             groups)
#   piuparts  Debian's install/remove/purge tester over the packages, from the same base
# PACKAGE_TEST_PHASES="lintian dev systemd piuparts" picks phases; PACKAGE_TEST_DEBS=DIR takes the
# packages make deb already wrote there instead of building them.
# Exit 0 pass, 77 skipped (said why: not root, no mirror), else fail. About 10 minutes on 2 cores
# (build 2, lintian 1, dev 1, systemd 2.5, piuparts 3); the first run's debootstrap adds ~6.
set -euo pipefail
export ISOTIER_ROOT=${ISOTIER_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
R=$ISOTIER_ROOT
BUILD=${BUILD:-build}
case $BUILD in /*) build_dir=$BUILD ;; *) build_dir=$R/$BUILD ;; esac
source "$R/tests/lib.sh"
phases=" ${PACKAGE_TEST_PHASES:-lintian dev systemd piuparts} "
want() { [[ $phases == *" $1 "* ]]; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" = 0 ] || skip "not root: debootstrap, the container and piuparts need root"
for c in dpkg-buildpackage dh lintian debootstrap systemd-nspawn piuparts; do
  command -v "$c" >/dev/null || skip "$c is not installed (scripts/deps.sh installs it)"
done
t0=$(date +%s)
phase() { echo "== $1 (+$(($(date +%s) - t0)) s)"; }

# --- build ---------------------------------------------------------------------
phase build
# `make debs`: the packages make test's deb_package.sh built, when nothing changed since.
debs_dir=${PACKAGE_TEST_DEBS:-$build_dir/debs}
if [ -z "${PACKAGE_TEST_DEBS:-}" ]; then
  make -C "$R" --no-print-directory -s BUILD="$BUILD" debs >"$TMP/deb.log" 2>&1 ||
    fail "make debs: $(tail -20 "$TMP/deb.log")"
fi
version=$(cd "$R" && dpkg-parsechangelog -S Version)
mapfile -t debs < <(ls "$debs_dir"/*_"$version"_*.deb | grep -v -- '-dbgsym_')
[ ${#debs[@]} -ge 4 ] || fail "make deb built ${#debs[@]} packages: ${debs[*]}"
ls "$debs_dir/python3-isotier_${version}_all.deb" >/dev/null || fail "make deb built no python3-isotier: ${debs[*]}"
changes=$(ls "$debs_dir"/*.changes)

# --- lintian ---------------------------------------------------------------------
if want lintian; then
  phase lintian
  lintian --tag-display-limit 0 "$changes" >"$TMP/lintian.out" 2>&1 || true
  grep -E '^[EW]: ' "$TMP/lintian.out" >"$TMP/lintian.ew" || true
  [ ! -s "$TMP/lintian.ew" ] || fail "lintian: $(wc -l <"$TMP/lintian.ew") errors/warnings: $(cat "$TMP/lintian.ew")"
  # An override says why: the line above it is a comment.
  for f in "$R"/debian/*.lintian-overrides; do
    # (a run of overrides shares the comment above it; a blank line ends its reach)
    awk -v f="$f" '/^#/ { reason = 1; next } /^[[:space:]]*$/ { reason = 0; next }
                   !reason { print f ": no reason above: " $0; bad = 1 } END { exit bad }' "$f" ||
      fail "an override without its reason"
  done
  echo "lintian: 0 errors, 0 warnings; $(grep -c '^[a-z]' "$R"/debian/*.lintian-overrides | awk -F: '{n += $2} END {print n}') overrides, each with its reason"
fi

# --- the Debian root ---------------------------------------------------------------
cache=$build_dir/package-test
base=$cache/bookworm.tgz
if want dev || want systemd || want piuparts; then
  if [ ! -s "$base" ]; then
    phase "debootstrap bookworm (cached in $base)"
    mkdir -p "$cache"
    rm -rf "$cache/root.tmp"
    timeout 1200 debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm \
      "$cache/root.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
      skip "debootstrap from $mirror failed (no Debian mirror reachable?): $(tail -3 "$cache/debootstrap.log")"
    tar -C "$cache/root.tmp" -czf "$base.tmp" . && mv "$base.tmp" "$base" && rm -rf "$cache/root.tmp"
  fi
fi
root=$TMP/root
new_root() {
  rm -rf "$root"
  mkdir -p "$root"
  tar -C "$root" -xzf "$base"
  mkdir -p "$root/srv/debs"
  cp "${debs[@]}" "$root/srv/debs/"
}
# in_root CMD...: CMD in the (not booted) root, the host's network.
in_root() {
  timeout 900 systemd-nspawn -q --register=no --keep-unit -D "$root" --pipe \
    -E DEBIAN_FRONTEND=noninteractive -E PATH=/usr/sbin:/usr/bin:/sbin:/bin -- "$@"
}
apt_in_root() { in_root apt-get -q -o Dpkg::Use-Pty=0 -o APT::Install-Recommends=false "$@"; }

# --- dev: libisotier-dev alone ---------------------------------------------------------
if want dev; then
  phase "dev: libisotier-dev on a host with only the packages"
  new_root
  apt_in_root update >"$TMP/apt.log" 2>&1 || fail "apt-get update in the root: $(tail -5 "$TMP/apt.log")"
  dev_debs=()
  for p in libisotier-dev libisotier0; do dev_debs+=("/srv/debs/$(basename "$(ls "$debs_dir/${p}_${version}_"*.deb)")"); done
  apt_in_root install -y gcc libc6-dev pkgconf "${dev_debs[@]}" >>"$TMP/apt.log" 2>&1 ||
    fail "apt-get install libisotier-dev: $(tail -15 "$TMP/apt.log")"
  in_root dpkg-query -W isotier >/dev/null 2>&1 && fail "libisotier-dev pulled in the CLI package"
  cat >"$root/srv/app.c" <<'C'
#include <isotier.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	/* The library this program runs with is the one it was built against. */
	int major = -1, minor = -1, patch = -1;
	const char *v = isotier_version(&major, &minor, &patch);
	printf("%s %s\n", v, isotier_tier_name(ISOTIER_MICROVM));
	return strcmp(v, ISOTIER_VERSION) != 0 || major != ISOTIER_VERSION_MAJOR;
}
C
  in_root sh -c 'cc -Wall -Werror -o /srv/app /srv/app.c $(pkg-config --cflags --libs isotier) && /srv/app' \
    >"$TMP/app.out" 2>"$TMP/app.err" || fail "a program against libisotier-dev: $(cat "$TMP/app.out" "$TMP/app.err")"
  assert_eq "$(cat "$TMP/app.out")" "$version MICROVM" "the program's output"
  libs=$(in_root pkg-config --libs isotier 2>/dev/null)
  ! grep -q -- '-rpath' <<<"$libs" || fail "isotier.pc gives a run path for the system's libdir: $libs"
  echo "dev: cc \$(pkg-config --cflags --libs isotier) builds and runs: $(cat "$TMP/app.out")"
fi

# --- systemd as PID 1 -------------------------------------------------------------------
boot_pid="" leader=""
boot() { # boot: the root booted (systemd-nspawn -b), its init's PID in $leader
  timeout 900 systemd-nspawn -q --register=no --keep-unit -b -D "$root" >"$TMP/boot.log" 2>&1 </dev/null &
  boot_pid=$!
  leader=""
  for _ in $(seq 300); do
    # The container's init: a systemd whose parent is the systemd-nspawn of this root.
    for p in $(pgrep -x systemd || true); do
      pp=$(ps -o ppid= -p "$p" | tr -d ' ')
      [ -n "$pp" ] && [ "$(cat "/proc/$pp/comm" 2>/dev/null)" = systemd-nspawn ] &&
        tr '\0' '\n' <"/proc/$pp/cmdline" 2>/dev/null | grep -qxF -- "$root" && { leader=$p; break; }
    done
    [ -n "$leader" ] && break
    kill -0 "$boot_pid" 2>/dev/null || fail "the container did not boot: $(tail -20 "$TMP/boot.log")"
    sleep 0.2
  done
  [ -n "$leader" ] || fail "no systemd in the container: $(tail -20 "$TMP/boot.log")"
  # Its bus is there a moment after its process: until then systemctl cannot connect.
  for _ in $(seq 60); do
    state=$(in_boot systemctl is-system-running --wait 2>&1 || true)
    case $state in *"Failed to connect to bus"*) sleep 1 ;; *) break ;; esac
  done
  case $state in running | degraded) ;; *) fail "the container's systemd: $state; $(tail -20 "$TMP/boot.log")" ;; esac
}
in_boot() { timeout 600 nsenter -t "$leader" -a -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive "$@"; }
halt() {
  [ -n "$boot_pid" ] || return 0
  in_boot systemctl poweroff >/dev/null 2>&1 || true
  for _ in $(seq 150); do kill -0 "$boot_pid" 2>/dev/null || break; sleep 0.2; done
  kill "$boot_pid" 2>/dev/null || true
  wait "$boot_pid" 2>/dev/null || true
  boot_pid=""
}
trap 'halt; rm -rf "$TMP"' EXIT
if want systemd; then
  phase "systemd: install, run, disable, upgrade, purge with systemd as PID 1"
  new_root
  apt_in_root update >"$TMP/apt.log" 2>&1 || fail "apt-get update in the root: $(tail -5 "$TMP/apt.log")"
  # What the root holds before: purge must bring it back to this.
  list_files() { in_boot sh -c 'find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /srv -o -path /var/lib/apt -o -path /var/cache -o -path /var/log -o -path /var/lib/dpkg -o -path /var/lib/systemd/catalog -o -path /var/lib/systemd/deb-systemd-helper-enabled -o -path /var/lib/systemd/deb-systemd-user-helper-enabled -o -path /etc/ld.so.cache -o -path /var/lib/dbus -o -path /etc/machine-id -o -path /var/lib/systemd/random-seed -o -path /var/lib/systemd/timesync -o -path /var/lib/systemd/coredump -o -path /var/lib/private \) -prune -o -print' | sort; }
  boot
  list_files >"$TMP/before"
  in_boot apt-get -q -o Dpkg::Use-Pty=0 -o APT::Install-Recommends=false install -y "${debs[@]/#$debs_dir//srv/debs}" \
    >>"$TMP/apt.log" 2>&1 || fail "apt-get install of the packages: $(tail -15 "$TMP/apt.log")"
  # The listing sees what the packages install (so an empty difference after purge means something).
  grep -qx /etc/passwd "$TMP/before" || fail "the root's file list is empty: $(head -3 "$TMP/before")"
  list_files >"$TMP/during"
  grep -qx /usr/bin/isotier "$TMP/during" || fail "the file list does not show the installed /usr/bin/isotier"
  assert_eq "$(in_boot systemctl is-enabled isotier-reverify.timer)" enabled "the timer after the first install"
  assert_eq "$(in_boot systemctl is-active isotier-reverify.timer)" active "the timer after the first install"
  assert_eq "$(in_boot systemctl is-active isotier-reverify.service || true)" inactive "the service is not run by the install"
  assert_eq "$(in_boot stat -c '%a %U:%G' /var/lib/isotier)" "750 root:isotier" "the state directory"
  # One run of the job, as the timer runs it (the host backend only: no sandbox runtime in this
  # root). A job that verified no sandbox fails, 69 with the cause first: that is its documented
  # answer here, and the history, the report and the metrics are still written.
  printf 'ISOTIER_BACKENDS=host\nISOTIER_SOURCES_EVERY_DAYS=3650\n' >>"$root/etc/default/isotier"
  in_boot touch /var/lib/isotier/.sources-attempted
  in_boot systemctl start isotier-reverify.service || true
  status=$(in_boot systemctl show -P ExecMainStatus isotier-reverify.service)
  journal=$(in_boot journalctl -u isotier-reverify.service --no-pager -o cat)
  assert_contains "$journal" "isotier-reverify: " "the job's lines in the journal"
  [ "$status" = 69 ] || fail "the job's exit $status (69 wanted: it verified no sandbox): $journal"
  assert_contains "$journal" "isotier-reverify: verify: no sandbox backend was verified" "the job's cause in the journal"
  in_boot test -s /var/lib/isotier/isotier.db || fail "no history after the service ran"
  m=$(in_boot cat /var/lib/isotier/metrics.prom) || fail "no metrics.prom after the service ran"
  assert_contains "$m" "isotier_job_exit_code $status" "the metrics' exit code"
  assert_contains "$(in_boot man -w isotier-reverify 2>&1 || in_boot ls /usr/share/man/man8)" "isotier-reverify.8" "the unit's Documentation= page"
  # The Python package as installed: Debian's python3 finds it in dist-packages, it loads the
  # system's libisotier.so.0 (the soname, no build tree) and the installed catalogue; MICROVM of
  # runc is refused before anything starts, with the library's audit record.
  py_out=$(in_boot python3 - "$version" <<'PY' 2>&1
import sys
import isotier
from isotier import Tier
assert isotier.__file__ == "/usr/lib/python3/dist-packages/isotier/__init__.py", isotier.__file__
assert isotier.library_path() == "libisotier.so.0", isotier.library_path()
assert isotier.version() == sys.argv[1], (isotier.version(), sys.argv[1])
assert isotier.cli_path() == "/usr/bin/isotier", isotier.cli_path()
try:
    isotier.require("runc", Tier.MICROVM, attest=False)
except isotier.RefusedError as e:
    rec = e.record
    assert rec is not None and rec.decision == "refused", e.audit
    assert (rec.requested, rec.effective) == (Tier.MICROVM, Tier.CONTAINER), rec
    assert e.exit_class == 78 and rec.reason, rec
else:
    raise SystemExit("runc granted MICROVM")
print("python3-isotier:", isotier.version(), rec.event, rec.requested.name, rec.effective.name)
PY
  ) || fail "python3-isotier in the installed system: $py_out"
  assert_contains "$py_out" "python3-isotier: $version refuse MICROVM CONTAINER" "the installed Python package"
  # The administrator turns the timer off; an upgrade keeps it off.
  in_boot systemctl disable --now isotier-reverify.timer >/dev/null 2>&1
  up=$TMP/up
  mkdir -p "$up" "$root/srv/up"
  for d in "${debs[@]}"; do
    x=$TMP/x
    rm -rf "$x"
    dpkg-deb -R "$d" "$x"
    sed -i -e "s/^Version: $version\$/Version: $version+pkgtest1/" \
      -e "s/(= $version)/(= $version+pkgtest1)/g" "$x/DEBIAN/control"
    dpkg-deb --root-owner-group -b "$x" "$root/srv/up/" >/dev/null
  done
  in_boot sh -c 'apt-get -q -o Dpkg::Use-Pty=0 install -y /srv/up/*.deb' >>"$TMP/apt.log" 2>&1 ||
    fail "the upgrade: $(tail -15 "$TMP/apt.log")"
  assert_eq "$(in_boot dpkg-query -W -f '${Version}' isotier)" "$version+pkgtest1" "the upgraded version"
  assert_eq "$(in_boot systemctl is-enabled isotier-reverify.timer || true)" disabled "the timer after the upgrade (disabled before)"
  assert_eq "$(in_boot systemctl is-active isotier-reverify.timer || true)" inactive "the timer after the upgrade (stopped before)"
  # Purge: nothing of isotier's is left (the group aside).
  in_boot apt-get -q -o Dpkg::Use-Pty=0 purge -y python3-isotier isotier isotier-guest-aarch64 libisotier-dev libisotier0 \
    >>"$TMP/apt.log" 2>&1 || fail "purge: $(tail -15 "$TMP/apt.log")"
  in_boot apt-get -q -o Dpkg::Use-Pty=0 autoremove --purge -y >>"$TMP/apt.log" 2>&1 || fail "autoremove"
  list_files >"$TMP/after"
  left=$(comm -13 "$TMP/before" "$TMP/after" | grep -v '^/etc/\(group\|gshadow\|passwd\|shadow\)-\?$' || true)
  [ -z "$left" ] || fail "left after purge: $left"
  in_boot test ! -e /var/lib/systemd/timers/stamp-isotier-reverify.timer || fail "the timer's stamp left after purge"
  halt
  echo "systemd: timer enabled and active on install, the service ran (exit $status, metrics written), python3-isotier imported and refused as the library does, disable survived the upgrade to $version+pkgtest1, purge left nothing"
fi

# --- piuparts ---------------------------------------------------------------------------
if want piuparts; then
  phase piuparts
  timeout 1800 piuparts -b "$base" -d bookworm -m "$mirror" --no-upgrade-test \
    -t "$TMP" "${debs[@]}" >"$TMP/piuparts.log" 2>&1 ||
    fail "piuparts: $(grep -E 'FAIL|ERROR' "$TMP/piuparts.log" | head -20; tail -30 "$TMP/piuparts.log")"
  grep -q 'PASS: All tests' "$TMP/piuparts.log" || fail "piuparts did not pass: $(tail -20 "$TMP/piuparts.log")"
  echo "piuparts: $(grep 'PASS' "$TMP/piuparts.log" | tail -1)"
fi
echo "package-test: passed in $(($(date +%s) - t0)) s"
