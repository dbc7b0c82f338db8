# SPDX-License-Identifier: Apache-2.0
"""The gate through the package: a refusal starts nothing, a grant attests,
a created sandbox runs commands and goes away, every decision is audited."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import isotier
from isotier import Tier

pytestmark = pytest.mark.skipif(not shutil.which("bwrap"), reason="bwrap is not installed")


def test_refusal_starts_nothing_and_is_audited(tmp_path: Path, history: Path) -> None:
    seen: list[isotier.AuditRecord] = []
    sandboxes = tmp_path / "tmp"
    sandboxes.mkdir()
    os.environ["TMPDIR"] = str(sandboxes)
    try:
        with pytest.raises(isotier.RefusedError) as e:
            isotier.require("bwrap", Tier.MICROVM, db=history, on_audit=seen.append,
                            audit_log=tmp_path / "audit.jsonl")
    finally:
        del os.environ["TMPDIR"]
    err = e.value
    assert err.code == isotier.ECONFIG and err.exit_class == 78
    assert err.requested_tier == Tier.MICROVM and err.effective_tier == Tier.CONTAINER
    assert "weaker than the required MICROVM" in err.reason
    assert [ev["event"] + ":" + ev["decision"] for ev in err.audit] == ["refuse:refused"]
    assert seen == err.audit
    ev = err.audit[0]
    assert ev["backend"] == "bwrap" and ev["required_tier"] == "MICROVM"
    assert ev["resolved_tier"] == "CONTAINER" and ev["reason"]
    # The refusal's record, typed: requested, effective tier and reason as the library wrote them.
    rec = err.record
    assert isinstance(rec, isotier.AuditRecord) and rec is err.audit[0]
    assert (rec.event, rec.decision, rec.backend) == ("refuse", "refused", "bwrap")
    assert rec.requested == Tier.MICROVM and rec.effective == Tier.CONTAINER
    assert rec.claimed == Tier.CONTAINER and rec.refused and not rec.downgraded
    assert rec["effective_tier"] == "CONTAINER" and rec.reason == err.reason
    assert rec.sandbox_id and rec.time and rec.exit_status is None
    # The caller's log has the same line, and nothing was provisioned.
    lines = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert lines == [r.as_dict() for r in err.audit]
    assert list(sandboxes.iterdir()) == []


def test_a_higher_tier_without_proof_is_refused_at_container(variant, history: Path) -> None:
    """bwrap claimed as gVisor, no history: it resolves to GVISOR, but GVISOR
    asked without attest (or trust_history) is refused; the record's effective
    tier is CONTAINER, what the same request gets without a proof."""
    claimed = variant("bubblewrap", "claim=GVISOR/gvisor")
    assert isotier.resolve("bwrap", catalogue=claimed, db=history).tier == Tier.GVISOR
    with pytest.raises(isotier.RefusedError) as e:
        isotier.require("bwrap", Tier.GVISOR, attest=False, catalogue=claimed, db=history)
    rec = e.value.record
    assert rec is not None and rec.decision == "refused" and "trust_history" in rec.reason
    assert rec.requested == Tier.GVISOR and rec.resolved == Tier.GVISOR
    assert rec.effective == Tier.CONTAINER and e.value.effective_tier == Tier.CONTAINER


def test_grant_attests_and_tears_down(history: Path) -> None:
    grant = isotier.require("bwrap", "CONTAINER", db=history)
    assert grant.tier == Tier.CONTAINER and grant.required == Tier.CONTAINER and grant.attested
    kinds = [ev["event"] + ":" + ev["decision"] for ev in grant.audit]
    assert kinds == ["create:allowed", "attest:attested", "destroy:ok"], kinds
    assert "backend=bwrap" in grant.repr
    assert grant.claimed == Tier.CONTAINER and not grant.downgraded
    rec = grant.record
    assert rec is not None and (rec.event, rec.decision) == ("create", "allowed")
    assert rec.requested == Tier.CONTAINER and rec.effective == Tier.CONTAINER and rec.reason
    assert not rec.refused and not rec.downgraded
    assert all(r.effective == Tier.CONTAINER and r.sandbox_id == rec.sandbox_id for r in grant.audit)


def test_a_downgrade_is_audited(variant, history: Path) -> None:
    """bwrap claimed GVISOR, contradicted by a real verification: a create
    without a requirement gets the downgraded tier (UNKNOWN), and its audit
    event says claimed GVISOR, resolved UNKNOWN and why."""
    lying = variant("bubblewrap", "claim=GVISOR/gvisor")
    v = isotier.verify("bwrap", catalogue=lying, db=history)
    assert v.verdict == "CONTRADICTED", v
    seen: list[isotier.AuditRecord] = []
    with isotier.create("bwrap", catalogue=lying, db=history, on_audit=seen.append) as sb:
        assert sb.tier == Tier.UNKNOWN
        rec = sb.record
        assert rec is not None and seen == [rec]
    ev = sb.audit[0]
    assert ev["event"] == "create" and ev["claimed_tier"] == "GVISOR" and ev["resolved_tier"] == "UNKNOWN"
    assert "CONTRADICTED" in ev["reason"]
    # The downgrade's record: no requirement, effective UNKNOWN below the claim, and why.
    assert (rec.event, rec.decision) == ("create", "allowed") and rec.downgraded and not rec.refused
    assert rec.requested == Tier.UNKNOWN and rec.effective == Tier.UNKNOWN and rec.claimed == Tier.GVISOR
    assert "CONTRADICTED" in rec.reason and rec["effective_tier"] == "UNKNOWN"
    # The same history refuses a requirement: the refusal's record carries the downgrade.
    with pytest.raises(isotier.RefusedError) as e:
        isotier.require("bwrap", Tier.CONTAINER, attest=False, catalogue=lying, db=history)
    refusal = e.value.record
    assert refusal is not None and refusal.refused and refusal.downgraded
    assert refusal.requested == Tier.CONTAINER and refusal.effective == Tier.UNKNOWN
    assert refusal.claimed == Tier.GVISOR and "CONTRADICTED" in refusal.reason


def test_create_runs_commands_in_the_sandbox(history: Path) -> None:
    marker = f"isotier-py-{os.getpid()}"
    with isotier.create("bwrap", require=Tier.CONTAINER, db=history) as sb:
        assert sb.tier == Tier.CONTAINER and "tier=CONTAINER" in repr(sb)
        r = sb.exec(["/bin/sh", "-c", f"echo {marker}; echo oops >&2; exit 3"])
        assert (r.status, r.stdout, r.stderr) == (3, f"{marker}\n".encode(), b"oops\n")
        # The sandbox's pid namespace is its own: the shell is its pid 1 or near it.
        pid = sb.exec(["/bin/sh", "-c", "echo $$"]).stdout.strip()
        assert int(pid) < 10
        with pytest.raises(subprocess.CalledProcessError):
            sb.exec(["/bin/false"], check=True)
    kinds = [ev["event"] for ev in sb.audit]
    assert kinds[0] == "create" and kinds[-1] == "destroy" and kinds.count("exec") == 3
    with pytest.raises(isotier.InvalidArgumentError):
        sb.exec(["/bin/true"])


def test_create_refusal_in_a_with_statement_runs_nothing(history: Path, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    with pytest.raises(isotier.RefusedError):
        with isotier.create("bwrap", require="GVISOR", db=history) as sb:
            ran.write_text("the body ran")
            sb.exec(["/bin/true"])
    assert not ran.exists()


def test_verified_within_needs_a_proof(history: Path) -> None:
    """An empty history proves nothing: verified_within refuses; a real
    verification of this host then grants it."""
    with pytest.raises(isotier.RefusedError) as e:
        isotier.require("bwrap", "CONTAINER", verified_within=7, attest=False, db=history)
    assert e.value.effective_tier == Tier.UNKNOWN
    v = isotier.verify("bwrap", db=history)
    assert v.verdict == "CONFIRMED" and v.proven and v.recorded, v
    grant = isotier.require("bwrap", "CONTAINER", verified_within=1, attest=False, db=history)
    assert grant.tier == Tier.CONTAINER


def test_cancel_fd_cancels_an_exec_and_the_sandbox_stays_usable(history: Path) -> None:
    r, w = os.pipe()
    try:
        with isotier.create("bwrap", require=Tier.CONTAINER, db=history) as sb:
            os.write(w, b"x")  # readable: cancel
            with pytest.raises(isotier.CancelledError) as e:
                sb.exec(["/bin/sleep", "30"], cancel_fd=r)
            assert e.value.code == isotier.EINTR and e.value.exit_class == 130
            # Another exec without it runs; output inherited when not captured.
            assert sb.exec(["/bin/true"], capture=False).status == 0
            assert sb.exec(["/bin/sh", "-c", "echo ok"]).stdout == b"ok\n"
    finally:
        os.close(r)
        os.close(w)


def test_library_warnings_reach_the_log_callback(history: Path, tmp_path: Path) -> None:
    """A span that cannot be exported is a warning (otlp_required=False): it
    comes to the caller's log callback, not to stderr."""
    said: list[str] = []
    with isotier.create("bwrap", db=history, log=said.append,
                        otlp_file=tmp_path / "no-such-dir" / "spans.json") as sb:
        sb.exec(["/bin/true"])
    assert said and any("spans.json" in m or "otlp" in m.lower() for m in said), said
