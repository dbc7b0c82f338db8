#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# isotier-metrics.py REPORT_JSON BACKENDS_JSON LAST_RUN_JSON OUT - the re-verification job's
# state for Prometheus: node_exporter's textfile collector reads OUT (a *.prom file in its
# --collector.textfile.directory), written atomically (a temporary file in OUT's directory,
# renamed over it) so the collector never reads half a file. The text exposition format every
# Prometheus parser reads (0.0.4, what the textfile collector takes); `promtool check metrics`
# passes it (tests/integration/job_metrics.sh). Installed as PREFIX/libexec/isotier/isotier-metrics;
# the names are documented in isotier-reverify(8) and runbook/jobs.md.
#
# REPORT_JSON is `isotier report --format json` (runbook/report.schema.json), BACKENDS_JSON
# `isotier backends --json` over the same history, LAST_RUN_JSON the job's last-run.json. A
# missing or unreadable input is not guessed at: its series are left out and
# isotier_metrics_input_ok{input=...} is 0, which an alert can catch (fail closed: no series
# says "fine" for what could not be read).
import datetime
import json
import os
import sys
import tempfile

TIERS = ["UNKNOWN", "CONTAINER", "GVISOR", "MICROVM"]  # include/isotier.h's order
VERDICTS = ["CONFIRMED", "CONSISTENT", "EXCEEDS", "NOT_CONTRADICTED", "CONTRADICTED",
            "INCONCLUSIVE", "UNAVAILABLE"]  # base/verdict.c
REPORT_STATUS = ["OK", "INCOMPLETE", "ALERT"]  # report.schema.json summary.status
SOURCE_STATUS = ["PRESENT", "CHANGED", "GONE", "UNREACHABLE", "UNCHECKED"]
MAX_INPUT = 64 << 20  # a report of years of history stays far below


def load(path):
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT + 1)
        if len(data) > MAX_INPUT:
            return None
        return json.loads(data)
    except (OSError, ValueError):
        return None


def esc(value):
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


class Out:
    def __init__(self):
        self.lines = []

    def metric(self, name, helptext, samples):
        """samples: [(labels dict, value)]; a family with no sample is still declared."""
        self.lines.append("# HELP %s %s" % (name, helptext))
        self.lines.append("# TYPE %s gauge" % name)
        for labels, value in samples:
            lab = ",".join('%s="%s"' % (k, esc(v)) for k, v in labels.items())
            self.lines.append("%s%s %s" % (name, "{%s}" % lab if lab else "", value))


def epoch(text):
    """isotier's UTC form (2026-12-04T10:11:12Z or with a space) to seconds; None if not one."""
    if not isinstance(text, str):
        return None
    for fmt in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d %H:%M:%S"):
        try:
            t = datetime.datetime.strptime(text, fmt)
            return int(t.replace(tzinfo=datetime.timezone.utc).timestamp())
        except ValueError:
            pass
    return None


def main(argv):
    if len(argv) != 5:
        print("usage: isotier-metrics REPORT_JSON BACKENDS_JSON LAST_RUN_JSON OUT", file=sys.stderr)
        return 64
    report, backends, last = load(argv[1]), load(argv[2]), load(argv[3])
    if not isinstance(report, dict):
        report = None
    if not isinstance(backends, list):
        backends = None
    if not isinstance(last, dict):
        last = None
    o = Out()
    o.metric("isotier_metrics_input_ok",
             "1 when the job's input to these metrics was read (report: the JSON report, "
             "backends: isotier backends --json, last_run: last-run.json), else 0 and its series are absent.",
             [({"input": "report"}, int(report is not None)),
              ({"input": "backends"}, int(backends is not None)),
              ({"input": "last_run"}, int(last is not None))])
    # The job.
    job = []
    steps = []
    if last:
        for key in ("exit",):
            if isinstance(last.get(key), int):
                job.append(({}, last[key]))
        for step in ("verify", "sources", "report", "prune"):
            if isinstance(last.get(step), int):
                steps.append(({"step": step}, last[step]))
    o.metric("isotier_job_exit_code",
             "Exit status of the last isotier-reverify run: 0 nothing to act on, 1 drift, "
             "2 attention (unproven, stale, overdue), 64-78 the job failed (sysexits).", job)
    o.metric("isotier_job_step_exit_code",
             "Exit status of each step of the last run (-1: the step did not run, e.g. sources "
             "checked within ISOTIER_SOURCES_EVERY_DAYS).", steps)
    finished = epoch(last.get("finished_at")) if last else None
    o.metric("isotier_job_last_run_timestamp_seconds",
             "When the last run finished (Unix time).", [({}, finished)] if finished else [])
    # The report.
    status, failing, rows = [], [], []
    if report:
        summary = report.get("summary") if isinstance(report.get("summary"), dict) else {}
        st = summary.get("status")
        if st in REPORT_STATUS:
            status = [({"status": s}, int(s == st)) for s in REPORT_STATUS]
        if isinstance(summary.get("failing"), int):
            failing = [({}, summary["failing"])]
        if isinstance(report.get("matrix"), list):
            rows = [r for r in report["matrix"] if isinstance(r, dict)]
    o.metric("isotier_report_status",
             "The report's banner, one series per status, 1 for the current one: OK, INCOMPLETE "
             "(a due check did not happen), ALERT.", status)
    o.metric("isotier_report_failing", "Attention items that alert in the report.", failing)
    verdict, observed, overdue, claimed = [], [], [], []
    drift, stale, source = {}, {}, {}
    for r in rows:
        b, p = r.get("backend"), r.get("provider_id")
        if isinstance(p, str) and p:
            drift[p] = max(drift.get(p, 0), int(r.get("source_status") in ("CHANGED", "GONE")))
            stale[p] = max(stale.get(p, 0), int(bool(r.get("source_stale"))))
            if r.get("source_status") in SOURCE_STATUS:
                source[p] = r["source_status"]
        if not isinstance(b, str) or not b:
            continue
        lab = {"backend": b, "provider": p if isinstance(p, str) else ""}
        v = r.get("verdict")
        if v in VERDICTS:
            verdict += [(dict(lab, verdict=x), int(x == v)) for x in VERDICTS]
        t = epoch(r.get("observed_at"))
        if t:
            observed.append((lab, t))
        overdue.append((lab, int(bool(r.get("overdue")))))
        if r.get("claimed_tier") in TIERS:
            claimed.append((lab, TIERS.index(r["claimed_tier"])))
    o.metric("isotier_backend_verdict",
             "The latest verdict of each backend's observations on this host, one series per "
             "verdict, 1 for the current one.", verdict)
    o.metric("isotier_backend_last_verified_timestamp_seconds",
             "When the backend's latest observation was made (Unix time).", observed)
    o.metric("isotier_backend_overdue",
             "1 when the backend was not verified within the re-verification cadence.", overdue)
    o.metric("isotier_backend_claimed_tier",
             "The catalogue's claimed tier: 0 UNKNOWN, 1 CONTAINER, 2 GVISOR, 3 MICROVM.", claimed)
    resolved = []
    for b in backends or []:
        if isinstance(b, dict) and isinstance(b.get("backend"), str) and b.get("resolved_tier") in TIERS:
            resolved.append(({"backend": b["backend"]}, TIERS.index(b["resolved_tier"])))
    o.metric("isotier_backend_resolved_tier",
             "The tier isotier defends for the backend (what create() and isotier run enforce): "
             "0 UNKNOWN, 1 CONTAINER, 2 GVISOR, 3 MICROVM.", resolved)
    o.metric("isotier_source_drift",
             "1 when a catalogue entry's latest source check found its source CHANGED or GONE.",
             [({"provider": p}, v) for p, v in sorted(drift.items())])
    o.metric("isotier_source_stale",
             "1 when a catalogue entry's source is older than the source age policy.",
             [({"provider": p}, v) for p, v in sorted(stale.items())])
    o.metric("isotier_source_status",
             "The worst latest source check of each catalogue entry, one series per status, 1 for "
             "the current one.",
             [({"provider": p, "status": s}, int(s == st)) for p, st in sorted(source.items())
              for s in SOURCE_STATUS])
    text = "\n".join(o.lines) + "\n"
    out = argv[4]
    d = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(prefix=".isotier-metrics.", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        print("isotier-metrics: %s: %s" % (out, e.strerror), file=sys.stderr)
        return 74
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
