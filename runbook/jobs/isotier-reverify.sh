#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# isotier-reverify.sh - the scheduled re-verification job of the runbook
# (runbook/cadence.md): verify the backends, re-check the catalogue's sources,
# write the reports, keep the database, and alert through the exit status.
#
# Installed by: isotier-reverify.service + .timer (systemd), isotier.cron, or
# reverify-workflow.yml (CI). Runs as written on a plain Debian 12 machine.
#
# Settings: the environment, then /etc/default/isotier (ISOTIER_DEFAULTS names another file)
# for every variable the environment leaves unset. That file is read here and only here, by
# systemd's unit and cron's line alike (neither reads it itself), in systemd's env-file form:
# KEY=value lines, `#` or `;` comments, blank lines, a value optionally in matching single or
# double quotes (stripped; nothing inside is expanded or unescaped); no shell syntax is run. A
# line of another form fails the job (78, naming the file and line). A missing file is no file.
#
# Environment (all optional):
#   ISOTIER_DEFAULTS       the settings file (default /etc/default/isotier)
#   ISOTIER_BIN            the isotier binary (default: the one installed beside
#                          this script, PREFIX/bin/isotier for PREFIX/libexec/isotier/
#                          isotier-reverify; in a checkout ../../build/isotier)
#   ISOTIER_STATE_DIR      where the database, reports and log live
#                          (default: $STATE_DIRECTORY from systemd, else /var/lib/isotier)
#   ISOTIER_DB             the history (default: $ISOTIER_STATE_DIR/isotier.db). Keep
#                          it the host's default history, which create(), `isotier
#                          run` and every other command read when none is named:
#                          $ISOTIER_DB, else /var/lib/isotier/isotier.db. With another
#                          state directory, set ISOTIER_DB for them too, or their
#                          create() never sees the contradictions this job records.
#   ISOTIER_CATALOGUE      provider catalogue directory (default: isotier's own)
#   ISOTIER_BACKENDS       backends to verify, separated by spaces or commas, e.g.
#                          "bwrap,runc" (default: every backend: verify --all; a
#                          remote one only when its credentials are set; a local
#                          one this host cannot run fails the job, 69)
#   ISOTIER_HOST_PROVIDER  catalogue id of the provider this job runs on; the
#                          host backend is judged against its claim
#   ISOTIER_JOBS           sandboxes verify runs at once (default 4)
#   ISOTIER_SOURCES_JOBS   pages sources check fetches at once (default 8: it waits on the
#                          network, not on this host)
#   ISOTIER_SOURCES_EVERY_DAYS  check sources when the last attempt is at least this
#                          many days old (default 7; 0: every run). An attempt that
#                          reached no source (offline host) waits as long as one that did.
#   ISOTIER_SOURCES_MAX_UNCHECKED_DAYS  how long sources may go without a completed
#                          check before that is an alert (default 30: the catalogue's
#                          source age policy); until then an unreachable check is a warning
#   ISOTIER_REPORT_FORMATS formats written (default "html junit json"; md also works)
#   ISOTIER_LOCK_WAIT      seconds to wait for a previous run to finish (default 600)
#   ISOTIER_HISTORY_KEEP_DAYS  after the reports, `history prune --older-than` this many
#                          days (unset: keep everything); what the gate reads always stays
#   ISOTIER_METRICS_FILE   where the Prometheus textfile goes (default $ISOTIER_STATE_DIR/
#                          metrics.prom; empty: not written); names in isotier-reverify(8)
#
# State directory afterwards:
#   isotier.db                 the history: the record. Never delete it; back it up.
#                              Readable by every user of libisotier on the host: their
#                              create() fails closed when it cannot read it.
#   reports/isotier-report.html|.junit.xml|.json|.md  the latest reports (replaced
#                              atomically; regenerate any time, byte-identically,
#                              with `isotier report`)
#   job.log                    one block per run: each step's output and exit status
#   last-run.json              {"exit": N, "verify": N, "sources": N, ...} of the last run
#   metrics.prom               the run's state for Prometheus (ISOTIER_METRICS_FILE: another
#                              path, e.g. node_exporter's textfile directory; empty: none)
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
#   A sources check in which every source was UNREACHABLE (exit 75: an offline or
#   air-gapped host) checked nothing: a warning, not a failure, and it is not
#   retried before ISOTIER_SOURCES_EVERY_DAYS; once sources have gone without a
#   completed check for ISOTIER_SOURCES_MAX_UNCHECKED_DAYS it is an alert (2).
#   64-78, 130  the job itself failed: the first failing step's exit status
#       (sysexits: 64 an unknown backend name, 69 no sandbox backend verified
#       (ISOTIER_BACKENDS=host alone), a runtime that did not start its
#       sandbox (its own cause named) or backend unavailable (also a
#       local backend verify --all could not run: ISOTIER_BACKENDS unset), 70 probe
#       failure, 73/74 the state directory or database cannot be written, 75
#       database locked or another run holds the lock...). See job.log.
#
# The first line the job prints names the cause: the step that failed and the
# first error it gave (e.g. "verify exit 64: --backend: unknown backend 'runcc'
# (did you mean 'runc'?)"), or the report's first alert.
set -u -o pipefail

# read_defaults FILE: exports each KEY=value of FILE whose KEY the environment leaves unset.
read_defaults() {
  local file=$1 line key value n=0
  [ -e "$file" ] || return 0
  [ -r "$file" ] || { echo "isotier-reverify: $file: cannot read the settings (ISOTIER_DEFAULTS)" >&2; exit 78; }
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line#"${line%%[![:space:]]*}"}
    case $line in '' | '#'* | ';'*) continue ;; esac
    key=${line%%=*}
    if [ "$key" = "$line" ] || ! [[ $key =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
      # The text before any '=' only: a value may be a credential.
      echo "isotier-reverify: $file:$n: not KEY=value (no shell syntax): '${key:0:60}'" >&2
      exit 78
    fi
    value=${line#*=}
    value=${value%"${value##*[![:space:]]}"}
    if [[ ${#value} -ge 2 && ( ($value == \"*\" ) || ($value == \'*\') ) ]]; then
      value=${value:1:${#value}-2}
    fi
    [ -n "${!key+set}" ] || export "$key=$value"
  done <"$file"
}
read_defaults "${ISOTIER_DEFAULTS:-/etc/default/isotier}"

here=$(cd "$(dirname "$0")" && pwd)
# The isotier this job was installed with (never another one on PATH: a
# checkout's build would read its own catalogue), else a checkout's build.
if [ -n "${ISOTIER_BIN:-}" ]; then
  bin=$ISOTIER_BIN
elif [ -x "$here/../../bin/isotier" ]; then
  bin=$(cd "$here/../../bin" && pwd)/isotier
elif [ -x "$here/../../build/isotier" ]; then
  bin=$here/../../build/isotier
else
  bin=$(command -v isotier || echo isotier)
fi
state=${ISOTIER_STATE_DIR:-${STATE_DIRECTORY:-/var/lib/isotier}}
jobs=${ISOTIER_JOBS:-4}
sources_jobs=${ISOTIER_SOURCES_JOBS:-8}
sources_every=${ISOTIER_SOURCES_EVERY_DAYS:-7}
formats=${ISOTIER_REPORT_FORMATS:-html junit json}
db=${ISOTIER_DB:-$state/isotier.db}
log=$state/job.log
# Retention: rows older than this many days go after each run (history prune);
# unset or empty: the history keeps everything.
keep_days=${ISOTIER_HISTORY_KEEP_DAYS:-}
if [ -n "$keep_days" ] && { ! [[ $keep_days =~ ^[1-9][0-9]{0,4}$ ]] || [ "$keep_days" -gt 36500 ]; }; then
  echo "isotier-reverify: ISOTIER_HISTORY_KEEP_DAYS: expected a number of days from 1 to 36500, got '${keep_days:0:20}'" >&2
  exit 78
fi

[ -x "$bin" ] || { echo "isotier-reverify: no isotier binary at $bin (set ISOTIER_BIN)" >&2; exit 69; }
mkdir -p "$state/reports" || { echo "isotier-reverify: cannot create $state/reports (ISOTIER_STATE_DIR)" >&2; exit 73; }
# A read-only state directory would surface as SQLite's "unable to open
# database file": say which directory and why, first.
if ! why=$(touch "$state/.writable" 2>&1); then
  echo "isotier-reverify: state directory $state is not writable: ${why##*: } (the history $db cannot be written; ISOTIER_STATE_DIR)" >&2
  exit 73
fi
rm -f "$state/.writable"

# One run at a time: a second one waits (10 minutes by default), then gives up (75).
exec 9>"$state/.lock" || exit 73
if ! flock -w "${ISOTIER_LOCK_WAIT:-600}" 9; then
  echo "isotier-reverify: another run holds $state/.lock" >&2
  exit 75
fi

cat_args=()
[ -n "${ISOTIER_CATALOGUE:-}" ] && cat_args=(--catalogue "$ISOTIER_CATALOGUE")

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }
cause=""  # the first failing step and its first error: the summary's first line
step() { # step NAME CMD...: runs CMD, logs its output and status, sets $rc
  local name=$1 out
  shift
  echo "--- $(stamp) $name: $*" >>"$log"
  step_out=""
  out=$(mktemp) || { rc=73; return 0; }
  "$@" >"$out" 2>&1
  rc=$?
  cat "$out" >>"$log"
  step_out=$(cat "$out")
  echo "--- $(stamp) $name: exit $rc" >>"$log"
  # sources check's 75 is also a locked database: only this line means offline.
  offline=0
  grep -q 'UNREACHABLE: nothing was checked' "$out" && offline=1
  # Exit 1 and 2 are verdicts, not failures; a failing step's own words come
  # first: the CLI's "isotier: ..." error, else the first "BACKEND: why" line
  # verify printed for a backend its table does not show CONFIRMED.
  if [ "$rc" -gt 2 ] && [ -z "$cause" ]; then
    local first
    first=$(grep -m1 '^isotier: ' "$out" | sed 's/^isotier: //')
    [ -n "$first" ] || first=$(awk '
      /^[a-z0-9-]+  +/ && NF >= 5 { for (i = 2; i <= NF; i++)
          if ($i ~ /^(CONFIRMED|CONSISTENT|EXCEEDS|NOT_CONTRADICTED|CONTRADICTED|INCONCLUSIVE|UNAVAILABLE)$/) {
            verdict[$1] = $i; break } }
      /^[a-z0-9-]+: / { b = substr($1, 1, length($1) - 1)
                        if (b in verdict && verdict[b] != "CONFIRMED") { print; exit } }' "$out")
    cause="$name exit $rc: ${first:-see $log}"
  fi
  rm -f "$out"
  return 0
}

echo "=== $(stamp) isotier-reverify start (state $state)" >>"$log"

# 1. verify: the probe in each backend, judged against the catalogue.
verify_args=(--db "$db" --jobs "$jobs" "${cat_args[@]}")
report_args=()
if [ -n "${ISOTIER_BACKENDS:-}" ]; then
  for b in ${ISOTIER_BACKENDS//,/ }; do verify_args+=(--backend "$b"); report_args+=(--backend "$b"); done
else
  verify_args+=(--all)
fi
[ -n "${ISOTIER_HOST_PROVIDER:-}" ] && verify_args+=(--host-provider "$ISOTIER_HOST_PROVIDER")
step verify "$bin" verify "${verify_args[@]}"
verify_rc=$rc
# verify --all passes over a local backend it cannot run (exit 0 unless none could run);
# the job does not: a runtime removed or a guest kernel missing is named (69), not left to
# turn into an overdue alert a week later. ISOTIER_BACKENDS names the backends a host runs.
unavail_rc=0
if [ -z "${ISOTIER_BACKENDS:-}" ] && { [ "$verify_rc" -eq 0 ] || [ "$verify_rc" -eq 2 ]; }; then
  unavail=$(printf '%s\n' "$step_out" | awk '
    # The verdict is the first verdict word of a row (the table has columns after it).
    /^[a-z0-9-]+  +/ && NF >= 5 { for (i = 2; i <= NF; i++) if ($i == "UNAVAILABLE") { n++; u[$1] = 1; break } }
    /^[a-z0-9-]+: / && !first { b = substr($1, 1, length($1) - 1); if (b in u) first = $0 }
    END { if (!n) exit
          if (!first) for (b in u) { first = b ": UNAVAILABLE"; break }
          printf "%s%s", first, (n > 1 ? " (and " n - 1 " more unavailable)" : "") }')
  if [ -n "$unavail" ]; then
    unavail_rc=69
    [ -n "$cause" ] || cause="verify --all: $unavail (set ISOTIER_BACKENDS to the backends this host runs)"
  fi
fi

# verify that judged no claim (ISOTIER_BACKENDS=host, every named backend UNAVAILABLE)
# verified nothing: the job fails (69), never "ok" over a history nothing checked. A row
# whose CLAIMED column is "-" (the host backend without ISOTIER_HOST_PROVIDER) is no sandbox.
if [ "$unavail_rc" -eq 0 ] && { [ "$verify_rc" -eq 0 ] || [ "$verify_rc" -eq 2 ]; }; then
  judged=$(printf '%s\n' "$step_out" | awk '
    /^[a-z0-9-]+  +/ && NF >= 5 && $2 != "-" && $2 != "CLAIMED" {
      for (i = 3; i <= NF; i++) if ($i ~ /^(CONFIRMED|CONSISTENT|EXCEEDS|NOT_CONTRADICTED|CONTRADICTED|INCONCLUSIVE)$/) { n++; break } }
    END { print n + 0 }')
  if [ "$judged" -eq 0 ]; then
    unavail_rc=69
    [ -n "$cause" ] || cause="verify: no sandbox backend was verified (ISOTIER_BACKENDS=${ISOTIER_BACKENDS:-all}): nothing on this host is checked"
  fi
fi

# 2. sources check: weekly by default. .sources-attempted remembers the last
# attempt (an offline one too: it is not retried on every run),
# .sources-checked the last completed one, .sources-due the start of a run of
# attempts that reached nothing.
sources_rc=-1 sources_offline=0
sources_warn=""
max_unchecked=${ISOTIER_SOURCES_MAX_UNCHECKED_DAYS:-30}
attempted=$state/.sources-attempted
[ -e "$attempted" ] || attempted=$state/.sources-checked  # a state directory from before
if [ "$sources_every" -eq 0 ] || [ ! -e "$attempted" ] ||
   [ -n "$(find "$attempted" -mtime +"$((sources_every - 1))" 2>/dev/null)" ]; then
  cause_before=$cause
  step sources "$bin" sources check --db "$db" --jobs "$sources_jobs" "${cat_args[@]}"
  sources_rc=$rc sources_offline=$offline
  # A completed check or an offline one waits for the next period; any other
  # failure (a locked database...) runs again next time.
  if [ "$sources_rc" -le 1 ]; then
    touch "$state/.sources-attempted" "$state/.sources-checked"
    rm -f "$state/.sources-due"
  elif [ "$sources_rc" -eq 75 ] && [ "$sources_offline" = 1 ]; then
    cause=$cause_before  # not the job's failure: said below as a warning or an alert
    touch "$state/.sources-attempted"
    [ -e "$state/.sources-due" ] || touch "$state/.sources-due"
  fi
else
  echo "--- $(stamp) sources: skipped, last check within $sources_every days (an offline attempt counts)" >>"$log"
fi
# Sources that could not be reached: a warning until they have gone unchecked
# for max_unchecked days, then an alert.
if [ -e "$state/.sources-due" ]; then
  since=$(date -u -r "$state/.sources-due" +%Y-%m-%d)
  if [ -n "$(find "$state/.sources-due" -mtime +"$((max_unchecked - 1))" 2>/dev/null)" ]; then
    sources_warn="ALERT sources unchecked for more than $max_unchecked days: no source reachable since $since (check the network or proxy; \`isotier sources check --db $db\`)"
  else
    sources_warn="WARN sources not checked: no source reachable (offline?) since $since; retried in $sources_every days, an alert after $max_unchecked"
  fi
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

# 4. retention (ISOTIER_HISTORY_KEEP_DAYS): after the reports, so they read the
# run whole; what the gate decides by is never pruned (history prune --help).
prune_rc=-1
if [ -n "$keep_days" ]; then
  step prune "$bin" history prune --db "$db" --older-than "$keep_days"
  prune_rc=$rc
fi

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
  s=$sources_rc; [ "$s" -eq 75 ] && [ "$sources_offline" = 1 ] && s=0  # unreachable: sources_warn
  for r in "$v" "$unavail_rc" "$s" "$report_rc" "$prune_rc"; do
    if [ "$r" -gt 1 ]; then exit_code=$r; break; fi
  done
  [ "$exit_code" -eq 0 ] && { [ "$failing" -gt 0 ] || [ "$verify_rc" -eq 2 ] ||
    [[ "$sources_warn" == ALERT* ]]; } && exit_code=2
fi

printf '{"finished_at":"%s","exit":%d,"verify":%d,"sources":%d,"report":%d,"prune":%d,"failing":%d}\n' \
  "$(stamp)" "$exit_code" "$verify_rc" "$sources_rc" "$report_rc" "$prune_rc" "$failing" >"$state/last-run.json.tmp" &&
  mv "$state/last-run.json.tmp" "$state/last-run.json"

# 5. metrics for node_exporter's textfile collector (isotier-metrics.py), from this run's
# report and last-run.json and the tiers resolved over the history just written. A failure
# here is said (stderr, job.log), not the job's status: the file's
# isotier_job_last_run_timestamp_seconds going stale is what monitoring sees.
metrics=${ISOTIER_METRICS_FILE-$state/metrics.prom}
if [ -n "$metrics" ]; then
  metrics_prog=$here/isotier-metrics
  [ -x "$metrics_prog" ] || metrics_prog=$here/isotier-metrics.py
  report_json=$state/reports/isotier-report.json
  if ! [[ " $formats " == *" json "* ]] || [ "$report_rc" -ne 0 ]; then
    report_json=$state/.metrics-report.json
    "$bin" report --db "$db" --format json --out "$report_json" "${cat_args[@]}" "${report_args[@]}" >>"$log" 2>&1
  fi
  "$bin" backends --json --db "$db" "${cat_args[@]}" >"$state/.metrics-backends.json" 2>>"$log"
  if ! why=$(python3 "$metrics_prog" "$report_json" "$state/.metrics-backends.json" "$state/last-run.json" "$metrics" 2>&1); then
    echo "isotier-reverify: WARN metrics not written to $metrics: ${why:-isotier-metrics failed} (ISOTIER_METRICS_FILE)" >&2
    echo "--- $(stamp) metrics: not written to $metrics: $why" >>"$log"
  fi
  rm -f "$state/.metrics-report.json" "$state/.metrics-backends.json"
fi
echo "=== $(stamp) isotier-reverify exit $exit_code (verify $verify_rc, sources $sources_rc, report $report_rc, prune $prune_rc, failing $failing)" >>"$log"
case $exit_code in
  0) msg="ok" ;;
  1) msg="DRIFT: a contradicted verdict or a changed/gone source; see runbook/drift.md" ;;
  2) msg="attention: an unproven claim, stale sources or overdue backends; see runbook/drift.md and runbook/cadence.md" ;;
  *) msg="the job failed (exit $exit_code); see $log" ;;
esac
# The first line names the cause: the failing step's own error, else the
# first alert of the report, else the verdict.
first=$cause
if [ -z "$first" ] && [ "$exit_code" -ne 0 ] && [ -e "$db" ]; then
  first=$("$bin" report --db "$db" --format text "${cat_args[@]}" "${report_args[@]}" 2>/dev/null |
    grep -m1 -E '^ALERT [a-z]' || true)
fi
[ -n "$first" ] && [ "$exit_code" -eq 0 ] && first=""
[ -z "$first" ] && [[ "$sources_warn" == ALERT* ]] && first=$sources_warn
[ -n "$first" ] && echo "isotier-reverify: $first" >&2
[ -n "$first" ] && echo "--- $(stamp) cause: $first" >>"$log"
echo "isotier-reverify: $msg; report: $state/reports/isotier-report.html" >&2
[ -n "$sources_warn" ] && echo "isotier-reverify: $sources_warn" >&2
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
