# SPDX-License-Identifier: Apache-2.0
"""Reading the library's audit log back: what is not an event of the
library's is passed over, and a field that is missing or not a tier reads as
the lowest answer, never a higher one (the decisions' own records are in
test_gate.py and test_history.py, from the real library)."""

from __future__ import annotations

import json
from pathlib import Path

from isotier import AuditRecord, Tier
from isotier._audit import AuditTail, decision_record

REFUSAL = {
    "time": "2026-12-05T07:00:00Z",
    "event": "refuse",
    "sandbox_id": "0123456789abcdef",
    "backend": "runsc",
    "claimed_tier": "GVISOR",
    "resolved_tier": "GVISOR",
    "required_tier": "MICROVM",
    "effective_tier": "GVISOR",
    "decision": "refused",
    "reason": "backend runsc resolves to GVISOR, weaker than the required MICROVM: ok",
}


def test_a_record_reads_every_field() -> None:
    rec = AuditRecord.from_event(REFUSAL)
    assert (rec.event, rec.decision, rec.backend) == ("refuse", "refused", "runsc")
    assert (rec.requested, rec.effective, rec.claimed, rec.resolved) == (
        Tier.MICROVM, Tier.GVISOR, Tier.GVISOR, Tier.GVISOR)
    assert rec.refused and not rec.downgraded and rec.exit_status is None
    assert rec["reason"] == REFUSAL["reason"] and rec.get("absent", 7) == 7
    assert rec.as_dict() == REFUSAL


def test_what_is_not_a_tier_reads_as_unknown() -> None:
    rec = AuditRecord.from_event({**REFUSAL, "effective_tier": "HYPERVISOR", "claimed_tier": 3,
                                  "required_tier": None, "exit_status": True})
    assert rec.effective == Tier.UNKNOWN and rec.claimed == Tier.UNKNOWN
    assert rec.requested == Tier.UNKNOWN and rec.exit_status is None
    empty = AuditRecord.from_event({})
    assert (empty.event, empty.decision, empty.reason) == ("", "", "")
    assert empty.effective == Tier.UNKNOWN and not empty.refused


def test_the_effective_tier_is_never_above_the_resolved() -> None:
    rec = AuditRecord.from_event({**REFUSAL, "resolved_tier": "CONTAINER", "effective_tier": "MICROVM"})
    assert rec.effective == Tier.CONTAINER


def test_a_log_without_effective_tier() -> None:
    """A line written before the library named the effective tier: a failed
    attestation grants nothing; a refusal keeps what was resolved."""
    old = {k: v for k, v in REFUSAL.items() if k != "effective_tier"}
    assert AuditRecord.from_event(old).effective == Tier.GVISOR
    failed = AuditRecord.from_event({**old, "event": "attest", "decision": "attestation-failed"})
    assert failed.effective == Tier.UNKNOWN and failed.refused


def test_the_decision_record_is_the_last_refusal_or_failure() -> None:
    recs = [AuditRecord.from_event({**REFUSAL, "event": e, "decision": d})
            for e, d in (("create", "allowed"), ("attest", "attestation-failed"), ("destroy", "ok"))]
    assert decision_record(recs) is recs[1]
    assert decision_record(recs[:1]) is None and decision_record([]) is None


def test_the_tail_passes_over_what_is_not_an_event(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_text(json.dumps({"event": "before"}) + "\n")  # the caller's older lines
    seen: list[AuditRecord] = []
    tail = AuditTail(log, seen.append)
    with log.open("a") as f:
        f.write("not json\n[1, 2]\n\n" + "x" * (70 << 10) + "\n")
        f.write(json.dumps(REFUSAL) + "\n")
        f.write(json.dumps({**REFUSAL, "event": "destroy"})[:40])  # a line not finished yet
    new = tail.read()
    assert [r.event for r in new] == ["refuse"] and seen == new
    with log.open("a") as f:
        f.write(json.dumps({**REFUSAL, "event": "destroy"})[40:] + "\n")
    assert [r.event for r in tail.read()] == ["destroy"]
    assert [r.event for r in tail.records] == ["refuse", "destroy"] and len(seen) == 2
    tail.close()
    assert log.exists()  # the caller's log is the caller's


def test_an_unfinished_line_without_end_is_dropped(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    tail = AuditTail(log, None)
    log.write_bytes(b"{" + b" " * (80 << 10))
    assert tail.read() == []
    with log.open("a") as f:
        f.write("}\n" + json.dumps(REFUSAL) + "\n")
    assert [r.event for r in tail.read()] == ["refuse"]


def test_a_private_log_is_removed(tmp_path: Path) -> None:
    tail = AuditTail(None, None)
    own = Path(tail.path)
    own.write_text(json.dumps(REFUSAL) + "\n")
    assert [r.decision for r in tail.read()] == ["refused"]
    tail.close()
    assert not own.exists() and not own.parent.exists()
