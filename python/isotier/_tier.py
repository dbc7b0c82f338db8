# SPDX-License-Identifier: Apache-2.0
"""The tier vocabulary of ADR-0006 and ADR-0018, ordered as the library ranks it."""

from __future__ import annotations

import enum


class Tier(enum.IntEnum):
    """An isolation tier: UNKNOWN < CONTAINER < GVISOR < MICROVM.

    The values are libisotier's ``isotier_tier``. UNKNOWN is the default and
    satisfies no requirement; as a requirement it means "none".
    """

    UNKNOWN = 0
    CONTAINER = 1
    GVISOR = 2
    MICROVM = 3

    @classmethod
    def parse(cls, value: "Tier | str | int") -> "Tier":
        """A Tier from a Tier, its value, or its name (case-insensitive).

        Raises ValueError for anything else: an unknown name is never read as
        UNKNOWN (that would silently drop a requirement).
        """
        if isinstance(value, Tier):
            return value
        if isinstance(value, bool):
            raise ValueError(f"not a tier: {value!r}")
        if isinstance(value, int):
            return cls(value)
        if isinstance(value, str):
            try:
                return cls[value.strip().upper()]
            except KeyError:
                raise ValueError(f"not a tier: {value!r}") from None
        raise ValueError(f"not a tier: {value!r}")

    def satisfies(self, required: "Tier | str | int") -> bool:
        """Whether this tier meets ``required`` (the rank of ADR-0018).

        A requirement of UNKNOWN is no requirement; otherwise UNKNOWN meets
        nothing and a known tier meets every requirement at or below it.
        libisotier's isotier_tier_satisfies decides.
        """
        from . import _lib

        return _lib.tier_satisfies(self, Tier.parse(required))
