#!/usr/bin/env bash
# isotier-test: slow
# SPDX-License-Identifier: Apache-2.0
# Streaming history commands keep their memory bounded whatever the history's
# size (issue #24): over a generated history of 20,000 realistic observations
# (~170 MB: probe documents of several KB, 23-61 KB evidence stored once by
# hash), `history --limit 0 --json`, `history export`, `history --by-host` and
# the first page each stay under 48 MiB of RSS (measured by the kernel through
# /usr/bin/time, not by time). Holding the listing in memory, as before, took
# ~3.5 KB per row: 70 MB here. So does `report` in every format, and its RSS
# over the 20,000 observations is within 4 MiB of its RSS over 400: it holds
# only the observations it shows in full (verify/report/report_scan.c), where
# it used to hold every one (~0.6 KB a row: 11 MiB more here). The history
# also holds 50,000 source checks (a daily `sources check` of the catalogue's
# every catalogue source for 250 days) and 5,000 create() refusals among 15,000 other
# audit events: report holds each source's latest check and the newest 500
# refusals (verify/report/report_tables.c), where it held every row (44 MiB
# in all here, against 16 now), and JSON still carries every one.
. "$ISOTIER_ROOT/tests/lib.sh"

[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed (apt-get install time)"
command -v python3 >/dev/null || skip "python3 is not installed"
B=$ISOTIER_BIN
db=$TMP/big.db
echo '{"type":"header","schema":"isotier.history.export/1"}' >"$TMP/empty.jsonl"
"$B" history import --db "$db" "$TMP/empty.jsonl" >/dev/null || fail "create the history"
cat=$ISOTIER_ROOT/catalogue/providers
# 250 daily checks of every source (the catalogue's size moves; whole days keep the last day
# every source's latest).
nsrc=$(python3 -c 'import glob,json,sys; print(sum(len(json.load(open(f)).get("sources",[])) for f in glob.glob(sys.argv[1]+"/*.json")))' "$cat")
checks=$((nsrc * 250))
python3 "$ISOTIER_ROOT/tests/tools/history_gen.py" "$db" 20000 --checks "$checks" --catalogue "$cat" --refusals 5000 ||
  fail "generate the history"
limit_kb=$((48 * 1024))
rss() { # rss NAME CMD...: runs CMD, output to $TMP/out; checks its peak RSS
  local name=$1
  shift
  /usr/bin/time -f '%M' -o "$TMP/rss" "$@" >"$TMP/out" 2>"$TMP/err" || fail "$name: $(tail -c 400 "$TMP/err")"
  kb=$(tail -n 1 "$TMP/rss")
  [ "$kb" -lt "$limit_kb" ] || fail "$name: peak RSS $kb KB, over $limit_kb KB"
  # kb stays set for the caller (report's growth check)
  echo "$name: $kb KB"
}
rss "history --limit 0 --json" "$B" history --db "$db" --limit 0 --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["observations"])==20000, len(d["observations"])' "$TMP/out" ||
  fail "the streamed JSON is not the whole listing"
rss "history export" "$B" history export --db "$db"
assert_eq "$(grep -c '"type":"observation"' "$TMP/out")" 20000 "every observation exported"
assert_eq "$(grep -c '"type":"evidence"' "$TMP/out")" 64 "evidence exported once per content"
rss "history --by-host" "$B" history --db "$db" --by-host
assert_eq "$(grep -c '^host-' "$TMP/out")" 20 "4 hosts x 5 backends"
rss "history" "$B" history --db "$db"
assert_eq "$(wc -l <"$TMP/out")" 51 "the first page: 50 rows and a header"
small=$TMP/small.db
"$B" history import --db "$small" "$TMP/empty.jsonl" >/dev/null || fail "create the small history"
python3 "$ISOTIER_ROOT/tests/tools/history_gen.py" "$small" 400 --checks 200 --catalogue "$cat" --refusals 20 ||
  fail "generate the small history"
growth_kb=$((4 * 1024))
formats=$("$B" report --list-formats | cut -f1)
[ -n "$formats" ] || fail "report --list-formats lists no format"
for f in $formats; do
  # With the catalogue: each of its sources' latest check is looked up.
  rss "report --format $f (400 observations)" "$B" report --db "$small" --catalogue "$cat" --format "$f"
  base=$kb
  rss "report --format $f" "$B" report --db "$db" --catalogue "$cat" --format "$f"
  [ $((kb - base)) -lt "$growth_kb" ] ||
    fail "report --format $f: $kb KB over 20,000 observations, $base KB over 400: it grows with the history"
  case $f in
  html)
    grep -q '20000 observations; the newest 500 shown' "$TMP/out" || fail "the HTML log does not say what it shows"
    grep -q '5000 refusals by <code>isotier_create()</code>; newest 500 shown' "$TMP/out" ||
      fail "the HTML refusals do not say what they show"
    assert_eq "$(grep -c '<td>refused</td>' "$TMP/out")" 500 "the HTML shows the newest 500 refusals"
    ;;
  md) grep -q '^5000 refusals; newest 50 shown' "$TMP/out" || fail "the Markdown refusals do not say what they show" ;;
  json) python3 - "$TMP/out" "$checks" "$nsrc" <<'EOF' || fail "the JSON report does not carry every row"
import json, sys
d = json.load(open(sys.argv[1]))
checks, nsrc = int(sys.argv[2]), int(sys.argv[3])
assert len(d["observations"]) == 20000, len(d["observations"])
assert len(d["source_checks"]) == checks and d["database"]["source_checks"] == checks, len(d["source_checks"])
assert len(d["refusals"]) == 5000 and d["database"]["refusals"] == 5000, len(d["refusals"])
assert all(r["decision"] == "refused" for r in d["refusals"]), "a refusal that is not one"
assert d["refusals"] == sorted(d["refusals"], key=lambda r: (r["at"], r["id"])), "refusals out of order"
# Each source's latest check is the last day's (the history's newest, not one held before it).
last = max(c["checked_at"] for c in d["source_checks"])
latest = [s["latest_check"] for p in d["providers"] for s in p["sources"]]
assert len(latest) == nsrc and all(c and c["checked_at"] == last for c in latest), (last, len(latest), nsrc)
EOF
    ;;
  esac
done
echo "history: streaming commands bounded over 20,000 observations"
