#!/usr/bin/env bash
# deb_install.sh - the Debian package as an operator meets it. `make deb` builds it with
# dpkg-deb; it is unpacked with `dpkg -x` into a root this test owns (a temp directory: a
# debootstrap'd root needs a full Debian mirror, and only the package registry is reachable
# here, so the root holds the package and, read-only, the host's libraries and tools the
# package depends on). Nothing of the checkout is in that root: the build outputs are out of
# reach. The job unit's ExecStart runs there under bwrap (its own mount namespace, no network:
# an offline host), with the unit's environment (StateDirectory, /etc/default/isotier) and the
# package's defaults, as systemd would run it. Then:
#   clean (ISOTIER_BACKENDS=bwrap,runc)  exit 0, both CONFIRMED, sources unreachable a warning
#   a claim made wrong                   exit 1, first line: the contradicted backend
#   an unavailable backend               exit 69, first line: the backend and why
#   a typo in ISOTIER_BACKENDS           exit 64, first line: the name and its suggestion
#   a read-only state directory          exit 73, first line: the directory and why
#   sources unreachable for 40 days      exit 2, first line: the unchecked sources
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
command -v dpkg-deb >/dev/null || skip "dpkg-deb is not installed: make deb needs Debian's dpkg"
command -v dpkg-shlibdeps >/dev/null || skip "dpkg-shlibdeps (dpkg-dev) is not installed: scripts/deps.sh installs it"
command -v bwrap >/dev/null || skip "bubblewrap is not installed: the package root runs under it"
command -v runc >/dev/null || skip "runc is not installed: the job's backends are bwrap and runc"
[ "$(id -u)" = 0 ] || skip "not root: the job's runc backend needs root"

# --- the package ------------------------------------------------------------
make -C "$R" --no-print-directory -s BUILD="$BUILD" OUT="$TMP" deb >"$TMP/deb.log" 2>&1 ||
  fail "make deb: $(tail -20 "$TMP/deb.log")"
deb=$(ls "$TMP"/isotier_*.deb) || fail "make deb wrote no .deb: $(tail "$TMP/deb.log")"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libcurl4 libsqlite3-0 libcjson1; do assert_contains "$depends" "$lib" "Depends"; done
assert_eq "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" /etc/default/isotier "conffiles"
listing=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in usr/bin/isotier usr/bin/isotier-probe usr/libexec/isotier/isotier-guest-init \
         usr/libexec/isotier/isotier-reverify usr/libexec/isotier/guest-kernel.sh \
         usr/lib/libisotier.so.0 usr/lib/libisotier.a usr/include/isotier.h usr/lib/pkgconfig/isotier.pc \
         usr/share/man/man1/isotier.1.gz usr/share/man/man1/isotier-paths.1.gz \
         usr/share/man/man1/isotier-probe.1.gz usr/share/man/man3/libisotier.3.gz \
         usr/share/isotier/catalogue/providers/runc.json usr/share/isotier/schemas/provider.schema.json \
         usr/share/isotier/schemas/report.schema.json usr/share/isotier/runbook/jobs.md \
         lib/systemd/system/isotier-reverify.service lib/systemd/system/isotier-reverify.timer \
         etc/default/isotier var/lib/isotier/; do
  grep -qxF "./$f" <<<"$listing" || fail "the package lacks /$f"
done
# The catalogue holds providers only: a schema there would be read as one.
grep -q '^./usr/share/isotier/catalogue/providers/.*schema' <<<"$listing" && fail "a schema among the providers"

root=$TMP/root
dpkg -x "$deb" "$root"
# Nothing in the package names the build tree (binaries, man pages, units, pkg-config).
{ grep -rlF "$R/" "$root"; zgrep -lF "$R/" "$root"/usr/share/man/man*/*; } >"$TMP/leaks" 2>/dev/null || true
[ ! -s "$TMP/leaks" ] || fail "the package names the build tree $R: $(cat "$TMP/leaks")"

# --- the root and the unit's command ---------------------------------------
unit=$root/lib/systemd/system/isotier-reverify.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
state_dir=/var/lib/$(sed -n 's/^StateDirectory=//p' "$unit")
assert_eq "$exec_start" /usr/libexec/isotier/isotier-reverify "the unit's ExecStart"
grep -qx 'EnvironmentFile=-/etc/default/isotier' "$unit" || fail "the unit does not read /etc/default/isotier"
# The operator's one edit: the backends this host runs.
echo 'ISOTIER_BACKENDS=bwrap,runc' >>"$root/etc/default/isotier"
awk_bin=$(readlink -f "$(command -v awk)")

# in_root CMD...: CMD in the package root, as the unit runs it: the environment is the unit's
# (StateDirectory -> $STATE_DIRECTORY, Environment=, /etc/default/isotier), nothing else. The
# host's libraries and tools (the package's Depends and Recommends) are bound read-only; the
# checkout is not there at all.
in_root() {
  local env=(PATH=/usr/sbin:/usr/bin:/sbin:/bin "STATE_DIRECTORY=$state_dir")
  while IFS= read -r l; do env+=("$l"); done < <(sed -n 's/^Environment=//p' "$unit")
  while IFS= read -r l; do env+=("$l"); done < <(grep -E '^[A-Z_][A-Z0-9_]*=' "$root/etc/default/isotier")
  env+=("${EXTRA_ENV[@]}")
  timeout --kill-after=10 600 bwrap --bind "$root" / \
    --ro-bind /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu \
    --ro-bind /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu --ro-bind /usr/lib64 /lib64 \
    --ro-bind /usr/bin /bin --ro-bind /usr/sbin /sbin --ro-bind /usr/bin/env /usr/bin/env \
    --ro-bind "$awk_bin" "$awk_bin" --ro-bind /etc/alternatives /etc/alternatives \
    --ro-bind /etc/passwd /etc/passwd --ro-bind /etc/group /etc/group \
    --ro-bind /etc/ld.so.cache /etc/ld.so.cache \
    --bind /proc /proc --dev-bind /dev /dev --bind /sys /sys --tmpfs /run --tmpfs /tmp \
    --unshare-net --cap-add ALL --chdir / "${BWRAP_EXTRA[@]}" \
    -- /usr/bin/env -i "${env[@]}" "$@"
}
EXTRA_ENV=() BWRAP_EXTRA=()
job() { # job: runs the unit's command; $rc, $first (its first line), $err (all of stderr)
  rc=0
  in_root "$exec_start" 2>"$TMP/job.err" >/dev/null || rc=$?
  err=$(cat "$TMP/job.err")
  first=$(head -n1 "$TMP/job.err")
}

in_root /bin/sh -c "test ! -e '$R' && test ! -e '$R/$BUILD/isotier'" || fail "the checkout is reachable from the root"
paths=$(in_root /usr/bin/isotier paths) || fail "isotier paths: $paths"
assert_contains "$paths" "catalogue          /usr/share/isotier/catalogue/providers  (installed, present)" "paths"
assert_contains "$paths" "probe              /usr/bin/isotier-probe" "paths"
assert_contains "$paths" "guest init         /usr/libexec/isotier/isotier-guest-init  (installed, present)" "paths"
assert_contains "$paths" "history            /var/lib/isotier/isotier.db" "paths"
in_root /usr/bin/isotier catalogue check >"$TMP/cat.out" 2>&1 || fail "installed catalogue check: $(tail "$TMP/cat.out")"
in_root /usr/bin/isotier-probe --version | grep -qx 'isotier-probe [0-9.]*' || fail "isotier-probe --version"

# --- clean: exit 0, local backends CONFIRMED, offline sources a warning ----
job
assert_eq "$rc" 0 "a clean run of the installed job ($err)"
log=$root$state_dir/job.log
grep -qE '^bwrap +CONTAINER \(bubblewrap\) +CONTAINER \(bubblewrap\) +CONFIRMED' "$log" || fail "bwrap not CONFIRMED: $(head -20 "$log")"
grep -qE '^runc +CONTAINER \(runc\) +CONTAINER \(runc\) +CONFIRMED' "$log" || fail "runc not CONFIRMED: $(head -20 "$log")"
[ -s "$root$state_dir/isotier.db" ] || fail "no history at $state_dir/isotier.db"
[ -s "$root$state_dir/reports/isotier-report.html" ] || fail "no HTML report"
assert_contains "$err" "WARN sources not checked: no source reachable" "offline sources: a warning"
assert_contains "$(cat "$root$state_dir/last-run.json")" '"exit":0' "last-run.json"

# --- drift: a claim made wrong (bubblewrap claimed a microVM) ---------------
claim=$root/usr/share/isotier/catalogue/providers/bubblewrap.json
cp "$claim" "$TMP/bubblewrap.json"
python3 - "$claim" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tier"], d["mechanism"] = "MICROVM", "firecracker"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
job
cp "$TMP/bubblewrap.json" "$claim"
assert_eq "$rc" 1 "drift ($err)"
assert_contains "$first" "isotier-reverify: ALERT contradicted bubblewrap (bwrap)" "drift's first line"
# The offline sources check is not retried on every run.
grep -q 'sources: skipped, last check within' "$log" || fail "the sources check ran again: $(tail -5 "$log")"

# --- an unavailable backend (no guest kernel is installed) -----------------
EXTRA_ENV=(ISOTIER_BACKENDS=bwrap,qemu-microvm)
job
assert_eq "$rc" 69 "an unavailable backend ($err)"
assert_contains "$first" "isotier-reverify: verify exit 69: qemu-microvm: backend unavailable:" "unavailable's first line"
if command -v qemu-system-x86_64 >/dev/null; then
  assert_contains "$first" "ISOTIER_GUEST_DIR" "the missing guest kernel names its setting"
fi

# --- a typo in the backend list --------------------------------------------
EXTRA_ENV=(ISOTIER_BACKENDS=bwrap,runcc)
job
assert_eq "$rc" 64 "a misspelt backend ($err)"
assert_contains "$first" "unknown backend 'runcc' (did you mean 'runc'?)" "typo's first line"

# --- a read-only state directory (and history) --------------------------------
BWRAP_EXTRA=(--ro-bind "$root$state_dir" "$state_dir")
job
BWRAP_EXTRA=()
assert_eq "$rc" 73 "a read-only state directory ($err)"
assert_contains "$first" "state directory $state_dir is not writable: Read-only file system" "read-only's first line"

# --- sources unreachable for longer than the policy: an alert (2), retried once
EXTRA_ENV=()
st=$root$state_dir
touch -d '40 days ago' "$st/.sources-due" "$st/.sources-attempted"
job
assert_eq "$rc" 2 "sources unchecked for 40 days ($err)"
assert_contains "$first" "isotier-reverify: ALERT sources unchecked for more than 30 days" "unchecked sources' first line"
[ -n "$(find "$st/.sources-attempted" -mmin -5)" ] || fail "the overdue sources check was not attempted again"
rm "$st/.sources-due"  # as a completed check would

# --- and clean again: the history recovers, nothing left over --------------
job
assert_eq "$rc" 0 "clean after the failures ($err)"
echo "deb: package built and unpacked into its own root; job 0 clean (bwrap, runc CONFIRMED, offline sources a warning), 1 drift, 69 unavailable, 64 typo, 73 read-only state, each named first"
