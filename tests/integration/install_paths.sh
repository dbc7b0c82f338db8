#!/usr/bin/env bash
# isotier-test: fast; uses: make-build
# SPDX-License-Identifier: Apache-2.0
# install_paths.sh - an installed isotier is self-contained: `make install` into a temporary
# prefix, then the installed CLI, called through PATH from a directory that holds a decoy
# catalogue/, with this checkout still present, uses only the prefix's files (`isotier paths`
# says which); the catalogue there holds providers only (the schemas are in share/isotier/schemas)
# and checks clean; a non-provider JSON file among providers is one error naming the file; the
# qemu backends name ISOTIER_GUEST_DIR and the installed fetcher when no guest kernel is there.
# And the CLI's consistency: -h exits 0 everywhere, `help help` too, both binaries have
# --version, an unknown --backend is refused by report with its suggestion, the man pages see
# each other, and a remote backend without credentials is "not configured" in the report,
# never overdue.
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
prefix=$TMP/prefix
make -C "$R" --no-print-directory -s install BUILD="$BUILD" PREFIX="$prefix" >"$TMP/install.log" 2>&1 ||
  fail "make install: $(tail -20 "$TMP/install.log")"

# --- where the installed CLI looks ------------------------------------------
ls "$prefix/share/isotier/catalogue/providers" | grep -q schema && fail "a schema installed among the providers"
for f in schemas/provider.schema.json schemas/report.schema.json runbook/jobs.md runbook/jobs/isotier-reverify.service; do
  [ -e "$prefix/share/isotier/$f" ] || fail "not installed: share/isotier/$f"
done
[ -x "$prefix/libexec/isotier/isotier-reverify" ] || fail "the job is not installed in libexec/isotier"
grep -qx "ExecStart=$prefix/libexec/isotier/isotier-reverify" "$prefix/share/isotier/runbook/jobs/isotier-reverify.service" ||
  fail "the installed unit does not run the installed job: $(grep ExecStart "$prefix/share/isotier/runbook/jobs/isotier-reverify.service")"
mkdir -p "$TMP/cwd/catalogue/providers"
echo '{"not": "a provider"}' >"$TMP/cwd/catalogue/providers/decoy.json"
run() { (cd "$TMP/cwd" && env -u ISOTIER_CATALOGUE -u ISOTIER_CATALOGUE_OVERLAY -u ISOTIER_PROBE -u ISOTIER_GUEST_DIR -u ISOTIER_GUEST_INIT \
  PATH="$prefix/bin:$PATH" "$@"); }
paths=$(run isotier paths) || fail "isotier paths: $paths"
assert_contains "$paths" "catalogue          $prefix/share/isotier/catalogue/providers  (installed, present)" "catalogue"
assert_contains "$paths" "probe              $prefix/bin/isotier-probe" "probe"
assert_contains "$paths" "guest init         $prefix/libexec/isotier/isotier-guest-init  (installed, present)" "guest init"
assert_contains "$paths" "guest kernel       $prefix/lib/isotier/guest" "guest kernel"
assert_contains "$paths" "schemas            $prefix/share/isotier/schemas  (installed, present)" "schemas"
grep -qF "$R/" <<<"$paths" && fail "the installed CLI names the build tree: $paths"
# The operator's directory overlays the packaged catalogue; the sources
# baseline is kept in the state directory, never in the package's files.
assert_contains "$paths" "catalogue overlay  /etc/isotier/catalogue.d" "the operator overlay"
baseline=$(grep '^sources baseline' <<<"$paths") || fail "no sources baseline in: $paths"
grep -qF "$prefix/" <<<"$baseline" && fail "the baseline would be written into the package: $baseline"
assert_contains "$baseline" "/sources.lock.json  (the state directory" "the baseline's place"
# The strings whole first: a grep -q that stops at a match must not turn it into a pipe error.
bin_strings=$(strings "$prefix/bin/isotier" | grep -v '^/.*\.c$')
grep -qF "$R/catalogue" <<<"$bin_strings" && fail "the build tree's catalogue is compiled in"
out=$(run isotier catalogue check 2>&1) || fail "installed catalogue check: $out"
assert_contains "$out" "$prefix/share/isotier/catalogue/providers" "catalogue check reads the installed catalogue"
help=$(run isotier catalogue check --help)
assert_contains "$help" "$prefix/share/isotier/catalogue/providers" "--help names the installed default"

# A non-provider JSON file among providers: one error, naming the file.
mkdir -p "$TMP/cat"
cp "$prefix/share/isotier/catalogue/providers/runc.json" "$prefix/share/isotier/schemas/provider.schema.json" "$TMP/cat/"
rc=0; out=$(run isotier catalogue check --catalogue "$TMP/cat" 2>&1) || rc=$?
assert_eq "$rc" 65 "a schema among providers"
assert_eq "$(grep -c 'provider.schema.json' <<<"$out")" 1 "the schema named once: $out"
assert_contains "$out" "provider.schema.json: error: not a provider file" "the error says what is wrong"

# No guest kernel installed: the reason names the setting and the installed fetcher.
if command -v qemu-system-x86_64 >/dev/null; then
  why=$(run isotier backends --json | python3 -c 'import json,sys
print([b for b in json.load(sys.stdin) if b["backend"] == "qemu-microvm"][0]["unavailable_reason"])')
  assert_contains "$why" "no guest kernel in $prefix/lib/isotier/guest" "qemu-microvm's reason"
  assert_contains "$why" "ISOTIER_GUEST_DIR" "qemu-microvm's reason names the setting"
  assert_contains "$why" "$prefix/libexec/isotier/guest-kernel.sh" "qemu-microvm's reason names the fetcher"
fi

# --- a consistent CLI ---------------------------------------------------------
for c in verify history catalogue sources backends run churn report paths; do
  run isotier "$c" -h >/dev/null 2>&1 || fail "isotier $c -h exits $?"
  run isotier "$c" --help >/dev/null 2>&1 || fail "isotier $c --help exits $?"
done
run isotier help help >/dev/null 2>&1 || fail "isotier help help exits $?"
run isotier-probe --version | grep -qx 'isotier-probe [0-9][0-9.]*' || fail "isotier-probe --version"
run isotier --version | grep -qx 'isotier [0-9][0-9.]*' || fail "isotier --version"
rc=0; out=$(run isotier report --db "$TMP/none.db" --format text --backend runcc 2>&1) || rc=$?
assert_eq "$rc" 64 "report --backend runcc"
assert_contains "$out" "unknown backend 'runcc' (did you mean 'runc'?)" "report's suggestion"
man=$prefix/share/man
[ -s "$man/man3/libisotier.3" ] || fail "no libisotier(3)"
grep -q 'isotier-verify(1)' "$man/man1/isotier-report.1" || fail "isotier-report(1) does not see isotier-verify(1)"
grep -q 'libisotier(3)' "$man/man1/isotier.1" || fail "isotier(1) does not see libisotier(3)"
grep -rqF "$R/" "$man" && fail "a man page names the build tree"

# --- a remote backend without credentials: not configured, never overdue ------
command -v bwrap >/dev/null || skip "bubblewrap is not installed: nothing to verify for the report part"
db=$TMP/h.db
run env -u E2B_API_KEY -u DAYTONA_API_KEY -u FLY_API_TOKEN -u VERCEL_TOKEN \
  isotier verify --backend bwrap --db "$db" >"$TMP/verify.out" 2>&1 || fail "verify bwrap: $(cat "$TMP/verify.out")"
run env -u E2B_API_KEY -u DAYTONA_API_KEY -u FLY_API_TOKEN -u VERCEL_TOKEN \
  isotier report --db "$db" --format json --out "$TMP/r.json" || fail "report json"
python3 - "$TMP/r.json" <<'EOF' || fail "not configured vs overdue"
import json, sys
d = json.load(open(sys.argv[1]))
att = d["attention"]
nc = sorted(a["subject"] for a in att if a["kind"] == "not_configured")
assert nc == ["daytona", "e2b", "fly", "vercel"], nc
assert all(not a["failing"] for a in att if a["kind"] == "not_configured"), att
over = [a["subject"] for a in att if a["kind"] == "overdue"]
assert not any(r in s for s in over for r in ("e2b", "daytona", "fly", "vercel")), over
EOF
echo "install: self-contained prefix (paths, catalogue, guest kernel reason), -h/--version consistent, not configured is a note"
