#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# exit_tables.sh - the runbook's exit-code table (runbook/jobs.md "Exit status")
# matches what the code returns: every status the job's steps document in their
# --help (verify, sources check, report, history prune: the job passes the
# first failing one through), every sysexits code of verify/cmd/cli.h and
# every literal exit of the job script falls in a row of the table, and every
# row names codes the code can return.
. "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
JOB=$R/runbook/jobs/isotier-reverify.sh

python3 - "$R/runbook/jobs.md" "$R/verify/cmd/cli.h" "$JOB" \
  "$("$ISOTIER_BIN" verify --help)" "$("$ISOTIER_BIN" sources check --help)" \
  "$("$ISOTIER_BIN" report --help)" "$("$ISOTIER_BIN" sweep --help)" \
  "$("$ISOTIER_BIN" history prune --help)" <<'PY' || fail "exit-code tables"
import re, sys
md, cli_h, job = (open(p).read() for p in sys.argv[1:4])
helps = sys.argv[4:]
# The table's rows: the first cell's codes, ranges expanded.
section = md.split("## Exit status", 1)[1].split("\n## ", 1)[0]
documented = set()
for line in section.splitlines():
    if not line.startswith("| ") or line.startswith("| exit") or line.startswith("|---"):
        continue
    cell = line.split("|")[1].replace("*", "")
    for part in cell.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)-(\d+)", part)
        if m:
            documented |= set(range(int(m[1]), int(m[2]) + 1))
        elif part.isdigit():
            documented.add(int(part))
assert {0, 1, 2} <= documented, documented
# What the steps say they return (their --help epilogue: "Exit..." to the end).
said = set()
for h in helps:
    tail = h[h.index("Exit"):] if "Exit" in h else ""
    said |= {int(n) for n in re.findall(r"(?<![\w%.-])(\d{1,3})(?![\w%])", tail)
             if int(n) in (0, 1, 2) or 64 <= int(n) <= 165}
missing = sorted(said - documented)
assert not missing, "codes the steps return that runbook/jobs.md's table does not list: %s" % missing
# Every sysexits code the CLI has.
cli = {int(v) for v in re.findall(r"EXIT_\w+ = (\d+)", cli_h)}
missing = sorted(c for c in cli if c not in documented and c != 143)
assert not missing, "cli.h codes not in the table: %s" % missing
# The job's own literal exits.
lit = {int(v) for v in re.findall(r"\bexit (\d+)", re.sub(r"#.*", "", job))}
lit |= {int(v) for v in re.findall(r"_rc=(\d+)", job)}
missing = sorted(lit - documented)
assert not missing, "the job's own exits not in the table: %s" % missing
# And the table claims nothing the code never returns (the range aside).
for c in documented - set(range(64, 79)):
    assert c in said | cli | lit | {0, 1, 2}, "the table lists %d, which nothing returns" % c
print("documented:", sorted(documented))
PY
echo "ok: runbook/jobs.md's exit table covers every code the job and its steps return"
