#!/usr/bin/env bash
# isotier-test: slow; uses: quiet docker kvm nspawn make-build podman; after: deb_package
# SPDX-License-Identifier: Apache-2.0
# deb_install.sh - the Debian package as an operator meets it, with the package's defaults and
# every local backend. `make debs` builds the packages (debian/, dpkg-buildpackage: `make deb`
# into $BUILD/debs, once: deb_package.sh builds them first, outside the quiet slot); isotier,
# libisotier0, libisotier-dev, python3-isotier and isotier-guest-aarch64 are unpacked with
# `dpkg -x` into a root this test owns
# (the state directory made as the postinst makes it), and the job unit's ExecStart runs there
# as systemd would run it: the unit's environment (User= -> HOME..., StateDirectory ->
# $STATE_DIRECTORY, Environment=), /etc/default/isotier as shipped and read by the job itself (no
# ISOTIER_BACKENDS, so `verify --all`), its PrivateTmp= and ProtectHome=, and no network (an
# offline host). make package-test (tests/package_test.sh) installs them with apt into a Debian
# root instead, with lintian, piuparts and systemd as PID 1.
#
# The root. A debootstrap'd root needs a full Debian mirror and would still lack what the
# sandboxes need from a real host (cgroups, /run with the Docker daemon's socket and the
# runtimes' state, Podman's storage), so the root is this host's system with the package
# installed over it, in a private mount namespace (unshare -m): /usr, /etc and /var are
# read-only overlays with the package's files on top of the host's (what `dpkg -i` would add,
# and nothing more: the host itself is never written), /var/lib/isotier is the package's own
# (writable: the state directory), /var/lib/containers (Podman's storage) and /run (the
# runtimes' state, dockerd's socket) are the host's, /tmp and /var/tmp are the host's unless the
# unit asks for private ones, /root is read-only (ProtectHome=read-only), /proc, /sys, /dev are
# the host's, and so are the runtimes dockerd starts (runsc: bound over their overlay copies, so
# the host view knows them for the host's own files). bwrap turns that into / (pivot_root,
# which runc, crun and nspawn need; a chroot would not do) and unshares the network. The
# checkout is not mounted at all (or hidden under a tmpfs when it lies inside a directory the
# root takes from the host), nor is the test's own temp directory with the .deb: no build
# output is reachable, and `isotier paths` shows every default under /usr and /var/lib/isotier.
#
# The QEMU guest kernels are not in the package (Debian's kernel is ~100 MB);
# /usr/libexec/isotier/guest-kernel.sh and guest-kernel-arm64.sh fetch them with apt into
# /usr/lib/isotier/guest{,-arm64}. The root is offline, so they are copied there from the
# checkout's .deps (which scripts/deps.sh fetched with the same scripts), as if the documented
# fetch had run; the installed scripts then find them in place and exit 0 without a network,
# which shows they fill the directories isotier reads. Docker needs a daemon: one is started
# (scripts/dockerd.sh) when none answers, and stopped afterwards only if this test started it;
# docker-runsc needs runsc registered in /etc/docker/daemon.json (scripts/deps.sh does it).
#
#   clean (package defaults)             exit 0, every local backend CONFIRMED; host
#                                        INCONCLUSIVE "no claim" (no ISOTIER_HOST_PROVIDER:
#                                        not an alert); sources unreachable a warning
#   a claim made wrong                   exit 1, first line: the contradicted backend
#   an unavailable backend (no kernel)   exit 69, first line: the backend and why (package
#                                        defaults, and named in ISOTIER_BACKENDS)
#   a typo in ISOTIER_BACKENDS           exit 64, first line: the name and its suggestion
#   a read-only state directory          exit 73, first line: the directory and why
#   sources unreachable for 40 days      exit 2, first line: the unchecked sources
#   the Python package                   python3 imports it from dist-packages, against the
#                                        installed library: a grant on bwrap attested, a
#                                        refusal with its audit record
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
case $BUILD in /*) build_dir=$BUILD ;; *) build_dir=$R/$BUILD ;; esac
command -v dpkg-deb >/dev/null || skip "dpkg-deb is not installed: make deb needs Debian's dpkg"
command -v dpkg-buildpackage >/dev/null || skip "dpkg-buildpackage (dpkg-dev) is not installed: scripts/deps.sh installs it"
command -v dh >/dev/null || skip "debhelper is not installed: scripts/deps.sh installs it"
[ "$(id -u)" = 0 ] || skip "not root: the root's mounts and the job's backends need root"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
  skip "the kernel has no overlayfs: the package root is an overlay of the host's system"
# Every local backend must be CONFIRMED: each needs its runtime (scripts/deps.sh installs them all).
missing=()
for c in bwrap runc crun runsc systemd-nspawn podman docker dockerd qemu-system-x86_64 qemu-system-aarch64; do
  command -v "$c" >/dev/null || missing+=("$c")
done
[ -s "$R/.deps/guest/vmlinux" ] || missing+=(".deps/guest (scripts/guest-kernel.sh)")
[ -s "$R/.deps/guest-arm64/vmlinuz" ] || missing+=(".deps/guest-arm64 (scripts/guest-kernel-arm64.sh)")
[ ${#missing[@]} -eq 0 ] || skip "every local backend is verified, and this host lacks: ${missing[*]} (scripts/deps.sh)"
# Docker: a daemon that answers, with gVisor's runsc registered for docker-runsc.
trap '"$R/scripts/dockerd.sh" stop "$TMP/dockerd" >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
"$R/scripts/dockerd.sh" start "$TMP/dockerd" >"$TMP/dockerd.out" 2>&1 ||
  fail "no Docker daemon answers and none could be started: $(cat "$TMP/dockerd.out")"
docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"' ||
  skip "the Docker daemon has no runsc runtime (scripts/deps.sh registers it in /etc/docker/daemon.json)"

# --- the package ------------------------------------------------------------
# `make debs`: the packages deb_package.sh built beside the quiet tests (the runner starts this one
# after it), rebuilt here only when a file they are made of changed since (or run alone).
make -C "$R" --no-print-directory -s BUILD="$BUILD" debs >"$TMP/deb.log" 2>&1 ||
  fail "make debs: $(tail -20 "$TMP/deb.log")"
version=$(sed -n 's/^#define ISOTIER_VERSION[[:space:]]*"\(.*\)"/\1/p' "$R/include/isotier.h")
cp "$build_dir"/debs/*_"$version"_*.deb "$TMP"/ || fail "make debs left no $version package in $build_dir/debs"
deb=$(ls "$TMP"/isotier_*.deb) || fail "make deb wrote no .deb: $(tail "$TMP/deb.log")"
# What the job's root gets: the CLI's package, the library's, the Python package and the
# aarch64 guest programs'.
debs=("$deb" "$TMP"/libisotier0_*.deb "$TMP"/libisotier-dev_*.deb "$TMP"/python3-isotier_*_all.deb
  "$TMP"/isotier-guest-aarch64_*.deb)
for d in "${debs[@]}"; do [ -s "$d" ] || fail "make deb wrote no $d: $(ls "$TMP")"; done
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libcurl4 libsqlite3-0 libcjson1 libxml2 libgit2-1.5 python3; do assert_contains "$depends" "$lib" "Depends"; done
py_deb=$(ls "$TMP"/python3-isotier_*_all.deb)
assert_eq "$(dpkg-deb -f "$py_deb" Architecture)" all "python3-isotier's Architecture"
py_depends=$(dpkg-deb -f "$py_deb" Depends)
for dep in "isotier (>= " "libisotier0 (>= " "python3:any (>= 3.11"; do
  assert_contains "$py_depends" "$dep" "python3-isotier's Depends"
done
assert_eq "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | sort | tr '\n' ' ')" \
  "/etc/cron.d/isotier /etc/default/isotier " "conffiles"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
listing=$(for d in "${debs[@]}"; do dpkg-deb -c "$d"; done | awk '{print $6}')
for f in usr/bin/isotier usr/bin/isotier-probe usr/lib/isotier/isotier-probe-aarch64 \
         usr/libexec/isotier/isotier-guest-init usr/lib/isotier/isotier-guest-init-aarch64 \
         usr/libexec/isotier/isotier-reverify usr/libexec/isotier/isotier-metrics \
         usr/libexec/isotier/guest-kernel.sh usr/libexec/isotier/guest-kernel-arm64.sh \
         "usr/lib/$multiarch/libisotier.so.0" "usr/lib/$multiarch/libisotier.a" usr/include/isotier.h \
         "usr/lib/$multiarch/pkgconfig/isotier.pc" \
         usr/share/man/man1/isotier.1.gz usr/share/man/man1/isotier-paths.1.gz \
         usr/share/man/man1/isotier-probe.1.gz usr/share/man/man3/libisotier.3.gz \
         usr/share/man/man8/isotier-reverify.8.gz usr/share/doc/isotier/copyright \
         usr/share/isotier/catalogue/providers/runc.json usr/share/isotier/schemas/provider.schema.json \
         usr/share/isotier/schemas/report.schema.json usr/share/isotier/runbook/jobs.md \
         lib/systemd/system/isotier-reverify.service lib/systemd/system/isotier-reverify.timer \
         etc/default/isotier etc/cron.d/isotier etc/isotier/catalogue.d/ \
         usr/lib/python3/dist-packages/isotier/__init__.py usr/lib/python3/dist-packages/isotier/_audit.py \
         usr/lib/python3/dist-packages/isotier/py.typed \
         usr/lib/python3/dist-packages/isotier/framework-levels.json; do
  grep -qxF "./$f" <<<"$listing" || fail "the package lacks /$f"
done
# The catalogue holds providers only: a schema there would be read as one.
grep -q '^./usr/share/isotier/catalogue/providers/.*schema' <<<"$listing" && fail "a schema among the providers"

root=$TMP/root
for d in "${debs[@]}"; do dpkg -x "$d" "$root"; done
install -d -m 0750 "$root/var/lib/isotier"  # as the postinst makes it
# Nothing in the package names the build tree (binaries, man pages, units, pkg-config).
{ grep -rlF "$R/" "$root"; zgrep -lF "$R/" "$root"/usr/share/man/man*/*; } >"$TMP/leaks" 2>/dev/null || true
[ ! -s "$TMP/leaks" ] || fail "the package names the build tree $R: $(cat "$TMP/leaks")"

# --- the root and the unit's command ---------------------------------------
unit=$root/lib/systemd/system/isotier-reverify.service
setting() { sed -n "s/^$1=//p" "$unit"; }
exec_start=$(setting ExecStart)
state_dir=/var/lib/$(setting StateDirectory)
assert_eq "$exec_start" /usr/libexec/isotier/isotier-reverify "the unit's ExecStart"
# The job reads /etc/default/isotier itself (one parser, under systemd and cron alike).
! grep -q '^EnvironmentFile=' "$unit" || fail "the unit reads an EnvironmentFile: the job is the one parser of /etc/default/isotier"
if grep -q '^ISOTIER_BACKENDS=' "$root/etc/default/isotier"; then
  fail "the package's defaults name backends: $(grep '^ISOTIER_BACKENDS=' "$root/etc/default/isotier")"
fi
# The guest kernels, as the documented fetch (guest-kernel.sh, guest-kernel-arm64.sh) leaves them.
mkdir -p "$root/usr/lib/isotier"
cp -a "$R/.deps/guest" "$root/usr/lib/isotier/guest"
cp -a "$R/.deps/guest-arm64" "$root/usr/lib/isotier/guest-arm64"
# The unit's own sandboxing, as the root's mounts (nothing else in the unit changes what the
# job can see).
user=$(setting User)
IFS=: read -r _ _ _ _ _ user_home user_shell < <(getent passwd "${user:-root}")
case $(setting PrivateTmp) in yes | true | on | 1) private_tmp=1 ;; *) private_tmp=0 ;; esac
case $(setting ProtectHome) in
  read-only) home=(--ro-bind /root /root) ;;
  yes | true | on | 1 | tmpfs) home=(--tmpfs /root) ;;
  *) home=(--bind /root /root) ;;
esac
# The directories the root takes from the host by path: the checkout, its build and this
# test's temp directory (the .deb) are hidden when they lie inside one of them.
from_host=(/usr /etc /var /run /root)
[ "$private_tmp" = 1 ] || from_host+=(/tmp)
hide=() hidden=()
for p in "$R" "$build_dir" "$TMP"; do
  # A path inside one already hidden is gone with it (a tmpfs of its own would recreate it
  # as an empty mount point: a checkout in /tmp has its build inside it).
  inside=0
  for q in "${hidden[@]}"; do case $p/ in "$q"/*) inside=1 ;; esac; done
  [ "$inside" = 0 ] || continue
  for h in "${from_host[@]}"; do
    case $p/ in "$h"/*) hide+=(--tmpfs "$p"); hidden+=("$p"); break ;; esac
  done
done
# systemd's PATH for a unit that sets none.
unit_path=$(systemd-path search-binaries-default 2>/dev/null) ||
  unit_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
sysroot=$TMP/sysroot
mkdir -p "$sysroot"/{usr,etc,var,root,proc,sys,dev,run,tmp}
for l in bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$l" ]; then ln -s "$(readlink "/$l")" "$sysroot/$l"; fi
done
mkdir -p /var/lib/containers  # Podman's storage, as podman itself would create it
# The runtimes dockerd starts (runsc for docker-runsc) run the host's file, and the host view
# (reference/evidence/host_watch.c) counts a runsc only when it is the very file the job's PATH finds
# (device and inode): an overlay gives its files a device of its own, so each is bound from
# the host over its overlay copy.
mapfile -t daemon_runtimes < <(docker info --format '{{json .Runtimes}}' | python3 -c 'import json, shutil, sys
for r in json.load(sys.stdin).values():
    p = shutil.which(r["path"])
    if p and p.startswith("/usr/"):
        print(p)' | sort -u)

# in_root CMD...: CMD in the package root (see the header), as the unit runs it: the
# environment is the unit's, nothing else. ROOT_EXTRA: more bwrap arguments.
in_root() {
  local env=("PATH=$unit_path" "STATE_DIRECTORY=$state_dir")
  [ -n "$user" ] && env+=("HOME=$user_home" "USER=$user" "LOGNAME=$user" "SHELL=$user_shell")
  while IFS= read -r l; do env+=("$l"); done < <(setting Environment)
  env+=("${EXTRA_ENV[@]}")
  local tmp=(--bind /tmp /tmp) vartmp=host
  [ "$private_tmp" = 1 ] && tmp=(--tmpfs /tmp) vartmp=private
  # shellcheck disable=SC2016
  timeout --kill-after=10 600 unshare --mount --propagation private -- bash -euc '
    root=$1 sysroot=$2 vartmp=$3 runtimes=$4
    shift 4
    for d in usr etc var; do
      mount -t overlay "isotier-$d" -o "ro,lowerdir=$root/$d:/$d" "$sysroot/$d"
    done
    for f in $runtimes; do mount --bind "$f" "$sysroot$f"; done
    mount --bind "$root/var/lib/isotier" "$sysroot/var/lib/isotier"
    mount --rbind /var/lib/containers "$sysroot/var/lib/containers"
    if [ "$vartmp" = host ]; then mount --bind /var/tmp "$sysroot/var/tmp"
    else mount -t tmpfs isotier-vartmp "$sysroot/var/tmp"; fi
    exec bwrap "$@"' bash "$root" "$sysroot" "$vartmp" "${daemon_runtimes[*]}" \
    --bind "$sysroot" / --dev-bind /dev /dev --bind /proc /proc --bind /sys /sys \
    --bind /run /run "${tmp[@]}" "${home[@]}" "${hide[@]}" \
    --unshare-net --cap-add ALL --chdir / "${ROOT_EXTRA[@]}" \
    -- /usr/bin/env -i "${env[@]}" "$@"
}
EXTRA_ENV=() ROOT_EXTRA=()
job() { # job: runs the unit's command; $rc, $first (its first line), $err (all of stderr)
  rc=0
  in_root "$exec_start" 2>"$TMP/job.err" >/dev/null || rc=$?
  err=$(cat "$TMP/job.err")
  first=$(head -n1 "$TMP/job.err")
}
log=$root$state_dir/job.log
# last_verify: what the last run's verify step printed (its table and reasons, from job.log).
last_verify() {
  awk '/^--- .* verify: exit/ {on = 0; next}
       /^--- .* verify: / {b = ""; on = 1; next}
       on {b = b $0 "\n"}
       END {printf "%s", b}' "$log"
}

in_root /bin/sh -c "test ! -e '$R/Makefile' && test ! -e '$build_dir' && test ! -e '$R/.deps' && test ! -e '$deb'" ||
  fail "the checkout, its build or the .deb is reachable from the root"
assert_eq "$(in_root /bin/sh -c 'command -v isotier')" /usr/bin/isotier "the isotier on the root's PATH"
for f in "${daemon_runtimes[@]}"; do
  assert_eq "$(in_root /usr/bin/stat -c %d:%i "$f")" "$(stat -c %d:%i "$f")" "$f in the root is the host's file"
done
paths=$(in_root /usr/bin/isotier paths) || fail "isotier paths: $paths"
assert_contains "$paths" "catalogue          /usr/share/isotier/catalogue/providers  (installed, present)" "paths"
assert_contains "$paths" "probe              /usr/bin/isotier-probe" "paths"
assert_contains "$paths" "guest init         /usr/libexec/isotier/isotier-guest-init  (installed, present)" "paths"
assert_contains "$paths" "guest kernel       /usr/lib/isotier/guest  (installed, present)" "paths"
assert_contains "$paths" "guest kernel arm64 /usr/lib/isotier/guest-arm64  (installed, present)" "paths"
assert_contains "$paths" "history            /var/lib/isotier/isotier.db" "paths"
# The documented fetch fills the directories isotier reads: with the kernels in place it has
# nothing to do (offline, a fetch would fail).
for f in guest-kernel.sh guest-kernel-arm64.sh; do
  in_root "/usr/libexec/isotier/$f" >"$TMP/gk.out" 2>&1 ||
    fail "/usr/libexec/isotier/$f does not find the installed kernel: $(tail -5 "$TMP/gk.out")"
done
in_root /usr/bin/isotier catalogue check >"$TMP/cat.out" 2>&1 || fail "installed catalogue check: $(tail "$TMP/cat.out")"
in_root /usr/bin/isotier-probe --version | grep -qx 'isotier-probe [0-9.]*' || fail "isotier-probe --version"
# Every local backend the installed isotier knows (host aside: it has no claim here).
in_root /usr/bin/isotier backends --json >"$TMP/backends.json" || fail "isotier backends --json"
mapfile -t local_backends < <(python3 -c 'import json, sys
for b in json.load(open(sys.argv[1])):
    if not b["remote"] and b["backend"] != "host":
        print(b["backend"])' "$TMP/backends.json")
[ ${#local_backends[@]} -ge 11 ] || fail "fewer local backends than the 11 documented: ${local_backends[*]}"

# --- clean: the package defaults, exit 0, every local backend CONFIRMED ----
job
assert_eq "$rc" 0 "a clean run of the installed job with the package defaults ($err; $(last_verify | head -40))"
table=$(last_verify)
for b in "${local_backends[@]}"; do
  grep -qE "^$b +[A-Z]+ \([a-z-]+\) +[A-Z]+ \([a-z-]+\) +CONFIRMED " <<<"$table" ||
    fail "$b not CONFIRMED: $(grep -E "^$b( |: )" <<<"$table" | head -3)"
done
# host: no catalogue entry describes this machine (ISOTIER_HOST_PROVIDER unset): recorded,
# not judged, and not an alert.
grep -qE '^host +- +[A-Z]+ \([a-z-]+\) +INCONCLUSIVE ' <<<"$table" || fail "host row: $(grep '^host' <<<"$table")"
assert_contains "$table" "host: no claim (pass --host-provider)" "the host's reason"
[ -s "$root$state_dir/isotier.db" ] || fail "no history at $state_dir/isotier.db"
[ -s "$root$state_dir/reports/isotier-report.html" ] || fail "no HTML report"
assert_contains "$err" "WARN sources not checked: no source reachable" "offline sources: a warning"
assert_contains "$(cat "$root$state_dir/last-run.json")" '"exit":0,"verify":0' "last-run.json"

# --- the Python package, as installed ------------------------------------------
# Debian's python3 finds it in dist-packages; it loads the installed libisotier.so.0 (the soname:
# no build tree is reachable) and catalogue, and reads the job's history.
py_out=$(in_root /usr/bin/python3 -c '
import isotier
from isotier import Tier
assert isotier.__file__ == "/usr/lib/python3/dist-packages/isotier/__init__.py", isotier.__file__
assert isotier.library_path() == "libisotier.so.0" and isotier.cli_path() == "/usr/bin/isotier"
grant = isotier.require("bwrap", Tier.CONTAINER)
assert grant.attested and grant.record is not None, grant
assert (grant.record.requested, grant.record.effective) == (Tier.CONTAINER, Tier.CONTAINER), grant.record
try:
    isotier.require("bwrap", Tier.MICROVM, attest=False)
except isotier.RefusedError as e:
    refusal = e.record
    assert refusal is not None and (refusal.requested, refusal.effective) == (Tier.MICROVM, Tier.CONTAINER), e.audit
else:
    raise SystemExit("bwrap granted MICROVM")
print("python3-isotier", isotier.version(), "granted", grant.tier.name, "refused", refusal.requested.name)
' 2>&1) || fail "python3-isotier in the package root: $py_out"
assert_contains "$py_out" "python3-isotier $(dpkg-deb -f "$py_deb" Version) granted CONTAINER refused MICROVM" "the installed Python package"

# --- drift: a claim made wrong (bubblewrap claimed a microVM) ---------------
# bwrap alone: the other backends' verdicts were shown above and do not change with this claim.
EXTRA_ENV=(ISOTIER_BACKENDS=bwrap)
claim=$root/usr/share/isotier/catalogue/providers/bubblewrap.json
cp "$claim" "$TMP/bubblewrap.json"
python3 - "$claim" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tier"], d["mechanism"] = "MICROVM", "firecracker"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
job
EXTRA_ENV=()
cp "$TMP/bubblewrap.json" "$claim"
assert_eq "$rc" 1 "drift ($err)"
assert_contains "$first" "isotier-reverify: ALERT contradicted bubblewrap (bwrap)" "drift's first line"
# The offline sources check is not retried on every run.
grep -q 'sources: skipped, last check within' "$log" || fail "the sources check ran again: $(tail -5 "$log")"

# --- an unavailable backend: the guest kernel not fetched -------------------
# With the package defaults (verify --all, which passes over it: the job does not), and named
# in ISOTIER_BACKENDS (verify itself exits 69).
mv "$root/usr/lib/isotier/guest" "$TMP/guest.aside"
job
unavail_default=("$rc" "$first" "$err")
EXTRA_ENV=("ISOTIER_BACKENDS=bwrap,qemu-microvm")
job
EXTRA_ENV=()
mv "$TMP/guest.aside" "$root/usr/lib/isotier/guest"
assert_eq "${unavail_default[0]}" 69 "an unavailable backend, package defaults (${unavail_default[2]})"
assert_contains "${unavail_default[1]}" "isotier-reverify: verify --all: qemu-microvm: backend unavailable: no guest kernel in /usr/lib/isotier/guest" "unavailable's first line, package defaults"
assert_contains "${unavail_default[1]}" "ISOTIER_GUEST_DIR" "the missing guest kernel names its setting"
assert_eq "$rc" 69 "an unavailable backend named in ISOTIER_BACKENDS ($err)"
assert_contains "$first" "isotier-reverify: verify exit 69: qemu-microvm: backend unavailable:" "unavailable's first line"
assert_contains "$first" "ISOTIER_GUEST_DIR" "the missing guest kernel names its setting"

# --- a typo in the backend list --------------------------------------------
EXTRA_ENV=("ISOTIER_BACKENDS=bwrap,runcc")
job
assert_eq "$rc" 64 "a misspelt backend ($err)"
assert_contains "$first" "unknown backend 'runcc' (did you mean 'runc'?)" "typo's first line"

# --- a read-only state directory (and history) --------------------------------
EXTRA_ENV=() ROOT_EXTRA=(--ro-bind "$root$state_dir" "$state_dir")
job
ROOT_EXTRA=()
assert_eq "$rc" 73 "a read-only state directory ($err)"
assert_contains "$first" "state directory $state_dir is not writable: Read-only file system" "read-only's first line"

# --- sources unreachable for longer than the policy: an alert (2), retried once
# (bwrap alone: this case is about the sources)
EXTRA_ENV=(ISOTIER_BACKENDS=bwrap)
st=$root$state_dir
touch -d '40 days ago' "$st/.sources-due" "$st/.sources-attempted"
job
assert_eq "$rc" 2 "sources unchecked for 40 days ($err)"
assert_contains "$first" "isotier-reverify: ALERT sources unchecked for more than 30 days" "unchecked sources' first line"
[ -n "$(find "$st/.sources-attempted" -mmin -5)" ] || fail "the overdue sources check was not attempted again"
rm "$st/.sources-due"  # as a completed check would

# --- and clean again: the history recovers ----------------------------------
# The backends the failures above touched (the drifted claim, the missing kernel); the package
# defaults' clean run is the first case.
EXTRA_ENV=("ISOTIER_BACKENDS=bwrap,qemu-microvm")
job
EXTRA_ENV=()
assert_eq "$rc" 0 "clean after the failures ($err)"
table=$(last_verify)
for b in bwrap qemu-microvm; do
  grep -qE "^$b +.* CONFIRMED " <<<"$table" || fail "$b not CONFIRMED again: $(grep -E "^$b( |: )" <<<"$table" | head -3)"
done
echo "deb: package built and unpacked into its own root; job 0 clean with the package defaults" \
  "(${#local_backends[@]} local backends CONFIRMED: ${local_backends[*]}; host INCONCLUSIVE, no claim;" \
  "python3-isotier granted and refused against the installed library;" \
  "offline sources a warning), 1 drift, 69 unavailable, 64 typo, 73 read-only state, 2 sources" \
  "unchecked, each named first"
