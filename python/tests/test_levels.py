# SPDX-License-Identifier: Apache-2.0
"""The published mapping to the frameworks' vocabulary: data, docs and API agree."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import isotier
from isotier import Tier


def test_each_tier_has_its_level() -> None:
    assert [isotier.framework_level(t).level for t in Tier] == [
        "none", "container", "user-space-kernel", "vm"]
    assert isotier.framework_level(Tier.MICROVM, attested=True).level == "confidential-vm"
    # Attestation raises a MICROVM only: it never turns a container into a VM.
    assert isotier.framework_level(Tier.CONTAINER, attested=True).level == "container"
    assert isotier.framework_level("UNKNOWN", attested=True).level == "none"


def test_levels_ask_for_a_requirement_never_for_none() -> None:
    req = {lv: isotier.level_requirement(lv) for lv in
           ("none", "host-sandbox", "container", "user-space-kernel", "vm", "confidential-vm")}
    assert req["none"].require == Tier.UNKNOWN
    # Below CONTAINER isotier verifies nothing: a host sandbox is met by a container at least.
    assert req["host-sandbox"].require == Tier.CONTAINER
    assert req["vm"].require == Tier.MICROVM and not req["vm"].require_attestation
    assert req["confidential-vm"].require == Tier.MICROVM and req["confidential-vm"].require_attestation
    ranks = [r.rank for r in req.values()]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    # The requirement for a level meets the level: each tier maps back at or above it.
    for lv in req.values():
        back = isotier.framework_level(lv.require, attested=lv.require_attestation)
        assert back.rank >= lv.rank or lv.level == "host-sandbox" and back.level == "container"
    with pytest.raises(ValueError):
        isotier.level_requirement("sandboxed")
    assert isotier.level_requirement("User Space Kernel").level == "user-space-kernel"


def test_docs_table_is_the_data(root: Path) -> None:
    """docs/tier-mapping.md's table says what framework-levels.json says."""
    doc = (root / "docs" / "tier-mapping.md").read_text()
    rows = re.findall(r"^\| `([a-z-]+)` \| (\d) \| `([A-Z]+)`( \+ attestation)? \|", doc, re.M)
    data = isotier.mapping()
    assert [(lv["level"], str(lv["rank"]), lv["require"], bool(lv["require_attestation"]))
            for lv in data["levels"]] == [(a, b, c, bool(d)) for a, b, c, d in rows]
    shipped = json.loads((root / "python/isotier/framework-levels.json").read_text())
    assert shipped == data
