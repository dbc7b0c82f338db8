#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/report.sh - `isotier report` over a generated history of 100,000
# observations (5 backends, a run every ~5 minutes for a year, realistic
# layers_json and probe_json, ~1 % CONTRADICTED), 2,000 source checks and 500
# refusals. Times each format with hyperfine. Target: HTML <= 1 s.
#   N=100000 bench/report.sh
set -euo pipefail
# BENCH_QUICK=1 (make test): one run of everything, tiny inputs; checks the bench works, no figures.
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
bin=$root/$BUILD/isotier
n=${N:-$(q 100000 200)}
tmp=$(mktemp -d /tmp/isotier-bench-report.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
command -v hyperfine >/dev/null || { echo "hyperfine missing: scripts/deps.sh installs it" >&2; exit 1; }

# shellcheck disable=SC2046 # pkg-config prints several flags
cc -std=gnu11 -O2 -D_GNU_SOURCE -I"$root/include" -I"$root/reference" -o "$tmp/mkdb" \
  "$root/tests/fixtures/report/mkdb.c" "$root/$BUILD/libisotier-tool.a" \
  $(pkg-config --libs libcurl libxml-2.0 libcjson sqlite3 libpq libcrypto libgit2) -lpthread -lm
"$tmp/mkdb" "$tmp/history.db" </dev/null

start=$(date +%s.%N)
python3 - "$tmp/history.db" "$n" <<'EOF'
import json, sqlite3, sys, datetime, random
db, n = sqlite3.connect(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(7)
backends = [("bwrap", "bubblewrap", "CONTAINER", "bubblewrap"), ("runc", "runc", "CONTAINER", "runc"),
            ("runsc", "runsc", "GVISOR", "gvisor"), ("qemu-microvm", "qemu-microvm", "MICROVM", "qemu"),
            ("host", None, None, None)]
signals = [{"id": "sig.%02d" % i, "family": ["virt", "kernel", "syscall", "container"][i % 4],
            "source": "/proc/something/%d" % i, "value": "value %d " % i + "x" * 40,
            "weight": "strong" if i % 3 else "weak", "supports": ["vm", "gvisor", "container", "none"][i % 4]}
           for i in range(24)]
layers = [{"kind": "vm", "vendor": "firecracker", "hypervisor": "kvm", "signals": ["sig.00", "sig.04", "sig.08"]},
          {"kind": "container", "vendor": "bubblewrap", "signals": ["sig.03", "sig.07", "sig.11"]}]
probe = json.dumps({"schema": "isotier.probe/1", "probe_version": "0.1.0", "observed_tier": "CONTAINER",
                     "confidence": "high", "layers": layers, "signals": signals,
                     "conflicts": [{"signal": "sig.07", "over": ["sig.00"], "note": "weak marker"}],
                     "kernel": {"release": "6.1.0"}, "duration_us": 900})
lj = json.dumps(layers)
t0 = datetime.datetime(2025, 12, 1)
db.execute("BEGIN")
runs = n // len(backends) + 1
db.executemany("INSERT INTO runs(id, started_at, finished_at, tool_version, command, status) VALUES (?,?,?,?,?,?)",
               ((r + 1, (t0 + datetime.timedelta(minutes=5 * r)).strftime("%Y-%m-%dT%H:%M:%SZ"), None,
                 "0.1.0", "verify", "ok") for r in range(runs)))
def rows():
    for i in range(n):
        r = i // len(backends)
        b, p, tier, mech = backends[i % len(backends)]
        at = (t0 + datetime.timedelta(minutes=5 * r, seconds=i % len(backends))).strftime("%Y-%m-%dT%H:%M:%SZ")
        v = "CONTRADICTED" if rnd.random() < 0.01 else ("CONFIRMED" if p else "INCONCLUSIVE")
        yield (r + 1, at, b, p, tier, mech, tier or "MICROVM", "firecracker", "high", lj, v,
               "innermost layer %s" % (tier or "?"), probe, 40 + i % 50)
db.executemany("INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier,"
               " claimed_mechanism, observed_tier, observed_vendor, confidence, layers_json, verdict,"
               " reason, probe_json, duration_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows())
db.executemany("INSERT INTO source_checks(run_id, checked_at, provider_id, url, quote, status, http_status)"
               " VALUES (1,?,?,?,?,?,200)",
               (((t0 + datetime.timedelta(hours=4 * i)).strftime("%Y-%m-%dT%H:%M:%SZ"), "bubblewrap",
                 "https://github.com/containers/bubblewrap", "q%d" % (i % 7), "PRESENT") for i in range(2000)))
db.executemany("INSERT INTO audit_events(at, event, backend, claimed_tier, resolved_tier, required_tier,"
               " decision, reason) VALUES (?,?,?,?,?,?,?,?)",
               (((t0 + datetime.timedelta(hours=17 * i)).strftime("%Y-%m-%dT%H:%M:%SZ"), "refuse", "bwrap",
                 "CONTAINER", "CONTAINER", "MICROVM", "refused", "CONTAINER does not satisfy MICROVM")
                for i in range(500)))
db.commit()
EOF
gen=$(echo "$(date +%s.%N) - $start" | bc)
printf 'generated %d observations in %.2f s (%s MiB database)\n' "$n" "$gen" \
  "$(( $(stat -c %s "$tmp/history.db") / 1048576 ))"

cat=$root/catalogue/providers
for fmt in html json junit md; do
  "$bin" report --db "$tmp/history.db" --catalogue "$cat" --format $fmt --out "$tmp/r.$fmt"
  printf '%-5s report: %s bytes\n' $fmt "$(stat -c %s "$tmp/r.$fmt")"
done
hyperfine --warmup "$(q 1 0)" --runs "$(q 10 1)" -N \
  "$bin report --db $tmp/history.db --catalogue $cat --format html --out $tmp/h.html" \
  "$bin report --db $tmp/history.db --catalogue $cat --format json --out $tmp/h.json" \
  "$bin report --db $tmp/history.db --catalogue $cat --format junit --out $tmp/h.xml" \
  "$bin report --db $tmp/history.db --catalogue $cat --format md --out $tmp/h.md"
echo "target: html <= 1 s over $n observations"
