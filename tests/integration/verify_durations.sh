#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# Durations that mean something (issue #24): each observation stores the
# sandbox's own wall and CPU time apart from the job's duration_ms, with the
# run's --jobs and how many ran at once; the CPU time is the backend's
# children's (wait4 rusage), not the whole process's. Nothing here is timed:
# only what is stored, NULL or not, and how the numbers relate.
. "$ISOTIER_ROOT/tests/lib.sh"

command -v bwrap >/dev/null || skip "bwrap is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
db=$TMP/d.db
q() { sql "$db" "$1"; }

# One run of three cheap backends, two at a time; python records the CPU of
# the whole isotier process and everything it reaped (RUSAGE_CHILDREN of the
# wrapper), to hold each backend's share against.
python3 - "$ISOTIER_BIN" "$db" "$TMP/v.json" "$TMP/total_ms" <<'PY' || fail "verify --all-like run: $(head -c 2000 "$TMP/v.json")"
import resource, subprocess, sys
b, db, out, total = sys.argv[1:]
with open(out, "w") as f:
    rc = subprocess.run([b, "verify", "--backend", "host", "--backend", "bwrap",
                         "--backend", "bwrap-nonet", "--jobs", "2", "--db", db, "--json"],
                        stdout=f).returncode
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(total, "w").write("%d\n" % int((ru.ru_utime + ru.ru_stime) * 1000))
sys.exit(rc)
PY
total=$(cat "$TMP/total_ms")

assert_eq "$(q "PRAGMA user_version")" 11 "schema 11"
assert_eq "$(q "SELECT count(*) FROM observations")" 3 "three observations"
assert_eq "$(q "SELECT count(*) FROM observations WHERE jobs = 2")" 3 "each stores --jobs 2"
# At most --jobs ran at once, and each counts itself.
assert_eq "$(q "SELECT count(*) FROM observations WHERE overlap BETWEEN 1 AND 2")" 3 "overlap within 1..--jobs"
# These backends' sandboxes are isotier's own children: CPU known; the
# sandbox's span lies inside the job's.
assert_eq "$(q "SELECT count(*) FROM observations WHERE sandbox_cpu_ms IS NOT NULL AND sandbox_cpu_ms >= 0")" 3 "CPU stored for host and bwrap"
assert_eq "$(q "SELECT count(*) FROM observations WHERE sandbox_wall_ms IS NOT NULL AND sandbox_wall_ms <= duration_ms")" 3 "sandbox wall within the job's"
# Not the process's: each backend's CPU, and all of them together, are less
# than what the isotier process and its children used (the host's challenge
# threads run in isotier itself, and are nobody's sandbox).
sum=$(q "SELECT sum(sandbox_cpu_ms) FROM observations")
max=$(q "SELECT max(sandbox_cpu_ms) FROM observations")
[ "$total" -gt 0 ] || fail "no process CPU measured ($total)"
[ "$max" -lt "$total" ] || fail "a backend's CPU ($max ms) is not less than the process's ($total ms)"
[ "$sum" -le "$total" ] || fail "the backends' CPU ($sum ms) exceeds the process's ($total ms)"

# verify --json carries them, apart from duration_ms.
python3 - "$TMP/v.json" <<'PY' || fail "verify --json: $(head -c 2000 "$TMP/v.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["jobs"] == 2, d.get("jobs")
for r in d["results"]:
    assert isinstance(r["sandbox_wall_ms"], int) and isinstance(r["sandbox_cpu_ms"], int), r
    assert 1 <= r["overlap"] <= 2, r
    assert r["sandbox_wall_ms"] <= r["duration_ms"], r
PY

# The table shows WALL, CPU and AT ONCE, and says why WALL alone misleads
# when others ran beside it.
"$ISOTIER_BIN" verify --backend host --jobs 1 --db "$db" >"$TMP/t" 2>&1 || fail "verify host: $(cat "$TMP/t")"
head -1 "$TMP/t" | grep -Eq 'VERDICT +WALL +CPU +AT ONCE$' || fail "table header: $(head -1 "$TMP/t")"
grep -Eq '^host .* [0-9]+ ms +[0-9]+ ms +1$' "$TMP/t" || fail "host row: $(cat "$TMP/t")"
grep -q 'ran at once' "$TMP/t" && fail "a run of one says others ran beside it: $(cat "$TMP/t")"
assert_eq "$(q "SELECT jobs || ' ' || overlap FROM observations ORDER BY id DESC LIMIT 1")" "1 1" "--jobs 1, alone"

# history --json, --wide and show carry them; a row from before schema 8
# (its columns NULL) shows null / "-", never 0.
q "INSERT INTO observations(run_id, observed_at, backend, observed_tier, verdict, duration_ms, uuid)
   SELECT run_id, observed_at, 'old', 'UNKNOWN', 'INCONCLUSIVE', 5, 'old-row' FROM observations LIMIT 1"
"$ISOTIER_BIN" history --db "$db" --json >"$TMP/h.json" || fail "history --json"
python3 - "$TMP/h.json" <<'PY' || fail "history --json: $(head -c 2000 "$TMP/h.json")"
import json, sys
o = json.load(open(sys.argv[1]))["observations"]
old = [r for r in o if r["backend"] == "old"][0]
assert [old[k] for k in ("sandbox_wall_ms", "sandbox_cpu_ms", "jobs", "overlap")] == [None] * 4, old
new = [r for r in o if r["backend"] == "bwrap"][0]
assert new["jobs"] == 2 and isinstance(new["sandbox_cpu_ms"], int), new
PY
"$ISOTIER_BIN" history --db "$db" --wide >"$TMP/w" || fail "history --wide"
head -1 "$TMP/w" | grep -Eq 'WALL +CPU +REASON' || fail "history --wide header: $(head -1 "$TMP/w")"
# The old row's WALL and CPU cells, read at the header's columns.
cells=$(awk 'NR == 1 { w = index($0, " WALL ") + 1; c = index($0, " CPU ") + 1 }
             $4 == "old" { print substr($0, w, 4) "|" substr($0, c, 4) }' "$TMP/w")
assert_eq "$cells" "-   |-   " "history --wide: an old row's WALL and CPU"
cells=$(awk 'NR == 1 { c = index($0, " CPU ") + 1 } $4 == "bwrap" { print substr($0, c) }' "$TMP/w")
grep -Eq '^[0-9]+ ms ' <<<"$cells" || fail "history --wide: bwrap's CPU: $cells"
id=$(q "SELECT id FROM observations WHERE backend = 'bwrap'")
"$ISOTIER_BIN" history show "$id" --db "$db" >"$TMP/s" || fail "history show"
grep -Eq '^  sandbox +wall [0-9]+ ms, CPU [0-9]+ ms; --jobs 2, [12] at once' "$TMP/s" || fail "show: $(cat "$TMP/s")"
# The report's JSON carries them too (null for the old row).
"$ISOTIER_BIN" report --db "$db" --format json --no-catalogue --out "$TMP/r.json" || fail "report"
python3 - "$TMP/r.json" <<'PY' || fail "report JSON: $(head -c 2000 "$TMP/r.json")"
import json, sys
o = json.load(open(sys.argv[1]))["observations"]
keys = ("sandbox_wall_ms", "sandbox_cpu_ms", "jobs", "overlap")
assert [[r[k] for k in keys] for r in o if r["backend"] == "old"] == [[None] * 4], o
b = [r for r in o if r["backend"] == "bwrap"][0]
assert b["jobs"] == 2 and isinstance(b["sandbox_cpu_ms"], int) and b["sandbox_wall_ms"] <= b["duration_ms"], b
PY
# Export and import keep them, NULL as NULL.
"$ISOTIER_BIN" history export --db "$db" >"$TMP/x.jsonl" || fail "history export"
"$ISOTIER_BIN" history import --db "$TMP/copy.db" "$TMP/x.jsonl" >/dev/null || fail "history import"
cols="backend, sandbox_wall_ms, sandbox_cpu_ms, jobs, overlap, sandbox_cpu_ms IS NULL"
assert_eq "$(sqlite3 -batch "$TMP/copy.db" "SELECT $cols FROM observations ORDER BY uuid")" \
  "$(q "SELECT $cols FROM observations ORDER BY uuid")" "sandbox times through export and import"
# Unknown is NULL, never a guess: a backend that could not run (bwrap not on
# PATH) ran no sandbox whose CPU could be counted.
PATH=/nonexistent "$ISOTIER_BIN" verify --backend bwrap --db "$TMP/u.db" >"$TMP/u" 2>&1 || true
assert_eq "$(sqlite3 -batch "$TMP/u.db" "SELECT verdict, quote(sandbox_cpu_ms), jobs FROM observations")" \
  "UNAVAILABLE|NULL|4" "an unavailable backend's CPU is NULL ($(cat "$TMP/u"))"
echo "verify_durations: ok"
