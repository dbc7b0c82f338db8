#!/usr/bin/env bash
# isotier-test: normal; uses: challenge fhang
# SPDX-License-Identifier: Apache-2.0
# verify under faults, on real backends: a probe that hangs (killed at
# --timeout, nothing leaks), prints garbage (rejected), prints 100 MiB (capped,
# memory bounded); a backend binary missing (UNAVAILABLE, exit 69); no probe;
# a hostile capture directory.
. "$ISOTIER_ROOT/tests/lib.sh"

for tool in bwrap runc runsc sqlite3; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
faults=$ISOTIER_ROOT/$BUILD/tests
for m in hang garbage huge; do
  [ -x "$faults/fault-probe-$m" ] || fail "fault probe $m not built ($faults)"
done
# The hang marker is a fixed process name: serialize with any other run of this
# test on the machine (two `make test` at once) so each sees only its own.
exec 9>/tmp/isotier-verify-faults.lock
flock -w 600 9 || fail "another verify_faults run holds /tmp/isotier-verify-faults.lock"
db=$TMP/h.db
q() { sql "$db" "$1"; }
# Every temporary file of the run lives under a directory unique to this test:
# a process whose command line names it is one the run left behind.
# (Its own directory, not under $TMP: runsc needs every parent searchable by others.)
TMPDIR=$(mktemp -d /tmp/iv.XXXXXX)
chmod 755 "$TMPDIR" # runsc needs it searchable by others
export TMPDIR
trap 'rm -rf "$TMP" "$TMPDIR"' EXIT
live_with() { # live (non-zombie) processes whose command line ($1) or name ($2) matches
  local pid stat
  for pid in $(if [ "${2:-}" = comm ]; then pgrep -x -- "$1"; else pgrep -f -- "$1"; fi); do
    [ "$pid" = "$$" ] && continue
    stat=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || continue
    [ "$stat" = Z ] || echo "$pid"
  done
}
no_leaks() {
  local i
  for i in $(seq 1 50); do
    [ -z "$(live_with isotier-fhang comm)$(live_with "$TMPDIR")" ] && return 0
    sleep 0.1
  done
  ps -eo pid,ppid,stat,comm,args | grep -E 'isotier-fhang|'"$TMPDIR" | grep -v grep >&2 || true
  fail "processes left behind after $1"
}
[ -z "$(live_with isotier-fhang comm)" ] || fail "isotier-fhang processes exist before the test"

# 1. A probe that hangs (and forks, and ignores SIGTERM) in every container
#    backend and on the host: each is killed at --timeout 2.
start=$(date +%s)
set +e
ISOTIER_PROBE=$faults/fault-probe-hang "$ISOTIER_BIN" verify --backend bwrap --backend runc \
  --backend runsc --backend host --timeout 2 --jobs 4 --db "$db" --json >"$TMP/hang.json" 2>"$TMP/hang.err"
rc=$?
set -e
elapsed=$(($(date +%s) - start))
assert_eq "$rc" 70 "a hung probe exits 70 ($(cat "$TMP/hang.err"))"
[ "$elapsed" -lt 30 ] || fail "timeout 2 s took ${elapsed}s"
no_leaks "the hung probe"
python3 - "$TMP/hang.json" <<'EOF' || fail "hang results: $(cat "$TMP/hang.json")"
import json, sys
d = json.load(open(sys.argv[1]))
rs = {r["backend"]: r for r in d["results"]}
assert sorted(rs) == ["bwrap", "host", "runc", "runsc"], sorted(rs)
for b, r in rs.items():
    assert r["verdict"] == "INCONCLUSIVE", (b, r)
    assert "timed out after 2 s" in r["reason"], (b, r["reason"])
    assert r["recorded"] is True, b
EOF
assert_eq "$(q "SELECT count(*) FROM observations WHERE verdict = 'INCONCLUSIVE' AND reason LIKE '%timed out%'")" 4 "hung probes recorded"
assert_eq "$(q "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" failed "run status"
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left: $(ls -A "$TMPDIR")"

# 2. Garbage on stdout: rejected cleanly, recorded INCONCLUSIVE with the raw bytes, exit 65.
set +e
ISOTIER_PROBE=$faults/fault-probe-garbage "$ISOTIER_BIN" verify --backend bwrap --db "$db" --json >"$TMP/g.json" 2>"$TMP/g.err"
rc=$?
set -e
assert_eq "$rc" 65 "garbage exits 65 ($(cat "$TMP/g.err"))"
assert_eq "$(json_get "$TMP/g.json" results.0.verdict)" INCONCLUSIVE "garbage verdict"
assert_contains "$(json_get "$TMP/g.json" results.0.reason)" "probe output rejected: document: not JSON"
assert_eq "$(q "SELECT verdict || ' ' || observed_tier || ' ' || length(probe_json) FROM observations ORDER BY id DESC LIMIT 1")" "INCONCLUSIVE UNKNOWN $(($("$faults/fault-probe-garbage" | wc -c)))" "garbage row keeps the raw output"

# 3. 100 MiB on stdout: capped at 1 MiB, drained, memory stays small.
set +e
ISOTIER_PROBE=$faults/fault-probe-huge /usr/bin/time -f '%M' -o "$TMP/rss" \
  "$ISOTIER_BIN" verify --backend bwrap --backend host --db "$db" --json >"$TMP/h.json" 2>"$TMP/h.err"
rc=$?
set -e
assert_eq "$rc" 65 "100 MiB exits 65 ($(cat "$TMP/h.err"))"
rss_kb=$(tail -n 1 "$TMP/rss")
[ "$rss_kb" -lt 65536 ] || fail "verify used ${rss_kb} KiB for a 100 MiB probe output"
for i in 0 1; do
  assert_contains "$(json_get "$TMP/h.json" results.$i.reason)" "output larger than 1048576 bytes"
done
[ "$(q "SELECT max(length(probe_json)) FROM observations")" -le 1048576 ] || fail "stored more than the cap"
no_leaks "the 100 MiB probe"

# 4. A backend binary missing: PATH holds bwrap but no runc.
mkdir -p "$TMP/bin"
ln -s "$(command -v bwrap)" "$TMP/bin/bwrap"
set +e
PATH=$TMP/bin "$ISOTIER_BIN" verify --backend runc --db "$db" --json >"$TMP/u.json" 2>"$TMP/u.err"
rc=$?
set -e
assert_eq "$rc" 69 "runc missing, explicitly requested ($(cat "$TMP/u.err"))"
assert_eq "$(json_get "$TMP/u.json" results.0.verdict)" UNAVAILABLE "runc verdict"
assert_contains "$(json_get "$TMP/u.json" results.0.reason)" "runc not found"
assert_eq "$(q "SELECT verdict FROM observations ORDER BY id DESC LIMIT 1")" UNAVAILABLE "UNAVAILABLE recorded"
set +e
PATH=$TMP/bin "$ISOTIER_BIN" verify --backend bwrap --backend runc --db "$db" --json >"$TMP/u2.json" 2>/dev/null
rc=$?
set -e
assert_eq "$rc" 69 "one of two requested unavailable"
assert_eq "$(json_get "$TMP/u2.json" results.0.verdict)" CONFIRMED "bwrap still judged"
# A contradiction outranks the failure: bwrap CONTRADICTED + runc UNAVAILABLE is exit 1.
set +e
PATH=$TMP/bin ISOTIER_PROBE=$faults/fault-probe-none "$ISOTIER_BIN" verify --backend bwrap --backend runc --db "$db" >/dev/null 2>&1
rc=$?
set -e
assert_eq "$rc" 1 "CONTRADICTED and UNAVAILABLE together"
assert_eq "$(q "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" failed "that run did not judge everything"
assert_eq "$(q "SELECT group_concat(backend || '=' || verdict, ' ') FROM (SELECT backend, verdict FROM observations WHERE run_id = (SELECT max(id) FROM runs) ORDER BY backend)")" "bwrap=CONTRADICTED runc=UNAVAILABLE" "both recorded"
# --all: an unavailable backend is reported, and fails the run only when every one is.
set +e
PATH=$TMP/bin "$ISOTIER_BIN" verify --all --db "$db" --json >"$TMP/u3.json" 2>/dev/null
rc=$?
set -e
python3 - "$TMP/u3.json" <<'EOF' || fail "--all without runc: $(cat "$TMP/u3.json")"
import json, sys
rs = {r["backend"]: r["verdict"] for r in json.load(open(sys.argv[1]))["results"]}
assert rs["runc"] == "UNAVAILABLE" and rs["runsc"] == "UNAVAILABLE", rs
assert rs["bwrap"] == "CONFIRMED", rs
EOF
assert_eq "$rc" 0 "--all with some backends unavailable"
mkdir -p "$TMP/empty"
set +e
PATH=$TMP/empty "$ISOTIER_BIN" verify --backend bwrap --backend runc --backend runsc --backend qemu-microvm --db "$db" >/dev/null 2>&1
assert_eq "$?" 69 "nothing available"
# 5. No probe at all.
ISOTIER_PROBE=$TMP/no-such-probe "$ISOTIER_BIN" verify --backend bwrap --db "$db" >/dev/null 2>"$TMP/np.err"
assert_eq "$?" 69 "missing probe"
set -e
assert_contains "$(cat "$TMP/np.err")" "no-such-probe"
# 6. A hostile capture directory: the evidence archive stores the symlink as a
#    link (never /etc/shadow's bytes), skips the fifo, the 8 MiB file (over the
#    4 MiB budget) and the unrepresentable name, and stops at 16 levels.
[ -x "$faults/fault-probe-evil" ] || fail "fault probe evil not built"
set +e
ISOTIER_PROBE=$faults/fault-probe-evil "$ISOTIER_BIN" verify --backend bwrap --backend host --db "$db" --json >"$TMP/e.json" 2>"$TMP/e.err"
rc=$?
set -e
assert_eq "$rc" 1 "a NONE observation contradicts bwrap's claim ($(cat "$TMP/e.err"))"
for b in bwrap host; do
  q "SELECT writefile('$TMP/$b-evil.tar', COALESCE(evidence, (SELECT content FROM evidence_blobs e WHERE e.sha256 = observations.evidence_sha256))) FROM observations WHERE backend = '$b' ORDER BY id DESC LIMIT 1" >/dev/null
  python3 - "$TMP/$b-evil.tar" <<'EOF' || fail "$b: hostile capture archived wrongly"
import sys, tarfile
t = tarfile.open(sys.argv[1])
m = {x.name.rstrip("/"): x for x in t.getmembers()}
assert m["shadow"].issym() and m["shadow"].linkname == "/etc/shadow" and m["shadow"].size == 0, m["shadow"]
assert t.extractfile("ok.txt").read() == b"fine\n"
assert "fifo" not in m and "big" not in m, sorted(m)
assert not any(len(n) > 200 for n in m), "long name kept"
depth = max(n.count("/") + 1 for n in m if n.startswith("d"))
assert depth == 16, depth
EOF
done
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left: $(ls -A "$TMPDIR")"

# 7. Usage errors: an unknown backend name is 64 (as in `run`), and --help's
#    usage line is well formed.
set +e
"$ISOTIER_BIN" verify --backend nosuch --db "$db" >/dev/null 2>"$TMP/ns.err"
rc=$?
set -e
assert_eq "$rc" 64 "verify --backend nosuch"
assert_contains "$(cat "$TMP/ns.err")" "unknown backend 'nosuch'"
usage_line=$("$ISOTIER_BIN" verify --help | sed -n 1p) # sed reads it all: head may exit before the help is written (SIGPIPE, 141)
assert_contains "$usage_line" "usage: isotier verify [--backend NAME]... | --all [--db PATH]"
[ "$(tr -cd '[' <<<"$usage_line" | wc -c)" = "$(tr -cd ']' <<<"$usage_line" | wc -c)" ] ||
  fail "unbalanced brackets in: $usage_line"

assert_eq "$(q "PRAGMA integrity_check")" ok "integrity"
echo "faults ok"
