#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# attest_checks_table.sh - runbook/attestation.md's check table ("The checks,
# beside the reference verifiers") is the verifier's: each row says what
# go-sev-guest, Trustee and isotier do (four cells, none empty); every check
# name reference/attestation/attest*.c can refuse with ("SNP report.policy", "TDX
# quote.qe_report.isvsvn", "TDX collateral"...) is named in the isotier
# column, and every name there is one the code uses; every collateral file
# the verifier reads, and the QE identity's row, are there; every
# ISOTIER_ATTEST_* setting the code reads is in the runbook.
. "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT

python3 - "$R/runbook/attestation.md" "$R"/reference/attestation/attest*.c <<'PY' || fail "attestation check table"
import re, sys
md = open(sys.argv[1]).read()
code = "".join(open(p).read() for p in sys.argv[2:])
section = md.split("## The checks, beside the reference verifiers", 1)[1].split("\n## ", 1)[0]
# The first table of the section (the shipped minimum's follows it).
lines = section.splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("| check |"))
rows = []
for l in lines[start:]:
    if not l.startswith("|"):
        break
    rows.append(l)
assert rows and rows[0].replace(" ", "") == "|check|go-sev-guest|Trustee|isotier|", rows[:1]
assert set(rows[1].replace("|", "").replace("-", "").strip()) == set(), rows[1]
rows = rows[2:]
# A cell may hold a `|` only escaped; none does here.
cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
for r, c in zip(rows, cells):
    assert len(c) == 4 and all(c), "a row without its four cells: %s" % r
isotier = " ".join(c[3] for c in cells)
# The names a refusal starts with, from the code's string literals.
name = r"(?:SNP|TDX)(?: report| quote(?: v5)?| key certificate| collateral| minimum TCB)?(?:\.[a-z0-9_%]+)*"
literals = re.findall(r'"((?:[^"\\]|\\.)*)"', code)
used = set()
for lit in literals:
    m = re.match(name + r"(?=[: ])", lit)
    if m:
        used.add(m.group(0).replace("%d", "N"))
assert {"SNP report.policy", "TDX quote.pck_chain", "TDX collateral",
        "TDX quote.qe_report.isvsvn", "SNP minimum TCB"} <= used, sorted(used)
named = {n for n in re.findall(r"`(" + name.replace("a-z0-9_%", "a-z0-9_N") + r")`", isotier)}
missing = sorted(used - named)
assert not missing, "checks the verifier refuses with that the table does not name: %s" % missing
stray = sorted(named - used)
assert not stray, "names in the table the verifier never uses: %s" % stray
# The collateral files the verifier reads.
files = {f for lit in literals for f in re.findall(r"(?<![\w%])([a-z_]+\.(?:json|pem))\b", lit)
         if not f.startswith(("intel_", "amd_"))} | {"pck_crl", "root_crl"}
assert {"tcb_info.json", "qe_identity.json", "tcb_signing_chain.pem"} <= files, files
for f in files:
    assert "`%s`" % f in isotier, "collateral file %s not in the table" % f
qe = [c for c in cells if c[0].startswith("QE identity")]
assert len(qe) == 1 and "qe_identity.json" in qe[0][3] and "not evaluated" not in qe[0][3].split(";")[0], qe
# Every setting the verifier reads is documented.
for var in sorted(set(re.findall(r'"(ISOTIER_ATTEST_[A-Z0-9_]+)"', code))):
    assert "`%s`" % var in md, "%s is read but not in runbook/attestation.md" % var
print("%d checks, %d names, %d collateral files" % (len(cells), len(named), len(files)))
PY
echo "ok: runbook/attestation.md's check table names every check the verifier makes"
