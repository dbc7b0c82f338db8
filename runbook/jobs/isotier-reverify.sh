#!/usr/bin/env bash
# isotier-reverify.sh - the scheduled re-verification job of the runbook
# (runbook/cadence.md): verify the backends, re-check the catalogue's sources,
# write the reports, keep the database, and alert through the exit status.
#
# Installed by: isotier-reverify.service + .timer (systemd), isotier.cron, or
# reverify-workflow.yml (CI). Runs as written on a plain Debian 12 machine.
#
# Environment (all optional):
#   ISOTIER_BIN            the isotier binary (default: isotier on PATH, else the
#                          build beside this checkout: ../../build/isotier)
#   ISOTIER_STATE_DIR      where the database, reports and log live
#                          (default: $STATE_DIRECTORY from systemd, else /var/lib/isotier)
#   ISOTIER_CATALOGUE      provider catalogue directory (default: isotier's own)
#   ISOTIER_BACKENDS       backends to verify, space-separated, e.g. "bwrap host"
#                          (default: every backend: verify --all)
#   ISOTIER_HOST_PROVIDER  catalogue id of the provider this job runs on; the
#                          host backend is judged against its claim
#   ISOTIER_JOBS           concurrency of verify and sources check (default 4)
#   ISOTIER_SOURCES_EVERY_DAYS  check sources when the last check is at least this
#                          many days old (default 7; 0: every run)
#   ISOTIER_REPORT_FORMATS formats written (default "html junit json"; md also works)
#   ISOTIER_LOCK_WAIT      seconds to wait for a previous run to finish (default 600)
#
# State directory afterwards:
#   isotier.db                 the history: the record. Never delete it; back it up.
#   reports/isotier-report.html|.junit.xml|.json|.md  the latest reports (replaced
#                              atomically; regenerate any time, byte-identically,
#                              with `isotier report`)
#   job.log                    one block per run: each step's output and exit status
#   last-run.json              {"exit": N, "verify": N, "sources": N, ...} of the last run
#
# On anything but 0 the job also prints (to stderr, and into job.log) what
# needs a person, one item a line with its remedy and the command that looks
# closer: `isotier report --format text` over the same history.
#
# Exit status (alert on anything but 0):
#   0   nothing to act on
#   1   drift: a CONTRADICTED verdict (verify exit 1) or a CHANGED/GONE source
#       (sources check exit 1). Runbook: runbook/drift.md. Wins over everything:
#       a contradiction pages even when another step also failed.
#   2   no drift, but a claim could not be proven (verify exit 2: INCONCLUSIVE
#       against a claim, e.g. a VM not shown to be the sandbox's own), or the
#       report lists unproven claims, stale sources or overdue backends
#       (runbook/cadence.md) or catalogue files it could not load. A backend
#       counts as verified only by a run that judged it: UNAVAILABLE runs never
#       reset its overdue clock. With ISOTIER_BACKENDS set, only those backends
#       can be overdue, and one of them never observed is.
#   A sources check in which every source was UNREACHABLE (exit 75) checked
#   nothing: it fails the job and does not count as this period's check.
#   64-78, 130  the job itself failed: the first failing step's exit status
#       (sysexits: 69 backend unavailable, 70 probe failure, 75 database locked
#       or another run holds the lock...). See job.log.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${ISOTIER_BIN:-}" ]; then
  bin=$ISOTIER_BIN
elif command -v isotier >/dev/null 2>&1; then
  bin=$(command -v isotier)
else
  bin=$here/../../build/isotier
fi
state=${ISOTIER_STATE_DIR:-${STATE_DIRECTORY:-/var/lib/isotier}}
jobs=${ISOTIER_JOBS:-4}
sources_every=${ISOTIER_SOURCES_EVERY_DAYS:-7}
formats=${ISOTIER_REPORT_FORMATS:-html junit json}
db=$state/isotier.db
log=$state/job.log

[ -x "$bin" ] || { echo "isotier-reverify: no isotier binary at $bin (set ISOTIER_BIN)" >&2; exit 69; }
mkdir -p "$state/reports" || exit 73

# One run at a time: a second one waits (10 minutes by default), then gives up (75).
exec 9>"$state/.lock" || exit 73
if ! flock -w "${ISOTIER_LOCK_WAIT:-600}" 9; then
  echo "isotier-reverify: another run holds $state/.lock" >&2
  exit 75
fi

cat_args=()
[ -n "${ISOTIER_CATALOGUE:-}" ] && cat_args=(--catalogue "$ISOTIER_CATALOGUE")

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }
step() { # step NAME CMD...: runs CMD, logs its output and status, sets $rc
  local name=$1
  shift
  echo "--- $(stamp) $name: $*" >>"$log"
  "$@" >>"$log" 2>&1
  rc=$?
  echo "--- $(stamp) $name: exit $rc" >>"$log"
  return 0
}

echo "=== $(stamp) isotier-reverify start (state $state)" >>"$log"

# 1. verify: the probe in each backend, judged against the catalogue.
verify_args=(--db "$db" --jobs "$jobs" "${cat_args[@]}")
report_args=()
if [ -n "${ISOTIER_BACKENDS:-}" ]; then
  for b in $ISOTIER_BACKENDS; do verify_args+=(--backend "$b"); report_args+=(--backend "$b"); done
else
  verify_args+=(--all)
fi
[ -n "${ISOTIER_HOST_PROVIDER:-}" ] && verify_args+=(--host-provider "$ISOTIER_HOST_PROVIDER")
step verify "$bin" verify "${verify_args[@]}"
verify_rc=$rc

# 2. sources check: weekly by default (a stamp file remembers the last one).
sources_rc=-1
if [ "$sources_every" -eq 0 ] || [ ! -e "$state/.sources-checked" ] ||
   [ -n "$(find "$state/.sources-checked" -mtime +"$((sources_every - 1))" 2>/dev/null)" ]; then
  step sources "$bin" sources check --db "$db" --jobs "$jobs" "${cat_args[@]}"
  sources_rc=$rc
  # Only a completed check counts (0 clean, 1 drift found); a failed one runs again next time.
  [ "$sources_rc" -le 1 ] && touch "$state/.sources-checked"
else
  echo "--- $(stamp) sources: skipped, last check within $sources_every days" >>"$log"
fi

# 3. reports, from the database just written (reproducible: no clock is read).
report_rc=0
for fmt in $formats; do
  case $fmt in
    html) out=isotier-report.html ;;
    junit) out=isotier-report.junit.xml ;;
    json) out=isotier-report.json ;;
    md) out=isotier-report.md ;;
    *) echo "isotier-reverify: unknown report format '$fmt'" >>"$log"; report_rc=64; continue ;;
  esac
  step "report $fmt" "$bin" report --db "$db" --format "$fmt" --out "$state/reports/$out" "${cat_args[@]}" "${report_args[@]}"
  [ "$rc" -ne 0 ] && [ "$report_rc" -eq 0 ] && report_rc=$rc
done

# What the report says needs a person (stale sources, overdue backends...).
failing=0
if [ -s "$state/reports/isotier-report.json" ] && [[ " $formats " == *" json "* ]]; then
  failing=$(grep -o '"summary":{"rows":[0-9]*,"failing":[0-9]*' "$state/reports/isotier-report.json" |
    sed 's/.*"failing"://')
  failing=${failing:-0}
else
  step "report summary" "$bin" report --db "$db" --format json --out "$state/.summary.json" "${cat_args[@]}" "${report_args[@]}"
  failing=$(grep -o '"summary":{"rows":[0-9]*,"failing":[0-9]*' "$state/.summary.json" 2>/dev/null |
    sed 's/.*"failing"://')
  failing=${failing:-0}
  rm -f "$state/.summary.json"
fi

# Combine: drift first, then the job's own failures, then stale/overdue.
exit_code=0
if [ "$verify_rc" -eq 1 ] || [ "$sources_rc" -eq 1 ]; then
  exit_code=1
else
  # verify's 2 (a claim it could not prove) is an alert, not a failure of the job.
  v=$verify_rc; [ "$v" -eq 2 ] && v=0
  for r in "$v" "$sources_rc" "$report_rc"; do
    if [ "$r" -gt 1 ]; then exit_code=$r; break; fi
  done
  [ "$exit_code" -eq 0 ] && { [ "$failing" -gt 0 ] || [ "$verify_rc" -eq 2 ]; } && exit_code=2
fi

printf '{"finished_at":"%s","exit":%d,"verify":%d,"sources":%d,"report":%d,"failing":%d}\n' \
  "$(stamp)" "$exit_code" "$verify_rc" "$sources_rc" "$report_rc" "$failing" >"$state/last-run.json.tmp" &&
  mv "$state/last-run.json.tmp" "$state/last-run.json"
echo "=== $(stamp) isotier-reverify exit $exit_code (verify $verify_rc, sources $sources_rc, report $report_rc, failing $failing)" >>"$log"
case $exit_code in
  0) msg="ok" ;;
  1) msg="DRIFT: a contradicted verdict or a changed/gone source; see runbook/drift.md" ;;
  2) msg="attention: an unproven claim, stale sources or overdue backends; see runbook/drift.md and runbook/cadence.md" ;;
  *) msg="the job failed (exit $exit_code); see $log" ;;
esac
echo "isotier-reverify: $msg; report: $state/reports/isotier-report.html" >&2
# Name what needs a person: each drifted, unproven or overdue backend and
# source, what to do, and the command that looks closer (report --format text).
if [ "$exit_code" -ne 0 ] && [ -e "$db" ]; then
  summary=$("$bin" report --db "$db" --format text "${cat_args[@]}" "${report_args[@]}" 2>&1)
  if [ -n "$summary" ]; then
    printf '%s\n' "$summary" | sed 's/^/isotier-reverify: /' >&2
    printf '%s\n' "$summary" | sed "s/^/--- $(stamp) summary: /" >>"$log"
  fi
fi
exit "$exit_code"
