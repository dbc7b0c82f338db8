#!/usr/bin/env bash
# isotier-test: slow
# SPDX-License-Identifier: Apache-2.0
# `churn log` keeps its memory bounded whatever the catalogue history's length
# (issue #24): over a generated first-parent history of 20,000 commits and 100
# providers (git fast-import builds it), where every commit edits a provider
# file and every second one changes a tier (10,099 events), `churn log` and
# `churn log --json` each stay under 48 MiB of peak RSS, and walking all 20,000
# commits costs at most 8 MiB more than walking the oldest 5,000 (measured by
# the kernel through /usr/bin/time, not by time). Holding the timeline and
# libgit2's default caches, as before, took 251 MB here and grew ~12 KB per
# commit.
. "$ISOTIER_ROOT/tests/lib.sh"

[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed (apt-get install time)"
command -v git >/dev/null || skip "git CLI not installed: it builds the history"
command -v python3 >/dev/null || skip "python3 is not installed"
B=$ISOTIER_BIN
R=$TMP/repo
git init -q -b main "$R"
python3 - 20000 100 <<'EOF' | git -C "$R" fast-import --quiet || fail "generate the history"
import json, sys
commits, providers = int(sys.argv[1]), int(sys.argv[2])
claims = [("CONTAINER", "runc"), ("GVISOR", "gvisor"), ("MICROVM", "firecracker"), ("MICROVM", "kata")]
state = {f"p{i:03d}": [claims[i % 4], 0] for i in range(providers)}
out = sys.stdout.buffer
def blob(data):
    data = data.encode()
    out.write(b"data %d\n" % len(data) + data + b"\n")
def doc(pid):
    (tier, mech), rev = state[pid]
    return json.dumps({"id": pid, "name": f"Provider {pid}", "kind": "remote", "tier": tier,
                       "mechanism": mech, "since": "2026-01-01", "sources": [], "history": [],
                       "notes": f"revision {rev} " + "x" * 60}, indent=2) + "\n"
for n in range(commits):
    out.write(b"commit refs/heads/main\ncommitter gen <gen@example.org> %d +0000\n"
              % (1_700_000_000 + n * 60))
    blob(f"commit {n}")
    if n == 0:
        changed = list(state)
    else:
        changed = [f"p{n % providers:03d}"]
        state[changed[0]][1] += 1
        if n % 2 == 0:
            state[changed[0]][0] = claims[(claims.index(state[changed[0]][0]) + 1) % 4]
    for pid in changed:
        out.write(f"M 100644 inline catalogue/providers/{pid}.json\n".encode())
        blob(doc(pid))
EOF
cd "$R"
limit_kb=$((48 * 1024))
# rss NAME ARGS...: `isotier churn ARGS`, output in $TMP/out, peak RSS in $kb.
rss() {
  local name=$1
  shift
  /usr/bin/time -f '%M' -o "$TMP/rss" "$B" churn "$@" >"$TMP/out" 2>"$TMP/err" ||
    fail "$name: $(tail -c 400 "$TMP/err")"
  kb=$(tail -n 1 "$TMP/rss")
  echo "$name: $kb KB"
}
rss "churn log (5,000 commits)" log --until HEAD~15000
small=$kb
rss "churn log (20,000 commits)" log
[ "$kb" -lt "$limit_kb" ] || fail "churn log: peak RSS $kb KB, over $limit_kb KB"
[ $((kb - small)) -lt $((8 * 1024)) ] ||
  fail "churn log: $((kb - small)) KB more for 15,000 more commits: memory grows with the history"
# 100 provider headings, 99 blank lines between them, one line per event.
assert_eq "$(grep -c '^  ' "$TMP/out")" 10099 "every event in the text"
assert_eq "$(wc -l <"$TMP/out")" 10298 "the text's lines"
assert_eq "$(sed -n '1,3p' "$TMP/out")" "p000
  $(git rev-parse --short=12 HEAD~19999)  2023-11-14 22:13:20Z  added          CONTAINER/runc
  $(git rev-parse --short=12 HEAD~19899)  2023-11-14 23:53:20Z  tier+mechanism CONTAINER/runc → GVISOR/gvisor" \
  "grouped by provider, oldest first"
rss "churn log --json" log --json
[ "$kb" -lt "$limit_kb" ] || fail "churn log --json: peak RSS $kb KB, over $limit_kb KB"
python3 - "$TMP/out" <<'EOF' || fail "the streamed JSON is not the whole timeline"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["events"]
assert len(ev) == 10099 and d["skipped"] == [], (len(ev), d["skipped"])
assert [e["kind"] for e in ev[:100]] == ["added"] * 100
assert all(e["kind"] in ("tier+mechanism", "tier", "mechanism") for e in ev[100:])
assert [e["date"] for e in ev] == sorted(e["date"] for e in ev), "not oldest first"
EOF
echo "churn_rss: churn log bounded over 20,000 commits"
