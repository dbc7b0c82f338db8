#!/usr/bin/env bash
# isotier-test: normal; uses: make-build
# SPDX-License-Identifier: Apache-2.0
# runbook_pages.sh - the runbook's fleet, release and adding-a-provider pages as an operator
# follows them on an installed isotier. Every block fenced as ```sh runbook-test in
# runbook/fleet.md, runbook/release-gate.md and runbook/adding-a-provider.md is run as written
# (HACKING.md: runbook pages), each page's blocks in order in one bash with `set -euo
# pipefail`: a command that fails fails the test, naming the page and its line. The pages run
# against `make install DESTDIR=... PREFIX=/usr` laid over this host's system in a private mount
# namespace (unshare -m): /usr, /etc and /var are overlays whose writes land in this test's
# directory (the host is never written), /var/lib/isotier is a new, empty state directory, the
# checkout is hidden under a tmpfs, `isotier` is /usr/bin/isotier on PATH, and the environment
# is a clean one (env -i). What the test provides is what the pages say the operator has:
#   fleet.md           a PostgreSQL server (tests/pg.sh) with a superuser `postgres` and no
#                      database isotier yet, reached through libpq's PGHOST and PGPORT (the only
#                      connection the page leaves to the environment); this host's own history
#                      in /var/lib/isotier/isotier.db from before it joined the fleet
#   release-gate.md    a catalogue repository (git, a CHURN.md, a CHANGELOG.md with its
#                      `## [Unreleased]`): once with no release tag at all (the first release),
#                      once with a previous tag and a logged tier change since
#   adding-a-provider  nothing: the installed package and its /etc
# Then what each page promised is checked from outside (the server's rows, the repository's
# tags and changelog, the report).
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/pg.sh"
R=$ISOTIER_ROOT
case $BUILD in /*) build_dir=$BUILD ;; *) build_dir=$R/$BUILD ;; esac
[ "$(id -u)" = 0 ] || skip "not root: the installed root is a private mount namespace with overlays"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
  skip "the kernel has no overlayfs: the installed root is an overlay of the host's system"
[[ $(cat /etc/machine-id 2>/dev/null) =~ ^[0-9a-f]{32}$ ]] || skip "no /etc/machine-id: fleet.md maps each runner host by it"
for c in git psql; do command -v "$c" >/dev/null || skip "$c is not installed (scripts/deps.sh installs it)"; done

# --- the runnable blocks ----------------------------------------------------------
# blocks PAGE: the page's ```sh runbook-test blocks as one script whose line N is the page's
# line N (every other line blank), so an error names the page's own line.
blocks() {
  awk -v page="$1" '
    /^```sh runbook-test[[:space:]]*$/ { if (on) { print page ":" NR ": a block inside a block" > "/dev/stderr"; exit 2 }
                                          on = 1; n++; print ""; next }
    on && /^```[[:space:]]*$/ { on = 0; print ""; next }
    { print (on ? $0 : "") }
    END { if (on) { print page ": a block is not closed" > "/dev/stderr"; exit 2 }
          if (!n) { print page ": no ```sh runbook-test block" > "/dev/stderr"; exit 3 } }' "$R/$1"
}
for page in runbook/fleet.md runbook/release-gate.md runbook/adding-a-provider.md; do
  blocks "$page" >"$TMP/$(basename "$page" .md).sh" || fail "$page: its runnable blocks cannot be read"
done
# The extractor itself: a page without a block, or with one left open, is an error, never an
# empty (passing) script.
# shellcheck disable=SC2016
printf '# nothing\n```sh\nfalse\n```\n' >"$TMP/none.md"
(R=$TMP blocks none.md) >/dev/null 2>&1 && fail "a page without a runbook-test block was accepted"
printf '```sh runbook-test\ntrue\n' >"$TMP/open.md"
(R=$TMP blocks open.md) >/dev/null 2>&1 && fail "a block left open was accepted"

# --- the installed root -------------------------------------------------------------
root=$TMP/root up=$TMP/up
make -C "$R" --no-print-directory -s install BUILD="$BUILD" DESTDIR="$root" PREFIX=/usr \
  >"$TMP/install.log" 2>&1 || fail "make install: $(tail -20 "$TMP/install.log")"
mkdir -p "$root/etc" "$root/var" "$TMP/state" "$TMP/home"
chmod 0755 "$TMP" # the PostgreSQL server (user nobody) reaches its directory through it
# The checkout and its build are hidden (the test's own directory is in /tmp, outside both).
hide=("$R")
case $build_dir/ in "$R"/*) ;; *) hide+=("$build_dir") ;; esac
# in_root DIR [VAR=value...] -- SCRIPT: SCRIPT run by bash in DIR inside the root, with a clean
# environment plus the VARs.
in_root() {
  local dir=$1 env=()
  shift
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  # shellcheck disable=SC2016
  timeout --kill-after=10 300 unshare --mount --propagation private -- bash -euc '
    root=$1 up=$2 state=$3 hide=$4
    shift 4
    for d in usr etc var; do
      mkdir -p "$up/$d" "$up/.work-$d"
      mount -t overlay "isotier-runbook-$d" \
        -o "lowerdir=$root/$d:/$d,upperdir=$up/$d,workdir=$up/.work-$d" "/$d"
    done
    mkdir -p /var/lib/isotier # (in the overlay when the host has none)
    mount --bind "$state" /var/lib/isotier
    for h in $hide; do mount -t tmpfs isotier-hidden "$h"; done
    exec "$@"' bash "$root" "$up" "$TMP/state" "${hide[*]}" \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$TMP/home" \
    LANG=C.UTF-8 TZ=UTC "${env[@]}" \
    bash -c 'cd "$1" && shift && exec "$@"' bash "$dir" "$@"
}
# page NAME DIR [VAR=value...]: the page's blocks in DIR; a failure shows the page's line.
page() {
  local name=$1 dir=$2 rc=0
  shift 2
  mkdir -p "$dir"
  # (PS4 is set inside: bash does not take it from a root's environment)
  # shellcheck disable=SC2016
  in_root "$dir" "$@" -- bash -c 'PS4="+ runbook/$1.md:\$LINENO: "; set -euo pipefail -x; source "$2"' \
    bash "$name" "$TMP/$name.sh" >"$TMP/$name.out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || fail "runbook/$name.md, run as written on an installed isotier, exits $rc after" \
    "$(grep -E '^\+\++ runbook/' "$TMP/$name.out" | tail -n 1 | sed 's/^+*//'): $(tail -25 "$TMP/$name.out")"
}

# shellcheck disable=SC2016
in_root "$TMP" -- sh -c '[ "$(command -v isotier)" = /usr/bin/isotier ] && [ ! -e "$0/Makefile" ] && [ -z "$(ls -A /var/lib/isotier)" ]' "$R" ||
  fail "the root: isotier is not /usr/bin/isotier, the checkout is reachable or the state directory is not new"
paths=$(in_root "$TMP" -- isotier paths) || fail "isotier paths in the root: $paths"
assert_contains "$paths" "catalogue          /usr/share/isotier/catalogue/providers  (installed, present)" "the installed catalogue"
assert_contains "$paths" "history            /var/lib/isotier/isotier.db" "the installed history"

# --- fleet.md: a real PostgreSQL server ---------------------------------------------
trap 'pg_stop; rm -rf "$TMP"' EXIT
rc=0
pg_start "$TMP" || rc=$?
[ "$rc" = 77 ] && skip "no PostgreSQL server binaries (apt-get install postgresql)"
[ "$rc" = 0 ] || fail "could not start a PostgreSQL server"
# The page creates the database; a Debian server's superuser is `postgres`.
pg_psql postgres "DROP DATABASE isotier" >/dev/null
pg_psql postgres "CREATE ROLE postgres SUPERUSER LOGIN" >/dev/null
# This host's own history from before it joined (what the page's migrate moves).
in_root "$TMP" -- isotier verify --backend host >"$TMP/before.out" 2>&1 || fail "the host's own history: $(cat "$TMP/before.out")"
page fleet "$TMP/fleet" "PGHOST=$PG_SOCKDIR" "PGPORT=$PG_PORT"
machine=$(cat /etc/machine-id)
assert_eq "$(pg_sql "SELECT count(*) FROM isotier_hosts WHERE host_id = '$machine' AND role LIKE 'isotier\_runner\_%'")" 1 "history init mapped this runner host's role"
assert_eq "$(pg_sql "SELECT tableowner FROM pg_tables WHERE tablename = 'observations'")" isotier_owner "the schema's owner"
assert_eq "$(pg_sql "SELECT relrowsecurity FROM pg_class WHERE relname = 'observations'")" t "row-level security on observations"
# The runner's own run (as its role) and the migrated one from the host's file.
assert_eq "$(pg_sql "SELECT count(*) FROM runs WHERE host_id = '$machine' AND command = 'verify'")" 1 "the runner's verify"
assert_eq "$(pg_sql "SELECT count(*) FROM runs WHERE host_id = '$machine' AND command = 'import'")" 1 "the migrated history"
role=$(cut -d= -f1 "$TMP/fleet/runners.txt")
[[ $role == isotier_runner_* ]] || fail "runners.txt: $(cat "$TMP/fleet/runners.txt")"
# The job's settings the page wrote, as the installed job's own parser reads them.
# shellcheck disable=SC2016
got=$(env -i bash -c 'eval "$(sed -n "/^read_defaults() {/,/^}/p" "$1")"; read_defaults "$2"; echo "$ISOTIER_DB $PGHOST $PGPORT"' \
  bash "$root/usr/libexec/isotier/isotier-reverify" "$up/etc/default/isotier") || fail "the job does not read the page's settings: $got"
assert_eq "$got" "postgresql://$role@/isotier $PG_SOCKDIR $PG_PORT" "the job's settings from fleet.md"
[ -s "$TMP/fleet/fleet.html" ] || fail "the auditor's report was not written"
[ -s "$(ls "$TMP"/fleet/history-*.jsonl)" ] || fail "the export is empty"
pg_stop

# --- release-gate.md: a catalogue repository ------------------------------------------
export GIT_AUTHOR_NAME=Maintainer GIT_AUTHOR_EMAIL=maintainer@example.org
export GIT_COMMITTER_NAME=Maintainer GIT_COMMITTER_EMAIL=maintainer@example.org
repo() { # repo DIR: a catalogue repository, one commit, its changelog's Unreleased section
  mkdir -p "$1/catalogue/providers"
  cp "$R/catalogue/providers/runc.json" "$R/catalogue/providers/bubblewrap.json" "$1/catalogue/providers/"
  sed -n '1,/^## Format/p' "$R/CHURN.md" | sed '$d' >"$1/CHURN.md"
  printf '# Changelog\n\n## [Unreleased]\n\n### Added\n- runc and bubblewrap.\n\n### Churn\n- None\n' >"$1/CHANGELOG.md"
  git -C "$1" init -q -b main && git -C "$1" add -A && git -C "$1" commit -qm "the catalogue"
}
# The first release: no tag at all.
repo "$TMP/first"
page release-gate "$TMP/first" "GIT_AUTHOR_NAME=$GIT_AUTHOR_NAME" "GIT_AUTHOR_EMAIL=$GIT_AUTHOR_EMAIL" \
  "GIT_COMMITTER_NAME=$GIT_COMMITTER_NAME" "GIT_COMMITTER_EMAIL=$GIT_COMMITTER_EMAIL"
tag=$(git -C "$TMP/first" tag --points-at HEAD)
[[ $tag =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "the first release is not tagged at HEAD: '$tag'"
grep -qx "## \[${tag#v}\] - $(date -u +%F)" "$TMP/first/CHANGELOG.md" || fail "the release's section: $(cat "$TMP/first/CHANGELOG.md")"
grep -qx '## \[Unreleased\]' "$TMP/first/CHANGELOG.md" || fail "no new Unreleased section"
[ -s "$TMP/first/churn-log.json" ] || fail "no churn log for auditors"
# A later release: a previous tag, then runc moved to gVisor (logged in CHURN.md and listed).
repo "$TMP/next"
git -C "$TMP/next" tag -a v0.0.1 -m "isotier 0.0.1"
python3 - "$TMP/next/catalogue/providers/runc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tier"], d["mechanism"] = "GVISOR", "gvisor"
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
entry="2026-12-01 — runc: CONTAINER/runc → GVISOR/gvisor"
printf '\n### %s\n- Source: https://example.org/runc\n- Note: A test fixture.\n' "$entry" >>"$TMP/next/CHURN.md"
sed -i "s|^- None\$|- $entry|" "$TMP/next/CHANGELOG.md"
git -C "$TMP/next" commit -qam "runc: gVisor"
page release-gate "$TMP/next" "GIT_AUTHOR_NAME=$GIT_AUTHOR_NAME" "GIT_AUTHOR_EMAIL=$GIT_AUTHOR_EMAIL" \
  "GIT_COMMITTER_NAME=$GIT_COMMITTER_NAME" "GIT_COMMITTER_EMAIL=$GIT_COMMITTER_EMAIL"
assert_eq "$(git -C "$TMP/next" tag --points-at HEAD)" "$tag" "the later release's tag"
python3 - "$TMP/next/churn-log.json" <<'PY' || fail "the auditors' churn log: $(head -c 600 "$TMP/next/churn-log.json")"
import json, sys
d = json.load(open(sys.argv[1]))
text = json.dumps(d)
assert "runc" in text and "GVISOR" in text, text[:300]
assert "bubblewrap" not in text, "the log reaches back past the previous release"
PY

# --- adding-a-provider.md: the operator's overlay -----------------------------------
page adding-a-provider "$TMP/provider"
added=$(ls "$up/etc/isotier/catalogue.d/"*.json) || fail "no entry in /etc/isotier/catalogue.d"
id=$(json_get "$added" id)
[ ! -e "$root/usr/share/isotier/catalogue/providers/$id.json" ] || fail "the page's example $id is already packaged"
[ ! -e "$up/usr/share/isotier/catalogue/providers/$id.json" ] || fail "the page wrote into the packaged catalogue"
grep -qF "$id" "$TMP/provider/report.md" || fail "the report does not show $id: $(head -40 "$TMP/provider/report.md")"
echo "runbook: fleet.md (history init as the owner, a runner's row, the auditor's report, migrate)," \
  "release-gate.md (a first release with no tag, a later one), adding-a-provider.md" \
  "(/etc/isotier/catalogue.d) run as written on an installed isotier"
