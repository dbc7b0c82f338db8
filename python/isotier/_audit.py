# SPDX-License-Identifier: Apache-2.0
"""The library's audit records, typed: every decision isotier_create makes.

libisotier appends one JSON object per event to the audit log (JSON Lines,
fsync'd; reference/history/audit.c): create, refuse, attest, exec, destroy. A
refusal and a downgrade are records with the requested tier
(``required_tier``), the effective tier (``effective_tier``) and the reason;
this module reads them back as AuditRecord.

The log is the library's record, not the caller's input to judge: a line
that is not a JSON object is passed over, and a field that is missing or not
a tier name reads as the lowest answer (UNKNOWN, "") — never a higher one.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ._tier import Tier

# The most of an audit log this package reads back at once: the library
# writes a few hundred bytes per event, a handful per call.
_READ_MAX = 1 << 20
# A line longer than this is no event of the library's (its reasons are
# bounded far below): dropped rather than held without end.
_LINE_MAX = 64 << 10

# Decisions that grant nothing (reference/core/telemetry.h's decision values).
_REFUSALS = frozenset({"refused", "attestation-failed"})


def _tier(value: Any) -> Tier:
    """A tier name as the library writes it; anything else is UNKNOWN (fail closed)."""
    if not isinstance(value, str):
        return Tier.UNKNOWN
    try:
        return Tier.parse(value)
    except ValueError:
        return Tier.UNKNOWN


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class AuditRecord:
    """One audit event of the library, with the decision's tiers typed.

    ``requested`` is what the caller required (the event's ``required_tier``;
    UNKNOWN: no requirement), ``effective`` what the decision leaves the
    caller (``effective_tier``: the resolved tier, UNKNOWN after a failed
    attestation, at most CONTAINER when a higher tier was asked without a
    proof), ``claimed`` the catalogue's claim, ``resolved`` what the catalogue
    and history defend. A downgrade is ``effective`` below ``claimed``; a
    refusal is ``decision`` "refused" (or "attestation-failed").

    ``record["reason"]`` and ``record.get(...)`` read the event as the library
    wrote it (``raw``), for fields this class does not name.
    """

    event: str
    """"create", "refuse", "attest", "exec" or "destroy"."""
    decision: str
    """"allowed", "refused", "attested", "attestation-failed", "ok" or "failed"."""
    requested: Tier
    effective: Tier
    reason: str
    backend: str
    claimed: Tier
    resolved: Tier
    time: str = ""
    sandbox_id: str | None = None
    exit_status: int | None = None
    """An exec's exit status; None for every other event."""
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_event(cls, ev: Mapping[str, Any]) -> "AuditRecord":
        """The record of one event as the library wrote it (a JSON object)."""
        decision = _text(ev.get("decision"))
        resolved = _tier(ev.get("resolved_tier"))
        if "effective_tier" in ev:
            effective = _tier(ev.get("effective_tier"))
        else:
            # A log written before the library named it: a refusal's effective tier is what
            # the catalogue and history defend, a failed attestation grants nothing.
            effective = Tier.UNKNOWN if decision == "attestation-failed" else resolved
        status = ev.get("exit_status")
        sandbox_id = ev.get("sandbox_id")
        return cls(
            event=_text(ev.get("event")),
            decision=decision,
            requested=_tier(ev.get("required_tier")),
            effective=min(effective, resolved),  # never above what was resolved
            reason=_text(ev.get("reason")),
            backend=_text(ev.get("backend")),
            claimed=_tier(ev.get("claimed_tier")),
            resolved=resolved,
            time=_text(ev.get("time")),
            sandbox_id=sandbox_id if isinstance(sandbox_id, str) else None,
            exit_status=status if isinstance(status, int) and not isinstance(status, bool) else None,
            raw=dict(ev),
        )

    @property
    def refused(self) -> bool:
        """Whether this decision granted nothing (a refusal, a failed attestation)."""
        return self.decision in _REFUSALS

    @property
    def downgraded(self) -> bool:
        """Whether the effective tier is below the catalogue's claim."""
        return self.effective < self.claimed

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)

    def as_dict(self) -> dict[str, Any]:
        """The event as the library wrote it."""
        return dict(self.raw)


AuditCallback = Callable[[AuditRecord], None]


def decision_record(records: list[AuditRecord]) -> AuditRecord | None:
    """The record of the decision a failed call reports: its last refusal or failure."""
    for rec in reversed(records):
        if rec.refused or rec.decision == "failed":
            return rec
    return None


class AuditTail:
    """The records the library appends to one audit log, read back as they come.

    With no log of the caller's, one of our own in a private directory,
    removed when the sandbox (or the call) is done.
    """

    def __init__(self, path: str | os.PathLike[str] | None, on_audit: AuditCallback | None):
        self._own_dir: str | None = None
        if path is None:
            self._own_dir = tempfile.mkdtemp(prefix="isotier-audit-")
            path = os.path.join(self._own_dir, "audit.jsonl")
        self.path = os.fspath(path)
        try:
            self._offset = os.stat(self.path).st_size
        except FileNotFoundError:
            self._offset = 0
        self._on_audit = on_audit
        self._partial = b""
        self.records: list[AuditRecord] = []

    def read(self) -> list[AuditRecord]:
        """The records written since the last read (also appended to .records)."""
        new: list[AuditRecord] = []
        try:
            with open(self.path, "rb") as f:
                f.seek(self._offset)
                chunk = f.read(_READ_MAX)
        except FileNotFoundError:
            return new
        self._offset += len(chunk)
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()  # an unfinished line waits for its end
        if len(self._partial) > _LINE_MAX:
            self._partial = b""
        for line in lines:
            if not line.strip() or len(line) > _LINE_MAX:
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                continue  # not ours to judge: the log is the library's record
            if isinstance(ev, dict):
                new.append(AuditRecord.from_event(ev))
        self.records.extend(new)
        if self._on_audit:
            for rec in new:
                self._on_audit(rec)
        return new

    def close(self) -> None:
        if self._own_dir:
            shutil.rmtree(self._own_dir, ignore_errors=True)
            self._own_dir = None
