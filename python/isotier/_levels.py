# SPDX-License-Identifier: Apache-2.0
"""isotier's tiers in the vocabulary of the frameworks that choose sandboxes.

The mapping is data (framework-levels.json beside this module; the same table
is docs/tier-mapping.md) so a framework can read it without this package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ._tier import Tier

LEVELS = ("none", "host-sandbox", "container", "user-space-kernel", "vm", "confidential-vm")


@dataclass(frozen=True)
class FrameworkLevel:
    """One level of the frameworks' vocabulary and the isotier requirement that meets it."""

    level: str
    rank: int
    require: Tier
    """The isotier tier to require for this level (UNKNOWN: no requirement)."""
    require_attestation: bool
    """Whether a verdict must also be raised by hardware attestation."""
    meaning: str


@lru_cache(maxsize=1)
def mapping() -> dict[str, Any]:
    """The mapping as published (framework-levels.json)."""
    text = resources.files(__package__).joinpath("framework-levels.json").read_text("utf-8")
    doc = json.loads(text)
    if not isinstance(doc, dict) or doc.get("schema") != "isotier.framework-levels/1":
        raise ValueError("framework-levels.json: unknown schema")
    return doc


def _levels() -> dict[str, FrameworkLevel]:
    out = {}
    for row in mapping()["levels"]:
        out[row["level"]] = FrameworkLevel(
            row["level"],
            int(row["rank"]),
            Tier.parse(row["require"]),
            bool(row["require_attestation"]),
            row["meaning"],
        )
    return out


def framework_level(tier: Tier | str | int, *, attested: bool = False) -> FrameworkLevel:
    """The framework level an isotier tier lets a caller report.

    ``attested``: the tier was raised by hardware attestation (a Verdict's
    ``attested``); only then is a MICROVM a "confidential-vm". UNKNOWN is
    "none": isotier never reports "host-sandbox", which it cannot verify.
    """
    t = Tier.parse(tier)
    m = mapping()
    name = (m["attested"].get(t.name) if attested else None) or m["tiers"][t.name]
    return _levels()[name]


def level_requirement(level: str) -> FrameworkLevel:
    """The isotier requirement for a level a framework asks for ("vm"...).

    Raises ValueError for a level not in the vocabulary (never read as "none").
    """
    key = level.strip().lower().replace("_", "-").replace(" ", "-")
    try:
        return _levels()[key]
    except KeyError:
        raise ValueError(f"not a framework isolation level: {level!r} (one of {', '.join(LEVELS)})") from None
