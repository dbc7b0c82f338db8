#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/churn.sh - `isotier churn` over a generated catalogue history of 2,000
# commits and 100 providers (git fast-import builds it in about a second).
# Every commit edits one provider file; every 20th changes a tier or
# mechanism (of a different provider each time) and logs it in CHURN.md in the
# same commit, so the check passes with ~99 logged changes to match.
# Target (issue 6): `isotier churn --since <first commit>` <= 1 s; `churn log`'s peak RSS
# does not grow with the commits (issue #24; CHURN_BENCH_COMMITS=20000 to see it).
set -euo pipefail
# BENCH_QUICK=1 (make test): one run of everything, tiny inputs; checks the bench works, no figures.
q() { if [ -n "${BENCH_QUICK:-}" ]; then echo "$2"; else echo "$1"; fi; }
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/${BUILD:-build}/isotier"
[ -x "$bin" ] || { echo "bench/churn: no $bin; run make first" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench/churn: hyperfine not installed" >&2; exit 1; }
tmp=$(mktemp -d /tmp/isotier-bench-churn.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
commits=${CHURN_BENCH_COMMITS:-$(q 2000 60)} providers=${CHURN_BENCH_PROVIDERS:-$(q 100 5)}

git init -q -b main "$tmp/repo"
python3 - "$commits" "$providers" <<'EOF' | git -C "$tmp/repo" fast-import --quiet
import json, sys
commits, providers = int(sys.argv[1]), int(sys.argv[2])
claims = [("CONTAINER", "runc"), ("GVISOR", "gvisor"), ("MICROVM", "firecracker"), ("MICROVM", "kata")]
state = {f"p{i:03d}": [claims[i % 4], 0] for i in range(providers)}
churn = ["# Churn log\n\n## Entries\n"]
out = sys.stdout.buffer
def blob(data):
    data = data.encode()
    out.write(b"data %d\n" % len(data) + data + b"\n")
def doc(pid):
    (tier, mech), rev = state[pid]
    return json.dumps({"id": pid, "name": f"Provider {pid}", "kind": "remote", "tier": tier,
                       "mechanism": mech, "since": "2026-01-01", "sources": [], "history": [],
                       "notes": f"revision {rev} " + "x" * 400}, indent=2) + "\n"
t = 1_700_000_000
for n in range(commits):
    out.write(b"commit refs/heads/main\n")
    out.write(b"committer bench <bench@example.org> %d +0000\n" % (t + n * 60))
    blob(f"commit {n}")
    files = {}
    if n == 0:
        for pid in state:
            files[pid] = doc(pid)
        files["CHURN.md"] = "".join(churn)
    else:
        tier_change = n % 20 == 0
        pid = f"p{(n // 20 if tier_change else n) % providers:03d}"
        state[pid][1] += 1
        if tier_change:
            old = state[pid][0]
            new = claims[(claims.index(old) + 1) % 4]
            state[pid][0] = new
            churn.append(f"\n### 2026-01-{1 + n % 28:02d} \u2014 {pid}: {old[0]}/{old[1]} \u2192 "
                         f"{new[0]}/{new[1]}\n- Source: https://example.org/{pid}/{n}\n"
                         f"- Note: generated change {n}.\n")
            files["CHURN.md"] = "".join(churn)
        files[pid] = doc(pid)
    for name, data in files.items():
        path = name if name == "CHURN.md" else f"catalogue/providers/{name}.json"
        out.write(f"M 100644 inline {path}\n".encode())
        blob(data)
EOF
cd "$tmp/repo"
first=$(git rev-list --max-parents=0 HEAD)
echo "history: $(git rev-list --count HEAD) commits, $(git ls-tree --name-only HEAD catalogue/providers/ | wc -l) providers, $(git show HEAD:CHURN.md | grep -c '^### ') CHURN.md entries"
"$bin" churn --since "$first" | tail -n 1
"$bin" churn log --since "$first" | grep -c '^  ' | sed 's/^/churn log events: /'
# Peak RSS of the whole timeline (issue #24: bounded, not growing with the commits).
if [ -x /usr/bin/time ]; then
  for fmt in "" --json; do
    /usr/bin/time -f "churn log${fmt:+ $fmt}: peak RSS %M KB, %e s" -o "$tmp/rss" "$bin" churn log $fmt >/dev/null
    cat "$tmp/rss"
  done
fi
hyperfine --warmup "$(q 2 0)" --min-runs "$(q 10 1)" --max-runs "$(q 1000 1)" \
  -n "churn --since first (2 revisions)" "$bin churn --since $first" \
  -n "churn log (first-parent walk, $commits commits)" "$bin churn log" \
  --export-json "$tmp/hf.json"
python3 - "$tmp/hf.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
verdict = "within" if r["mean"] <= 1.0 else "OVER"
print(f"churn --since first: mean {r['mean'] * 1000:.1f} ms, {verdict} the 1 s target")
EOF
