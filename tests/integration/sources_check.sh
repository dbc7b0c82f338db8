#!/usr/bin/env bash
# isotier-test: slow
# SPDX-License-Identifier: Apache-2.0
# sources_check: `isotier sources check` against a real HTTP server on
# 127.0.0.1 (tests/tools/fixture_server.py) serving fixture pages. Each case
# gets the right status, results land in a real SQLite history, and a run
# interrupted with SIGINT keeps what it stored without touching earlier runs.
. "$(dirname "$0")/../lib.sh"
bin=$ISOTIER_BIN
[ -x "$bin" ] || fail "no isotier binary at $bin"
command -v python3 >/dev/null || skip "python3 is needed for the fixture HTTP server"
command -v sqlite3 >/dev/null || skip "the sqlite3 shell is needed to inspect the history"
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
pages=$ISOTIER_ROOT/tests/fixtures/sources

python3 "$ISOTIER_ROOT/tests/tools/fixture_server.py" --root "$pages" --port-file "$TMP/port" \
  --lifetime 240 --log "$TMP/requests.log" &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
[ -s "$TMP/port" ] || fail "fixture server did not start"
port=$(cat "$TMP/port")
base="http://127.0.0.1:$port"
# A port nothing listens on: bind, note, close.
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

# make_catalogue DIR < "id|url|quote" lines: one provider per line.
make_catalogue() {
  mkdir -p "$1"
  python3 -c '
import json, os, sys
d = sys.argv[1]
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    pid, url, quote = line.split("|", 2)
    doc = {"id": pid, "name": "Fixture " + pid, "kind": "remote", "tier": "UNKNOWN",
           "mechanism": "unknown", "since": "2026-01-01",
           "sources": [{"url": url, "quote": quote, "publisher": "provider", "retrieved": "2026-11-30"}],
           "history": [], "notes": "sources_check fixture"}
    with open(os.path.join(d, pid + ".json"), "w") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
' "$1"
}

q="Each sandbox runs in its own Firecracker microVM"
make_catalogue "$TMP/cat" <<EOF2
present|$base/page/present.html|$q - with a dedicated kernel.
nested|$base/page/nested.html|$q — with a dedicated kernel.
typographic|$base/page/typographic.html|Workloads are isolated with "gVisor", Google's application kernel - not a VM.
malformed|$base/page/malformed.html|$q
redirect|$base/redirect/present.html|$q
flaky|$base/flaky/once/present.html|$q
edited|$base/page/edited.html|$q
gone-404|$base/status/404|$q
gone-410|$base/status/410|$q
loop|$base/loop|$q
slow|$base/slow/8/present.html|$q
big|$base/big|$q
big-chunked|$base/big-chunked|$q
error-500|$base/status/500|$q
rate-limited|$base/status/429|$q
plain-text|$base/text/readme.md|$q, resumed from a snapshot.
not-text|$base/pdf/present.html|$q
refused|http://127.0.0.1:$closed/page/present.html|$q
EOF2
# A second provider citing an already-cited page with another quote: one fetch, two rows.
python3 - "$TMP/cat/present.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["sources"].append(dict(d["sources"][0], quote="Security model", publisher="third-party"))
json.dump(d, open(sys.argv[1], "w"))
PY
db=$TMP/history.db
set +e
"$bin" sources check --catalogue "$TMP/cat" --db "$db" --jobs 4 --timeout 2 --json >"$TMP/run1.json" 2>"$TMP/run1.err"
rc=$?
set -e
assert_eq "$rc" 1 "CHANGED/GONE present: exit 1 ($(cat "$TMP/run1.err"))"
python3 - "$TMP/run1.json" <<'PY' || fail "statuses wrong: $(cat "$TMP/run1.json")"
import json, sys
d = json.load(open(sys.argv[1]))
want = {"present": "PRESENT", "nested": "PRESENT", "typographic": "PRESENT", "malformed": "PRESENT",
        "redirect": "PRESENT", "flaky": "PRESENT", "edited": "CHANGED", "gone-404": "GONE",
        "gone-410": "GONE", "loop": "UNREACHABLE", "slow": "UNREACHABLE", "big": "UNREACHABLE",
        "big-chunked": "UNREACHABLE", "error-500": "UNREACHABLE", "rate-limited": "UNREACHABLE",
        "plain-text": "PRESENT", "not-text": "UNREACHABLE",
        "refused": "UNREACHABLE"}
got = {}
for s in d["sources"]:
    got.setdefault(s["provider"], []).append(s)
bad = []
for pid, st in want.items():
    if got.get(pid, [{}])[0].get("status") != st:
        bad.append((pid, st, got.get(pid)))
assert not bad, bad
by = {p: v[0] for p, v in got.items()}
assert len(got["present"]) == 2 and all(s["status"] == "PRESENT" for s in got["present"])
assert by["gone-404"]["http_status"] == 404 and by["gone-410"]["http_status"] == 410
assert "redirect" in by["loop"]["detail"], by["loop"]
assert "larger than 5242880" in by["big"]["detail"] and "larger than" in by["big-chunked"]["detail"]
assert "imed out" in by["slow"]["detail"] or "Timeout" in by["slow"]["detail"], by["slow"]
assert by["flaky"]["attempts"] == 2, by["flaky"]
assert by["error-500"]["attempts"] == 3 and by["refused"]["attempts"] == 3
assert "application/pdf" in by["not-text"]["detail"], by["not-text"]
assert by["rate-limited"]["attempts"] == 3 and by["rate-limited"]["http_status"] == 429
assert by["refused"]["http_status"] is None and by["refused"]["content_sha256"] is None
assert by["edited"]["detail"] == "quote not found on the page"
assert by["redirect"]["detail"].startswith("redirected to http://127.0.0.1:"), by["redirect"]
assert len(by["present"]["content_sha256"]) == 64
c = d["counts"]
assert (c["checked"], c["PRESENT"], c["CHANGED"], c["GONE"], c["UNREACHABLE"], c["unchecked"]) == (19, 8, 1, 2, 8, 0), c
assert d["status"] == "failed"
PY
# The history holds one run and one row per source, with the page's hash.
assert_eq "$(sqlite3 "$db" "SELECT command || '|' || status || '|' || (finished_at IS NOT NULL) FROM runs")" "sources check|failed|1"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM source_checks WHERE run_id = 1")" 19 "rows for run 1"
want_sha=$(sha256sum "$pages/present.html" | cut -d' ' -f1)
assert_eq "$(sqlite3 "$db" "SELECT DISTINCT content_sha256 FROM source_checks WHERE provider_id = 'present'")" "$want_sha" "content hash"
assert_eq "$(sqlite3 "$db" "SELECT status || ' ' || http_status FROM source_checks WHERE provider_id = 'gone-410'")" "GONE 410"
# One fetch per distinct URL: present.html is cited twice but fetched once
# directly (and once more through /redirect/), each with our User-Agent.
assert_eq "$(grep -c ' /page/present.html ' "$TMP/requests.log")" 2 "present.html fetches"
assert_contains "$(head -n 1 "$TMP/requests.log")" "isotier/"
assert_contains "$(head -n 1 "$TMP/requests.log")" "(+sandbox isolation verifier)"

# Text output names every status. Every source UNREACHABLE is no check at
# all (no network): 75 and one line saying so, never drift and never a pass.
set +e
out=$("$bin" sources check --catalogue "$TMP/cat" --db "$db" --timeout 2 --provider loop --provider refused 2>&1)
rc=$?
set -e
assert_eq "$rc" 75 "every source UNREACHABLE: not a check"
assert_contains "$out" "UNREACHABLE loop"
assert_contains "$out" "UNREACHABLE refused"
assert_contains "$out" "2 of 2 checked: 0 PRESENT, 0 CHANGED, 0 GONE, 2 UNREACHABLE"
assert_contains "$out" "all 2 sources were UNREACHABLE: nothing was checked"
# Some UNREACHABLE beside a PRESENT one: not drift, exit 0.
set +e
out=$("$bin" sources check --catalogue "$TMP/cat" --db "$db" --timeout 2 --provider present --provider refused 2>&1)
rc=$?
set -e
assert_eq "$rc" 0 "UNREACHABLE beside PRESENT is not drift: $out"
set +e
out=$("$bin" sources check --catalogue "$TMP/cat" --db "$db" --provider present --provider nested 2>&1)
rc=$?
set -e
assert_eq "$rc" 0 "all PRESENT: $out"
assert_contains "$out" "PRESENT     nested"
set +e
"$bin" sources check --catalogue "$TMP/cat" --db "$db" --provider no-such >/dev/null 2>&1; rc=$?
"$bin" sources check --catalogue "$TMP/cat" --db "$db" --jobs 0 >/dev/null 2>&1; rc2=$?
set -e
assert_eq "$rc" 64 "unknown --provider"
# A catalogue that does not load is refused before anything is fetched or stored.
mkdir "$TMP/broken" && cp "$TMP/cat/present.json" "$TMP/broken/" && echo '{"id": ' >"$TMP/broken/bad.json"
runs_before=$(sqlite3 "$db" "SELECT count(*) FROM runs")
set +e
out=$("$bin" sources check --catalogue "$TMP/broken" --db "$db" 2>&1)
rc3=$?
set -e
assert_eq "$rc3" 65 "broken catalogue"
assert_contains "$out" "$TMP/broken/bad.json: not valid JSON"
assert_eq "$(sqlite3 "$db" "SELECT count(*) FROM runs")" "$runs_before" "no run recorded for a broken catalogue"
assert_eq "$rc2" 64 "--jobs 0"
assert_eq "$(sqlite3 "$db" "SELECT group_concat(status) FROM runs ORDER BY id")" "failed,failed,ok,ok" "run statuses"
rows_before=$(sqlite3 "$db" "SELECT count(*) || '/' || group_concat(id) FROM (SELECT id FROM source_checks ORDER BY id)")

# Interrupt: fast sources are stored first, then SIGINT lands while slow ones hang.
: >"$TMP/slow.list"
for i in 1 2 3 4 5; do echo "fast-$i|$base/page/present.html?n=$i|$q" >>"$TMP/slow.list"; done
for i in 1 2 3; do echo "zslow-$i|$base/slow/60/present.html?n=$i|$q" >>"$TMP/slow.list"; done
make_catalogue "$TMP/cat2" <"$TMP/slow.list"
"$bin" sources check --catalogue "$TMP/cat2" --db "$db" --jobs 3 --timeout 120 >"$TMP/int.out" 2>&1 &
pid=$!
run_id=""
for _ in $(seq 300); do
  run_id=$(sqlite3 "$db" "SELECT max(id) FROM runs WHERE status = 'running'" 2>/dev/null || true)
  if [ -n "$run_id" ] && [ "$(sqlite3 "$db" "SELECT count(*) FROM source_checks WHERE run_id = $run_id" 2>/dev/null || echo 0)" = 5 ]; then
    break
  fi
  sleep 0.1
done
[ -n "$run_id" ] || fail "interrupted run never started"
kill -INT "$pid"
set +e
wait "$pid"
rc=$?
set -e
assert_eq "$rc" 130 "SIGINT exit status ($(cat "$TMP/int.out"))"
assert_contains "$(cat "$TMP/int.out")" "5 of 8 checked"
assert_eq "$(sqlite3 "$db" "SELECT status || '|' || (finished_at IS NOT NULL) FROM runs WHERE id = $run_id")" "interrupted|1"
assert_eq "$(sqlite3 "$db" "SELECT count(*) || '|' || group_concat(DISTINCT status) FROM source_checks WHERE run_id = $run_id")" "5|PRESENT"
assert_eq "$(sqlite3 "$db" "SELECT count(*) || '/' || group_concat(id) FROM (SELECT id FROM source_checks WHERE run_id < $run_id ORDER BY id)")" "$rows_before" "earlier rows intact"
assert_eq "$(sqlite3 "$db" "PRAGMA integrity_check")" ok

# The history locked while a fetch is in flight, for longer than one busy
# timeout: the row waits out the lock (ISOTIER_BUSY_TIMEOUT_MS=2500, three
# attempts; the lock ends ~4 s after the row is ready) instead of being lost.
db4=$TMP/store.db
make_catalogue "$TMP/cat3" <<EOF2
afast|$base/page/present.html?n=fast|$q
bslow|$base/slow/3/present.html?n=slow|$q
EOF2
set +e
ISOTIER_BUSY_TIMEOUT_MS=2500 "$bin" sources check --catalogue "$TMP/cat3" --db "$db4" --jobs 2 --timeout 20 >"$TMP/lock.out" 2>&1 &
pid=$!
python3 - "$db4" <<'PY'
import sqlite3, sys, time
import os
# A deadline, not a count of polls: a busy host starts isotier late (the slow page
# waits 3 s after its request, so the fast row still comes first).
deadline = time.monotonic() + 30
while True:
    if time.monotonic() > deadline:
        sys.exit("the fast source was never stored (30 s)")
    if not os.path.exists(sys.argv[1]):  # let isotier create it
        time.sleep(0.02)
        continue
    try:
        c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
        n = c.execute("SELECT count(*) FROM source_checks").fetchone()[0]
        if n == 1:
            break
        if n > 1:
            sys.exit("both rows were stored before the lock could be taken")
    except sqlite3.OperationalError:
        pass
    time.sleep(0.02)
c.execute("BEGIN IMMEDIATE")  # the slow page arrives while this is held
time.sleep(7)
c.execute("COMMIT")
PY
lrc=$?
wait "$pid"
rc=$?
set -e
assert_eq "$lrc" 0 "locker"
assert_eq "$rc" 0 "lock waited out ($(cat "$TMP/lock.out"))"
assert_contains "$(cat "$TMP/lock.out")" "2 of 2 checked: 2 PRESENT, 0 CHANGED, 0 GONE, 0 UNREACHABLE; run 1 in $db4 (ok)"
assert_eq "$(sqlite3 "$db4" "SELECT count(*) FROM source_checks WHERE run_id = 1")" 2 "both rows stored"

# A write the history refuses (a trigger aborts every row after a run's first):
# the summary counts both sources as checked, like the table, and says one
# was NOT stored; the exit status is the database's (74: not a lock), and the
# run is marked failed.
sqlite3 "$db4" "CREATE TRIGGER refuse_second BEFORE INSERT ON source_checks
  WHEN (SELECT count(*) FROM source_checks WHERE run_id = NEW.run_id) >= 1
  BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END;"
set +e
"$bin" sources check --catalogue "$TMP/cat3" --db "$db4" --jobs 2 --timeout 20 >"$TMP/refuse.out" 2>"$TMP/refuse.err"
rc=$?
"$bin" sources check --catalogue "$TMP/cat3" --db "$db4" --jobs 2 --timeout 20 --json >"$TMP/refuse.json" 2>/dev/null
rc2=$?
set -e
assert_eq "$rc" 74 "a refused row ($(cat "$TMP/refuse.out" "$TMP/refuse.err"))"
assert_eq "$rc2" 74 "a refused row, --json"
out=$(cat "$TMP/refuse.out")
assert_contains "$out" "2 of 2 checked: 2 PRESENT, 0 CHANGED, 0 GONE, 0 UNREACHABLE; 1 NOT stored; run 2 in $db4 (failed)"
assert_eq "$(grep -c '^PRESENT' <<<"$out")" 2 "both sources in the table"
assert_eq "$(grep -c 'NOT stored]' <<<"$out")" 1 "the unstored one marked in the table"
assert_contains "$(cat "$TMP/refuse.err")" "refused by the test trigger"
assert_eq "$(sqlite3 "$db4" "SELECT status || ' ' || (finished_at IS NOT NULL) FROM runs WHERE id = 2")" "failed 1" "run 2 finished"
assert_eq "$(sqlite3 "$db4" "SELECT count(*) FROM source_checks WHERE run_id = 2")" 1 "one row stored"
python3 - "$TMP/refuse.json" <<'PY' || fail "--json counts: $(cat "$TMP/refuse.json")"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["counts"]
assert (c["checked"], c["PRESENT"], c["unchecked"], c["not_stored"]) == (2, 2, 0, 1), c
assert sorted(s["stored"] for s in d["sources"]) == [False, True], d["sources"]
assert d["status"] == "failed", d
PY
# A page nested past libxml2's default depth limit (256) before the quote:
# the parser must read it all, not report drift.
make_catalogue "$TMP/deepcat" <<EOF2
deep|$base/page/deep.html|$q - with a dedicated kernel.
EOF2
set +e
out=$("$bin" sources check --catalogue "$TMP/deepcat" --db "$TMP/deep.db" --timeout 5 2>&1)
rc=$?
set -e
assert_eq "$rc" 0 "300 nested <div>s: $out"
assert_contains "$out" "PRESENT     deep"
echo "sources_check: all statuses, history rows, the interrupted run and database failures verified"
