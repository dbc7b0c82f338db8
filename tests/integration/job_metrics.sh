#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# job_metrics.sh - the re-verification job's settings file and its Prometheus textfile, on the
# job itself (runbook/jobs/isotier-reverify.sh, verifying the host backend only: no sandbox).
#   settings   /etc/default/isotier's form read by the job's one parser (ISOTIER_DEFAULTS): the
#              file's own unquoted example `ISOTIER_REPORT_FORMATS=html junit json` and quoted
#              values take effect, comments and blank lines are skipped, the environment wins
#              over the file, a line of shell syntax fails the job (78) naming the file and
#              line and never the value (a credential)
#   metrics    metrics.prom (or ISOTIER_METRICS_FILE) passes `promtool check metrics` (Debian's
#              prometheus), holds the run's exit code, steps, report status and the host's
#              verdict, is replaced atomically (no temporary file left beside it); an input
#              that cannot be read is reported 0 by isotier_metrics_input_ok, its series absent
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
JOB=$R/runbook/jobs/isotier-reverify.sh
METRICS=$R/runbook/jobs/isotier-metrics.py
[ -x "$ISOTIER_BIN" ] || fail "no $ISOTIER_BIN (build first)"
command -v promtool >/dev/null || skip "promtool (Debian's prometheus) is not installed: scripts/deps.sh installs it"
export ISOTIER_PROBE=${ISOTIER_PROBE:-$R/$BUILD/isotier-probe}
st=$TMP/state
mkdir -p "$st"
# Sources are not this test's subject: a check within the period is skipped (no network).
touch "$st/.sources-attempted" "$st/.sources-checked"
cat >"$TMP/defaults" <<'CONF'
# the package's form: KEY=value lines
   ; a systemd-style comment, indented

ISOTIER_BACKENDS=host
ISOTIER_REPORT_FORMATS=html junit json
ISOTIER_JOBS="2"
E2B_API_KEY='not a real key'
CONF
run_job() { # run_job [VAR=value...]: $rc, $err
  rc=0
  env "$@" ISOTIER_STATE_DIR="$st" ISOTIER_BIN="$ISOTIER_BIN" timeout 300 "$JOB" >/dev/null 2>"$TMP/err" || rc=$?
  err=$(cat "$TMP/err")
}

# --- settings: the file as the package ships its example ----------------------
# ISOTIER_BACKENDS=host verifies no sandbox: the job runs whole and then fails 69 (nothing on
# this host was checked), which the metrics must carry.
run_job ISOTIER_DEFAULTS="$TMP/defaults"
assert_eq "$rc" 69 "the job with the settings file ($err)"
for f in isotier-report.html isotier-report.junit.xml isotier-report.json; do
  [ -s "$st/reports/$f" ] || fail "ISOTIER_REPORT_FORMATS=html junit json from the file: no $f"
done
grep -q -- "verify --db $st/isotier.db --jobs 2 --backend host" "$st/job.log" ||
  fail "the file's ISOTIER_JOBS=\"2\" and ISOTIER_BACKENDS=host were not used: $(grep -- '--- .* verify: ' "$st/job.log" | tail -1)"
# The environment wins over the file.
rm -f "$st/reports/isotier-report.junit.xml"
run_job ISOTIER_DEFAULTS="$TMP/defaults" ISOTIER_REPORT_FORMATS=json
assert_eq "$rc" 69 "the job, formats from the environment ($err)"
[ ! -e "$st/reports/isotier-report.junit.xml" ] || fail "the file's formats overrode the environment's"
# Shell syntax is refused (78), the line named, the value never printed.
printf 'ISOTIER_BACKENDS=host\nexport E2B_API_KEY=s3cr3t-value\n' >"$TMP/bad"
run_job ISOTIER_DEFAULTS="$TMP/bad"
assert_eq "$rc" 78 "a settings line in shell syntax ($err)"
assert_contains "$err" "$TMP/bad:2: not KEY=value (no shell syntax): 'export E2B_API_KEY'" "the refused line"
! grep -q s3cr3t <<<"$err" || fail "the refused line's value was printed: $err"
! grep -q s3cr3t "$st/job.log" || fail "the refused line's value is in job.log"

# One parser: neither systemd nor cron reads the file for the job.
! grep -q '^EnvironmentFile' "$R/runbook/jobs/isotier-reverify.service" ||
  fail "the unit reads /etc/default/isotier as an EnvironmentFile: two parsers"
cron_line=$(grep -E '^[0-9*]' "$R/runbook/jobs/isotier.cron")
assert_contains "$cron_line" " root [ -d /run/systemd/system ] || /usr/libexec/isotier/isotier-reverify " "the cron line"
! grep -qE '(^|[;&|[:space:]])(\.|source)[[:space:]]+/etc/default' <<<"$cron_line" ||
  fail "the cron line sources /etc/default/isotier as shell: $cron_line"

# --- metrics ------------------------------------------------------------------
prom=$TMP/textfile/isotier.prom
mkdir -p "$TMP/textfile"
# The earlier runs wrote the default metrics.prom: gone first, so that one written now is seen
# whatever the clock's resolution (two runs within one second have one mtime).
rm -f "$st/metrics.prom"
run_job ISOTIER_DEFAULTS="$TMP/defaults" ISOTIER_METRICS_FILE="$prom"
assert_eq "$rc" 69 "the job writing metrics to ISOTIER_METRICS_FILE ($err)"
[ -s "$prom" ] || fail "no metrics at $prom: $err"
promtool check metrics <"$prom" >"$TMP/promtool.out" 2>&1 || fail "promtool check metrics: $(cat "$TMP/promtool.out")"
[ ! -s "$TMP/promtool.out" ] || fail "promtool's lint: $(cat "$TMP/promtool.out")"
assert_eq "$(ls -A "$TMP/textfile")" isotier.prom "the textfile directory holds the file only"
m=$(cat "$prom")
exit_json=$(json_get "$st/last-run.json" exit)
assert_contains "$m" "isotier_job_exit_code $exit_json" "the job's exit code"
assert_eq "$exit_json" 69 "last-run.json: no sandbox verified"
assert_contains "$m" 'isotier_job_step_exit_code{step="verify"} 0' "verify's exit"
assert_contains "$m" 'isotier_job_step_exit_code{step="sources"} -1' "sources skipped"
assert_contains "$m" 'isotier_backend_verdict{backend="host",provider="",verdict="INCONCLUSIVE"} 1' "the host's verdict"
assert_contains "$m" 'isotier_backend_verdict{backend="host",provider="",verdict="CONFIRMED"} 0' "one verdict at 1"
assert_contains "$m" 'isotier_backend_resolved_tier{backend="bwrap"} 1' "bwrap's resolved tier (CONTAINER)"
status=$(json_get "$st/reports/isotier-report.json" summary.status)
assert_contains "$m" "isotier_report_status{status=\"$status\"} 1" "the report's status"
grep -qE '^isotier_backend_last_verified_timestamp_seconds\{backend="host",provider=""\} [0-9]{10}$' <<<"$m" ||
  fail "the host's last verified time: $(grep last_verified <<<"$m")"
grep -qE '^isotier_job_last_run_timestamp_seconds [0-9]{10}$' <<<"$m" || fail "the run's time"
[ ! -e "$st/metrics.prom" ] || fail "metrics.prom was written too when ISOTIER_METRICS_FILE named another file"
# An input that cannot be read: said, and its series absent (nothing says fine for it).
python3 "$METRICS" "$TMP/none.json" "$TMP/none.json" "$st/last-run.json" "$TMP/partial.prom" ||
  fail "isotier-metrics with missing inputs"
p=$(cat "$TMP/partial.prom")
assert_contains "$p" 'isotier_metrics_input_ok{input="report"} 0' "a missing report"
assert_contains "$p" 'isotier_metrics_input_ok{input="last_run"} 1' "last-run.json read"
! grep -q '^isotier_report_status{' <<<"$p" || fail "a report status without a report"
! grep -q '^isotier_backend_resolved_tier{' <<<"$p" || fail "resolved tiers without backends --json"
promtool check metrics <"$TMP/partial.prom" >/dev/null 2>&1 || fail "promtool on the partial file"
# An unwritable place: the job says so and keeps its status.
run_job ISOTIER_DEFAULTS="$TMP/defaults" ISOTIER_METRICS_FILE="$TMP/no/such/dir/isotier.prom"
assert_eq "$rc" 69 "metrics that cannot be written do not change the job's status ($err)"
assert_contains "$err" "WARN metrics not written to $TMP/no/such/dir/isotier.prom" "the unwritable metrics file"
echo "ok: settings file read by the job (unquoted list, quotes, comments; environment wins; shell syntax 78, value unprinted); metrics pass promtool, atomically written, fail closed on a missing input"
