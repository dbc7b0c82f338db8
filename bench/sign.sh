#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/sign.sh - what signing costs (issue #37): every observation verify
# records is signed (one Ed25519 signature over a statement of ~2 KB,
# reference/attestation/statement.c). `isotier attest export` over N backends observed on
# this host signs one SLSA summary each; the same history with the rows naming
# another host signs none: the difference over N is the cost of one signed
# statement (building, signing, printing). Against a verification of a
# second or more (bench/floor.sh), it is the figure that shows signing stays
# cheap. Figures only (hyperfine), no target.
#   N=120 bench/sign.sh
set -euo pipefail
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
bin=$root/$BUILD/isotier
n=${N:-$(q 120 20)}  # attest export summarises at most 128 backends
runs=$(q 10 1)
command -v hyperfine >/dev/null || { echo "hyperfine missing: scripts/deps.sh installs it" >&2; exit 1; }
machine=$(cat /etc/machine-id 2>/dev/null || true)
[[ $machine =~ ^[0-9a-f]{32}$ ]] || { echo "bench/sign: no machine id on this host" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isotier-bench-sign.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export ISOTIER_IDENTITY_DIR=$tmp/identity
cd "$tmp"
"$bin" identity >/dev/null
echo '{"type":"header","schema":"isotier.history.export/1"}' >empty.jsonl
"$bin" history import --db mine.db empty.jsonl >/dev/null
sqlite3 mine.db "INSERT INTO runs(started_at, tool_version, command, uuid, host_id)
  VALUES ('2026-01-01T00:00:00Z', 'bench', 'verify', 'r', '$machine');
  WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $n)
  INSERT INTO observations(run_id, observed_at, backend, claimed_tier, observed_tier, verdict,
    reason, ceiling_tier, host_id, claim_digest, uuid)
  SELECT 1, '2026-01-01T00:00:00Z', 'b' || i, 'CONTAINER', 'CONTAINER', 'CONFIRMED',
    'bench row', 'CONTAINER', '$machine', 'claim ' || i, 'u' || i FROM k;"
cp mine.db other.db
sqlite3 other.db "UPDATE observations SET host_id = 'fedcba9876543210fedcba9876543210'"
assert_lines() { [ "$("$bin" attest export --db "$1" 2>/dev/null | wc -l)" = "$2" ] || { echo "bench/sign: $1 did not give $2 summaries" >&2; exit 1; }; }
assert_lines mine.db "$n"
assert_lines other.db 0
hyperfine --warmup 1 --runs "$runs" --style basic --export-json sign.json \
  -n "attest export, $n summaries signed" "$bin attest export --db mine.db >/dev/null 2>&1" \
  -n "attest export, none signed (floor)" "$bin attest export --db other.db >/dev/null 2>&1"
python3 - sign.json "$n" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
n = int(sys.argv[2])
per = (r[0]["median"] - r[1]["median"]) / n * 1e6
print(f"one signed statement: {per:.1f} us (median difference over {n}; build, sign, print)")
PY
