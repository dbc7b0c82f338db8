# SPDX-License-Identifier: Apache-2.0
"""A contradiction in a real history: a real `isotier verify` of a backend
whose catalogue entry lies (bubblewrap claimed as a Firecracker microVM, the
tests' catalogue variant) is CONTRADICTED; resolve() then defends nothing,
require() and create() refuse, with the contradiction as the reason."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

import isotier
from isotier import Tier

pytestmark = pytest.mark.skipif(not shutil.which("bwrap"), reason="bwrap is not installed")


def test_contradicted_claim_is_refused(variant, history: Path) -> None:
    lying = variant("bubblewrap", "claim=MICROVM/firecracker")
    before = isotier.resolve("bwrap", catalogue=lying, db=history)
    assert before.claimed == Tier.MICROVM and before.tier == Tier.MICROVM and not before.downgraded

    v = isotier.verify("bwrap", catalogue=lying, db=history)
    assert v.verdict == "CONTRADICTED" and v.contradicted and not v.proven, v
    assert v.claimed == Tier.MICROVM and v.tier == Tier.CONTAINER
    assert v.kernel_relation == "shared"
    assert any(layer.get("kind") == "container" for layer in v.layers)
    assert v.exit_status == 1 and v.recorded and isinstance(v.run_id, int)
    assert not v.attested and v.statement is None
    rows = sqlite3.connect(history).execute(
        "SELECT verdict FROM observations WHERE backend = 'bwrap'").fetchall()
    assert rows == [("CONTRADICTED",)]

    after = isotier.resolve("bwrap", catalogue=lying, db=history)
    assert after.tier == Tier.UNKNOWN and after.downgraded
    assert after.latest_verdict == "CONTRADICTED" and "CONTRADICTED" in after.reason

    for tier in (Tier.CONTAINER, Tier.MICROVM):
        with pytest.raises(isotier.RefusedError) as e:
            isotier.require("bwrap", tier, attest=False, catalogue=lying, db=history)
        assert e.value.requested_tier == tier and e.value.effective_tier == Tier.UNKNOWN
        assert "CONTRADICTED" in e.value.reason and e.value.exit_class == 78

    # The latest judgement of the backend was a contradiction: the honest catalogue's
    # claim is not defended either until a new verification judges it (fail closed).
    honest = isotier.resolve("bwrap", db=history)
    assert honest.claimed == Tier.CONTAINER and honest.tier == Tier.UNKNOWN


def test_attestation_catches_the_lie_without_history(variant, history: Path) -> None:
    """No history yet, the lying claim resolves to MICROVM: the probe run by
    attest inside the new sandbox refuses it."""
    lying = variant("bubblewrap", "claim=MICROVM/firecracker")
    with pytest.raises(isotier.RefusedError) as e:
        with isotier.create("bwrap", require=Tier.MICROVM, attest=True, catalogue=lying, db=history):
            pytest.fail("the body ran after a failed attestation")
    assert "attestation failed" in e.value.reason
    kinds = [ev["event"] + ":" + ev["decision"] for ev in e.value.audit]
    assert kinds == ["create:allowed", "attest:attestation-failed", "destroy:ok"], kinds
    assert e.value.requested_tier == Tier.MICROVM and e.value.effective_tier == Tier.UNKNOWN
    # The library's record says so itself (not a reading of the package's).
    rec = e.value.record
    assert rec is not None and (rec.event, rec.decision) == ("attest", "attestation-failed")
    assert rec["effective_tier"] == "UNKNOWN" and rec.resolved == Tier.MICROVM and rec.refused
    assert "CONTRADICTED" in rec.reason


def test_resolve_verified_within(history: Path) -> None:
    """resolve() creates nothing: an empty history proves nothing recent; a
    real verification on this host then does."""
    r = isotier.resolve("bwrap", db=history)
    assert r.tier == Tier.CONTAINER and r.claimed == Tier.CONTAINER and r.latest_verdict == ""
    assert r.provider_id == "bubblewrap" and r.reason
    strict = isotier.resolve("bwrap", db=history, verified_within=7)
    assert strict.tier == Tier.UNKNOWN and strict.downgraded and not strict.satisfies("CONTAINER")
    assert isotier.verify("bwrap", db=history).verdict == "CONFIRMED"
    proven = isotier.resolve("bwrap", db=history, verified_within=1)
    assert proven.tier == Tier.CONTAINER and proven.latest_verdict == "CONFIRMED" and proven.latest_at


def test_resolve_unknown_backend(history: Path) -> None:
    with pytest.raises(isotier.NotFoundError):
        isotier.resolve("no-such-backend", db=history)
    with pytest.raises(isotier.NotFoundError) as e:
        isotier.resolve("bwrap", db=history.parent / "absent.db")
    assert e.value.exit_class == 66
