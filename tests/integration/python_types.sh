#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# The Python package's type hints are complete (it ships py.typed): Debian's mypy --strict
# finds no issue in python/isotier, and a typed caller of the public API (a refusal's audit
# record, a grant's, a sandbox's) checks against it, while a caller that misuses a record's
# fields is caught (so the check can fail).
. "$ISOTIER_ROOT/tests/lib.sh"
py=${ISOTIER_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || skip "$py missing (scripts/deps.sh installs python3)"
"$py" -m mypy --version >/dev/null 2>&1 || skip "mypy missing for $py (scripts/deps.sh installs python3-mypy)"
export MYPYPATH=$ISOTIER_ROOT/python PYTHONDONTWRITEBYTECODE=1
mypy() { timeout 300 "$py" -m mypy --strict --no-error-summary --cache-dir "$TMP/mypy-cache" "$@"; }
mypy -p isotier >"$TMP/package.out" 2>&1 || fail "mypy --strict python/isotier: $(head -40 "$TMP/package.out")"

cat >"$TMP/caller.py" <<'PY'
import isotier
from isotier import AuditRecord, Tier


def refused(backend: str) -> tuple[Tier, Tier, str] | None:
    try:
        isotier.require(backend, Tier.MICROVM, attest=False)
    except isotier.RefusedError as e:
        rec: AuditRecord | None = e.record
        return (rec.requested, rec.effective, rec.reason) if rec else None
    return None


def granted(backend: str) -> bool:
    with isotier.create(backend, require="CONTAINER", on_audit=lambda r: print(r.decision)) as sb:
        rec = sb.record
        return rec is not None and not rec.downgraded and sb.audit[0].effective >= Tier.CONTAINER
PY
mypy "$TMP/caller.py" >"$TMP/caller.out" 2>&1 || fail "a typed caller: $(head -40 "$TMP/caller.out")"

# A record's tiers are Tiers and its reason a str: using them otherwise is an error mypy reports.
cat >"$TMP/wrong.py" <<'PY'
import isotier


def wrong(e: isotier.RefusedError) -> int:
    assert e.record is not None
    return e.record.reason + e.record.effective.name.upper()
PY
! mypy "$TMP/wrong.py" >"$TMP/wrong.out" 2>&1 || fail "mypy accepted a misuse of AuditRecord"
assert_contains "$(cat "$TMP/wrong.out")" "Incompatible return value type" "mypy on a misuse"
echo "ok: mypy --strict: python/isotier and a typed caller; a misuse caught"
