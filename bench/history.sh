#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/history.sh - one history, two engines (issue #26): `isotier report`
# (HTML) and the `history` first page over N generated observations (default
# 100,000: realistic documents, 23-61 KB evidence stored once by hash) in
# SQLite and in PostgreSQL (a throwaway server, tests/pg.sh), side by side;
# then the write throughput of 8 concurrent `isotier verify` writers (the
# host backend) into each. Targets (issue #24, at 1M): first page < 50 ms,
# report html < 10 s.
#   N=100000 bench/history.sh
set -euo pipefail
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
bin=$root/$BUILD/isotier
n=${N:-$(q 100000 300)}
per_writer=$(q 5 1)
runs=$(q 5 1)
tmp=$(mktemp -d /tmp/isotier-bench-history.XXXXXX)
# shellcheck source=tests/pg.sh
. "$root/tests/pg.sh"
trap 'pg_stop; rm -rf "$tmp"' EXIT
command -v hyperfine >/dev/null || { echo "hyperfine missing: scripts/deps.sh installs it" >&2; exit 1; }
pg_start "$tmp" || { echo "no PostgreSQL server (apt-get install postgresql)" >&2; exit 1; }
uri=$PG_URI
cd "$tmp"

echo '{"type":"header","schema":"isotier.history.export/1"}' >empty.jsonl
"$bin" history import --db history.db empty.jsonl >/dev/null
start=$(date +%s.%N)
python3 "$root/tests/tools/history_gen.py" history.db "$n"
printf 'generated %d observations (%s MB) in %.1f s\n' "$n" "$(($(stat -c %s history.db) / 1048576))" \
  "$(echo "$(date +%s.%N) - $start" | bc)"
start=$(date +%s.%N)
"$bin" history migrate --from history.db --to "$uri" >/dev/null
printf 'history migrate SQLite -> PostgreSQL: %.1f s\n' "$(echo "$(date +%s.%N) - $start" | bc)"

hyperfine --warmup "$(q 1 0)" --runs "$runs" --style basic --export-markdown report.md \
  -n "report html, SQLite" "'$bin' report --db history.db --no-catalogue --format html --out r1.html" \
  -n "report html, PostgreSQL" "'$bin' report --db '$uri' --no-catalogue --format html --out r2.html" \
  -n "history first page, SQLite" "'$bin' history --db history.db" \
  -n "history first page, PostgreSQL" "'$bin' history --db '$uri'" >/dev/null
echo "== $n observations: SQLite vs PostgreSQL"
cat report.md

# 8 concurrent writers, per_writer runs each, one observation a run.
writers() { # writers DB: prints observations per second
  local db=$1 s e
  s=$(date +%s.%N)
  for w in 1 2 3 4 5 6 7 8; do
    (for _ in $(seq "$per_writer"); do "$bin" verify --backend host --db "$db" >/dev/null 2>&1 || exit 1; done) &
  done
  wait
  e=$(date +%s.%N)
  echo "scale=1; 8 * $per_writer / ($e - $s)" | bc
}
rm -f w.db
sqlite_rate=$(writers "$tmp/w.db")
pg_rate=$(writers "$uri")
echo "== 8 concurrent writers, $per_writer runs each (verify --backend host)"
printf '| engine | observations/s |\n|---|---|\n| SQLite | %s |\n| PostgreSQL | %s |\n' "$sqlite_rate" "$pg_rate"
