#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""history_gen.py DB N [HOSTS] [--checks N --catalogue DIR] [--refusals N] -
fills an isotier history (already created: `isotier history import --db DB
header.jsonl`) with N observations shaped like real ones: 5 backends, 8 per
run, HOSTS machines (default 4), layers_json and probe_json of a few KB, and
evidence of 23-61 KB drawn from a pool of 64 tarballs, stored once by SHA-256
(evidence_blobs) as isotier stores it. --checks: that many source checks as
a daily `sources check` of every source in the catalogue DIR writes them
(one run a day, the source's provider, URL and quote, mostly PRESENT, now
and then CHANGED with its word diff, GONE or UNREACHABLE). --refusals: that
many create() refusals in audit_events as the library stores them (the
event's JSON line in detail_json), among three times as many allowed
create/exec/destroy events. For the history bench and the bounded-memory
test."""
import argparse, glob, hashlib, json, os, random, sqlite3, sys, uuid, datetime

ap = argparse.ArgumentParser()
ap.add_argument("db")
ap.add_argument("n", type=int)
ap.add_argument("hosts", type=int, nargs="?", default=4)
ap.add_argument("--checks", type=int, default=0)
ap.add_argument("--catalogue")
ap.add_argument("--refusals", type=int, default=0)
args = ap.parse_args()
path, n, hosts = args.db, args.n, args.hosts
if args.checks and not args.catalogue:
    sys.exit("history_gen.py: --checks needs --catalogue DIR (the sources checked)")
rnd = random.Random(26)
db = sqlite3.connect(path)
backends = [("bwrap", "bubblewrap", "CONTAINER", "bubblewrap"), ("runc", "runc", "CONTAINER", "runc"),
            ("runsc", "runsc", "GVISOR", "gvisor"), ("qemu-microvm", "qemu-microvm", "MICROVM", "qemu"),
            ("host", None, None, None)]
signals = [{"id": "sig.%02d" % i, "family": ["virt", "kernel", "syscall", "container"][i % 4],
            "source": "/proc/something/%d" % i, "value": "value %d " % i + "x" * 60,
            "weight": "strong" if i % 3 else "weak", "supports": ["vm", "gvisor", "container", "none"][i % 4]}
           for i in range(32)]
layers = json.dumps([{"kind": "container", "vendor": "bubblewrap", "signals": ["sig.03", "sig.07", "sig.11"]}])
pool = []
for i in range(64):
    blob = bytes(rnd.getrandbits(8) for _ in range(512)) * rnd.randint(46, 122)  # 23-61 KB
    sha = hashlib.sha256(blob).hexdigest()
    pool.append(sha)
    db.execute("INSERT OR IGNORE INTO evidence_blobs(sha256, format, content) VALUES (?, 'tar', ?)", (sha, blob))
t0 = datetime.datetime(2026, 1, 1)
run = None
for i in range(n):
    if i % 8 == 0:
        h = i // 8 % hosts
        at = (t0 + datetime.timedelta(minutes=5 * (i // 8))).strftime("%Y-%m-%dT%H:%M:%SZ")
        cur = db.execute("INSERT INTO runs(started_at, finished_at, tool_version, command, status, host, host_id, uuid)"
                         " VALUES (?, ?, '0.1.0', 'verify', 'ok', ?, ?, ?)",
                         (at, at, "host-%d" % h, "%032x" % (h + 1), str(uuid.uuid4())))
        run = cur.lastrowid
    b = backends[i % 5]
    bad = rnd.random() < 0.01
    probe = json.dumps({"schema": "isotier.probe/1", "probe_version": "0.1.0", "nonce": "%016x" % i,
                        "observed_tier": b[2] or "NONE", "signals": signals})
    db.execute("INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier, claimed_mechanism,"
               " observed_tier, observed_vendor, confidence, layers_json, verdict, reason, probe_json,"
               " evidence_sha256, evidence_format, duration_ms, kernel_relation, ceiling_tier, host_id,"
               " uuid, probe_schema) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,'tar',?,?,?,?,?,'isotier.probe/1')",
               (run, at, b[0], b[1], b[2], b[3], "NONE" if bad else (b[2] or "CONTAINER"), b[3], "high", layers,
                "CONTRADICTED" if bad else ("CONFIRMED" if b[1] else "INCONCLUSIVE"),
                "generated row %d" % i, probe, pool[i % 64], 300 + i % 500, "shared",
                "NONE" if bad else b[2], "%032x" % (i // 8 % hosts + 1), str(uuid.uuid4())))
db.commit()

# A daily `sources check` of every catalogue source, oldest day first, ending
# the day the observations start: one run per day (verify/cmd/cmd_sources.c).
if args.checks:
    sources = []
    for f in sorted(glob.glob(os.path.join(args.catalogue, "*.json"))):
        d = json.load(open(f))
        for src in d.get("sources", []):
            sources.append((d["id"], src["url"], src["quote"], src.get("retrieved"), src.get("published"),
                            src.get("publisher")))
    if not sources:
        sys.exit("history_gen.py: no sources in " + args.catalogue)
    days = (args.checks + len(sources) - 1) // len(sources)
    day0 = t0 - datetime.timedelta(days=days)
    for k in range(args.checks):
        if k % len(sources) == 0:
            at = (day0 + datetime.timedelta(days=k // len(sources), hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
            run = db.execute("INSERT INTO runs(started_at, finished_at, tool_version, command, status, host, host_id, uuid)"
                             " VALUES (?, ?, '0.1.0', 'sources check', 'ok', 'host-0', ?, ?)",
                             (at, at, "%032x" % 1, str(uuid.uuid4()))).lastrowid
        prov, url, quote, retrieved, published, publisher = sources[k % len(sources)]
        r = rnd.random()
        status, http, detail, change, diff = "PRESENT", 200, None, "none", None
        if r < 0.03:
            status, detail, change = "CHANGED", "quote not found in the page", "passage_changed"
            diff = " ".join("[-%s-]{+%s+}" % (w, w.upper()) if i % 7 == 0 else w
                            for i, w in enumerate(((quote + " ") * 3).split()))[:1024]
        elif r < 0.04:
            status, http, detail, change = "GONE", 404, "HTTP 404", None
        elif r < 0.06:
            status, http, detail, change = "UNREACHABLE", None, "timed out after 30 s", None
        sha = hashlib.sha256(("%s %d" % (url, k // (len(sources) * 30))).encode()).hexdigest()
        db.execute("INSERT INTO source_checks(run_id, checked_at, provider_id, url, quote, status, http_status,"
                   " content_sha256, detail, retrieved, published, publisher, change, passage_diff)"
                   " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (run, at, prov, url, quote, status, http, None if http is None else sha, detail, retrieved,
                    published, publisher, change, diff))

# create() refusals among the allowed sandboxes' events (reference/api/create.c,
# reference/history/audit.c: detail_json is the event's JSON line), every 3 minutes.
if args.refusals:
    for k in range(args.refusals * 4):
        at = (t0 - datetime.timedelta(minutes=3 * (args.refusals * 4 - k))).strftime("%Y-%m-%dT%H:%M:%SZ")
        b = backends[k % 4]
        sid = "%016x" % rnd.getrandbits(64)
        if k % 4 == 0:
            ev, dec, res, req = "refuse", "refused", "CONTAINER", "MICROVM"
            reason = ("backend %s resolves to %s, weaker than the required %s: latest observation %d"
                      " CONTRADICTED on host-%d" % (b[0], res, req, k, k % hosts))
            sid = None
        else:
            ev, dec, res, req = ["create", "exec", "destroy"][k % 4 - 1], ["allowed", "ok", "ok"][k % 4 - 1], b[2], b[2]
            reason = "latest observation CONFIRMED" if ev == "create" else ""
        line = {"time": at, "event": ev, "backend": b[0], "claimed_tier": b[2], "resolved_tier": res,
                "required_tier": req, "decision": dec, "reason": reason}
        if sid:
            line["sandbox_id"] = sid
        db.execute("INSERT INTO audit_events(at, event, sandbox_id, backend, claimed_tier, resolved_tier,"
                   " required_tier, decision, reason, detail_json) VALUES (?,?,?,?,?,?,?,?,?,?)",
                   (at, ev, sid, b[0], b[2], res, req, dec, reason, json.dumps(line, separators=(",", ":"))))
db.commit()
