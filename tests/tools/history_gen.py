#!/usr/bin/env python3
"""history_gen.py DB N [HOSTS] - fills an isotier history (schema 8, already
created: `isotier history import --db DB header.jsonl`) with N observations
shaped like real ones: 5 backends, 8 per run, HOSTS machines (default 4),
layers_json and probe_json of a few KB, and evidence of 23-61 KB drawn from a
pool of 64 tarballs, stored once by SHA-256 (evidence_blobs) as isotier
stores it. For the history bench and the bounded-memory test."""
import hashlib, json, random, sqlite3, sys, uuid, datetime

path, n = sys.argv[1], int(sys.argv[2])
hosts = int(sys.argv[3]) if len(sys.argv) > 3 else 4
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
