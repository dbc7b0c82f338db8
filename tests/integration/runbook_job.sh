#!/usr/bin/env bash
# isotier-test: normal; uses: challenge docker kvm nspawn podman vmm
# SPDX-License-Identifier: Apache-2.0
# runbook_job.sh - runs the runbook's scheduled job (runbook/jobs/isotier-reverify.sh)
# end to end on this machine, as the systemd unit and the cron line run it:
# real verify on real backends, `sources check` against a fixture catalogue
# whose sources are served by a real HTTP server on 127.0.0.1, reports into a
# state directory. Then checks what it leaves: the database kept across runs,
# the reports (HTML well-formed, JUnit schema-valid, JSON with the expected
# matrix), the log, and the exit status for drift (1), clean (0), a held lock
# (75) and the default `verify --all` over every backend.
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
JOB=$R/runbook/jobs/isotier-reverify.sh
[ -x "$ISOTIER_BIN" ] || fail "no $ISOTIER_BIN (build first)"
[ -x "$JOB" ] || fail "$JOB is not executable"
command -v xmllint >/dev/null || skip "xmllint (libxml2-utils) is not installed: scripts/deps.sh installs it"
command -v flock >/dev/null || fail "flock (util-linux) missing"
"$ISOTIER_BIN" verify --help >/dev/null 2>&1 || fail "isotier verify is not built in"
"$ISOTIER_BIN" sources check --help >/dev/null 2>&1 || fail "isotier sources check is not built in"
command -v bwrap >/dev/null || skip "bubblewrap is not installed: the job's verify step has nothing fast to run"

export ISOTIER_PROBE=${ISOTIER_PROBE:-$R/$BUILD/isotier-probe}
today=$(date -u +%F)

# --- the web pages the catalogue cites, served from 127.0.0.1 ---------------
mkdir -p "$TMP/www"
cat >"$TMP/www/bwrap.html" <<'EOF'
<html><body><main><p>Bubblewrap uses <em>user namespaces</em> to build the sandbox.</p></main></body></html>
EOF
cat >"$TMP/www/e2b.html" <<'EOF'
<html><body><p>Sandboxes are now powered by something else entirely.</p></body></html>
EOF
python3 "$R/tests/tools/fixture_server.py" --root "$TMP/www" --port-file "$TMP/port" --lifetime 600 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
[ -s "$TMP/port" ] || fail "fixture server did not start"
base="http://127.0.0.1:$(cat "$TMP/port")"

write_catalogue() { # write_catalogue DIR GONE_URL
  mkdir -p "$1"
  cat >"$1/bubblewrap.json" <<EOF
{"id": "bubblewrap", "name": "bubblewrap (bwrap)", "kind": "local", "tier": "CONTAINER",
 "mechanism": "bubblewrap", "since": "$today", "backend": "bwrap",
 "sources": [{"url": "$base/page/bwrap.html", "quote": "Bubblewrap uses user namespaces to build the sandbox.",
              "publisher": "provider", "retrieved": "$today", "title": "fixture"}],
 "history": [], "notes": "fixture"}
EOF
  cat >"$1/acme-vm.json" <<EOF
{"id": "acme-vm", "name": "Acme VM (no backend in this build: the host stands in)", "kind": "remote", "tier": "MICROVM", "mechanism": "firecracker",
 "since": "$today", "sources": [{"url": "$base/page/e2b.html", "quote": "Sandboxes are powered by Firecracker microVMs.",
 "publisher": "provider", "retrieved": "$today", "title": "fixture"}], "history": [], "notes": "fixture"}
EOF
  cat >"$1/gone.json" <<EOF
{"id": "gone", "name": "Gone Inc.", "kind": "remote", "tier": "UNKNOWN", "mechanism": "unknown",
 "since": "$today", "sources": [{"url": "$2", "quote": "whatever",
 "publisher": "third-party", "retrieved": "$today"}], "history": [], "notes": "fixture"}
EOF
}
write_catalogue "$TMP/cat" "$base/status/404"

state=$TMP/state
run_job() { # run_job ENV...: runs the job as the units do, sets $rc
  set +e
  env ISOTIER_BIN="$ISOTIER_BIN" ISOTIER_STATE_DIR="$state" ISOTIER_CATALOGUE="$TMP/cat" \
    ISOTIER_HOST_PROVIDER=acme-vm ISOTIER_REPORT_FORMATS="html junit json md" "$@" "$JOB" 2>"$TMP/job.err"
  rc=$?
  set -e
}
check_reports() {
  for f in html junit.xml json md; do
    [ -s "$state/reports/isotier-report.$f" ] || fail "no $f report"
  done
  xmllint --noout "$state/reports/isotier-report.html" || fail "HTML report is not well-formed"
  xmllint --noout --schema "$R/tests/fixtures/report/junit.xsd" "$state/reports/isotier-report.junit.xml" 2>/dev/null \
    || fail "JUnit report does not validate"
}

# --- run 1: bwrap + host verified, the acme-vm quote is gone, a source 404s -----
run_job ISOTIER_BACKENDS="bwrap host"
assert_eq "$rc" 1 "drift must exit 1 ($(cat "$TMP/job.err"))"
assert_contains "$(cat "$TMP/job.err")" "DRIFT"
# The summary names each drifted source and the command to look closer.
assert_contains "$(cat "$TMP/job.err")" "isotier-reverify: ALERT source_changed acme-vm: "
assert_contains "$(cat "$TMP/job.err")" "isotier-reverify:     look closer: isotier history --db $state/isotier.db --sources --provider acme-vm"
assert_contains "$(cat "$TMP/job.err")" "isotier-reverify: ALERT source_gone gone: "
assert_contains "$(cat "$state/job.log")" "summary: ALERT source_changed acme-vm: "
[ -s "$state/isotier.db" ] || fail "no database kept"
check_reports
python3 - "$state/reports/isotier-report.json" "$state/last-run.json" <<'EOF' || fail "run 1 report"
import json, sys
d, last = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rows = {(r["provider_id"], r["backend"]): r for r in d["matrix"]}
assert rows[("bubblewrap", "bwrap")]["verdict"] == "CONFIRMED", rows[("bubblewrap", "bwrap")]
assert rows[("bubblewrap", "bwrap")]["source_status"] == "PRESENT", rows[("bubblewrap", "bwrap")]
e2b = rows[("acme-vm", "host")]
assert e2b["verdict"] == "CONFIRMED" and e2b["observed_tier"] == "MICROVM", e2b
assert e2b["source_status"] == "CHANGED" and e2b["drifted"], e2b
assert rows[("gone", None)]["source_status"] == "GONE", rows[("gone", None)]
assert d["database"]["observations"] == 2 and d["database"]["source_checks"] == 3, d["database"]
assert last["exit"] == 1 and last["verify"] == 0 and last["sources"] == 1, last
assert d["report_date"] == d["newest_record"][:10]
EOF
junit=$(cat "$state/reports/isotier-report.junit.xml")
assert_contains "$junit" 'failures="2"' "JUnit: acme-vm CHANGED and gone GONE fail"
assert_contains "$(cat "$state/job.log")" "--- " "job log"
grep -q -- "verify --db $state/isotier.db --jobs 4 --catalogue $TMP/cat --backend bwrap --backend host --host-provider acme-vm" \
  "$state/job.log" || fail "verify ran with other arguments: $(grep 'verify:' "$state/job.log" | head -2)"

# --- run 2: the page is fixed, the dead source replaced; sources re-checked --
cat >"$TMP/www/e2b.html" <<'EOF'
<html><body><p>Sandboxes are powered by <b>Firecracker</b>   microVMs.</p></body></html>
EOF
cp "$TMP/www/bwrap.html" "$TMP/www/ok.html"
echo '<p>whatever</p>' >"$TMP/www/ok.html"
write_catalogue "$TMP/cat" "$base/page/ok.html"
run_job ISOTIER_BACKENDS="bwrap host" ISOTIER_SOURCES_EVERY_DAYS=0
assert_eq "$rc" 0 "clean run must exit 0 ($(cat "$TMP/job.err"); $(tail -5 "$state/job.log"))"
check_reports
python3 - "$state/reports/isotier-report.json" <<'EOF' || fail "run 2 report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["database"]["observations"] == 4, "the database was not kept: %s" % d["database"]
assert d["database"]["source_checks"] == 6, d["database"]
assert d["summary"]["ok"], d["attention"]
assert all(r["state"] in ("ok", "not observed") for r in d["matrix"]), d["matrix"]
EOF

# --- run 3: sources were checked this week: skipped; verify still runs -------
run_job ISOTIER_BACKENDS="bwrap"
assert_eq "$rc" 0 "run 3 ($(cat "$TMP/job.err"))"
grep -q "sources: skipped, last check within 7 days" "$state/job.log" || fail "weekly sources cadence not applied"
assert_eq "$(json_get "$state/reports/isotier-report.json" database.source_checks)" 6 "sources skipped"
assert_eq "$(json_get "$state/reports/isotier-report.json" database.observations)" 5 "bwrap verified again"

# --- a run already in progress holds the lock: the next gives up with 75 -----
flock "$state/.lock" sleep 5 &
holder=$!
sleep 0.3
run_job ISOTIER_BACKENDS="bwrap" ISOTIER_LOCK_WAIT=1
wait $holder
assert_eq "$rc" 75 "a held lock"

# --- the default: verify --all over every backend this build knows ----------
run_job
grep -q -- "--all --host-provider acme-vm" "$state/job.log" || fail "the default did not run verify --all"
verify_rc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verify"])' "$state/last-run.json")
case $verify_rc in
  0 | 1) ;;
  *) fail "verify --all exited $verify_rc: $(grep -A30 'verify: ' "$state/job.log" | tail -30)" ;;
esac
check_reports
python3 - "$state/reports/isotier-report.json" <<'EOF' || fail "--all report"
import json, sys
d = json.load(open(sys.argv[1]))
seen = {o["backend"] for o in d["observations"]}
assert {"bwrap", "runc", "runsc", "qemu-microvm", "host"} <= seen, seen
for o in d["observations"][-5:]:
    print("  %-13s %-10s %s" % (o["backend"], o["observed_tier"], o["verdict"]))
EOF
echo "runbook job: drift exit 1, clean exit 0, weekly sources, lock 75, --all default: reports checked"
