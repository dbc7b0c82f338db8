# SPDX-License-Identifier: Apache-2.0
"""resolve(): the library's isotier_resolve, the tier isotier can defend now."""

from __future__ import annotations

import ctypes
import datetime
import os
from dataclasses import dataclass

from . import _errors, _lib
from ._sandbox import _days
from ._tier import Tier


@dataclass(frozen=True)
class Resolution:
    """What a backend resolves to now, and why (isotier_resolved)."""

    backend: str
    tier: Tier
    """The tier isotier can defend: the claim, or UNKNOWN when the catalogue or
    the history cannot defend it (UNKNOWN satisfies no requirement)."""
    claimed: Tier
    """The catalogue's claim (UNKNOWN when none)."""
    reason: str
    """Why ``tier`` is below ``claimed``, or what vouches for it."""
    provider_id: str
    mechanism: str
    status: str
    """"" (current) or "deprecated since DATE"."""
    latest_verdict: str
    """The newest judged observation's verdict counted; "" when none."""
    latest_at: str

    @property
    def downgraded(self) -> bool:
        """Whether the tier is below the claim."""
        return self.tier < self.claimed

    def satisfies(self, required: Tier | str | int) -> bool:
        """Whether the resolved tier meets ``required`` (isotier_tier_satisfies)."""
        return self.tier.satisfies(required)


def _text(buf: bytes) -> str:
    return buf.decode("utf-8", "replace")


def resolve(
    backend: str,
    *,
    catalogue: str | os.PathLike[str] | None = None,
    db: str | os.PathLike[str] | None = None,
    verified_within: int | float | datetime.timedelta | None = None,
    max_source_age_days: int = 0,
) -> Resolution:
    """The tier ``backend`` resolves to on this host (isotier_resolve).

    What create() decides before it provisions, without creating anything:
    the catalogue's claim, downgraded by the history (``db``; None: the host's,
    $ISOTIER_DB else /var/lib/isotier/isotier.db; one named that does not
    exist raises NotFoundError). ``verified_within`` (days) demands a recent
    proof made on this host, as in create(). UNKNOWN is an answer, not an
    error; NotFoundError for a backend this build does not have.
    """
    req = _lib.ResolveRequest()
    req.version = _lib.RESOLVE_REQUEST_VERSION
    req.backend = _lib.enc(backend)
    req.catalogue_dir = _lib.enc(catalogue)
    req.db_path = _lib.enc(db)
    req.max_source_age_days = int(max_source_age_days)
    req.require_verified_days = _days(verified_within)
    out = _lib.Resolved()
    out.version = _lib.RESOLVED_VERSION
    err = _lib.new_error()
    rc = _lib.lib().isotier_resolve(ctypes.byref(out), ctypes.byref(req), ctypes.byref(err))
    if rc < 0:
        raise _errors.from_error(err, rc)
    return Resolution(
        backend=backend,
        tier=Tier(out.tier),
        claimed=Tier(out.claimed),
        reason=_text(out.reason),
        provider_id=_text(out.provider_id),
        mechanism=_text(out.mechanism),
        status=_text(out.status),
        latest_verdict=_text(out.latest_verdict),
        latest_at=_text(out.latest_at),
    )
