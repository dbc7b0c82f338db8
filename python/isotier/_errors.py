# SPDX-License-Identifier: Apache-2.0
"""The exceptions: one class per libisotier error class (include/isotier.h).

Tell them apart by class or by ``code``, never by the message text. Each
carries ``exit_class``, the sysexits status the ``isotier`` CLI exits with
for the same error (verify/cmd/cli.c's cli_fail; tests/test_errors.py holds
this table to it), so a wrapper script can exit as the CLI would.
"""

from __future__ import annotations

import errno as _errno

from . import _lib
from ._audit import AuditRecord, decision_record
from ._tier import Tier

# sysexits (verify/cmd/cli.h)
EX_USAGE = 64
EX_DATAERR = 65
EX_NOINPUT = 66
EX_UNAVAILABLE = 69
EX_SOFTWARE = 70
EX_IOERR = 74
EX_TEMPFAIL = 75
EX_NOPERM = 77
EX_CONFIG = 78
EX_INTERRUPTED = 130

# SQLite's primary result code for "not a database" (reference/history/history.h).
_DB_NOTADB = 26


def exit_class(code: int, sys_errno: int = 0, db_code: int = 0) -> int:
    """The CLI's exit status for a library error (verify/cmd/cli.c's cli_exit_code)."""
    if code == _lib.EINVAL:
        return EX_USAGE
    if code == _lib.EDATA:
        return EX_DATAERR
    if code == _lib.EUNAVAILABLE:
        return EX_UNAVAILABLE
    if code == _lib.ECONFIG:
        return EX_CONFIG
    if code == _lib.EBUSY:
        return EX_TEMPFAIL
    if code == _lib.EDB:
        return EX_DATAERR if (db_code & 0xFF) == _DB_NOTADB else EX_IOERR
    if code == _lib.EIO:
        # The errno decides, as the CLI's errno_exit: what is not there or not a file, what
        # this user may not read, anything else.
        if sys_errno in (_errno.EISDIR, _errno.ENODEV):
            return EX_NOINPUT
        if sys_errno in (_errno.EACCES, _errno.EPERM):
            return EX_NOPERM
        return EX_IOERR
    if code == _lib.EINTR:
        return EX_INTERRUPTED
    if code == _lib.ENOTFOUND:
        return EX_NOINPUT if sys_errno in (_errno.ENOENT, _errno.ENOTDIR) else EX_DATAERR
    return EX_SOFTWARE


class IsotierError(Exception):
    """A libisotier call failed.

    Attributes:
        code: the library's ISOTIER_E* code (negative; ``isotier.ECONFIG``...).
        name: its name ("ECONFIG").
        reason: the library's message chain, outermost context first.
        sys_errno: the failing system call's errno (0 when none).
        db_code: SQLite's extended result code for EDB/EBUSY, else 0.
        exit_class: the sysexits status the CLI exits with for this error.
        audit: the audit records (AuditRecord) the library wrote for the
            call that failed, in order.
        record: the record of the decision this error reports (the last
            refusal or failure among ``audit``: ``requested``, ``effective``,
            ``reason``, ``decision``); None when the call wrote none.
    """

    def __init__(
        self,
        code: int,
        reason: str,
        sys_errno: int = 0,
        db_code: int = 0,
        audit: list[AuditRecord] | None = None,
    ) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.sys_errno = sys_errno
        self.db_code = db_code
        self.exit_class = exit_class(code, sys_errno, db_code)
        self.audit: list[AuditRecord] = list(audit or [])
        self.record: AuditRecord | None = decision_record(self.audit)

    @property
    def name(self) -> str:
        return _NAMES.get(self.code, "ERROR")

    def __str__(self) -> str:
        return f"{self.name}: {self.reason}"


class InvalidArgumentError(IsotierError, ValueError):
    """ISOTIER_EINVAL: the caller's mistake (a bad option, an unknown tier)."""


class RefusedError(IsotierError):
    """ISOTIER_ECONFIG: the required tier is not met; nothing was started.

    ``requested_tier`` and ``effective_tier`` are the refusal's audit record's
    (``record``: the "refuse" event, or the "attest" event of an attestation
    that failed after provisioning, or an attested exec's "exec" event, whose
    effective tier is UNKNOWN); ``None`` when the call wrote none.
    """

    @property
    def requested_tier(self) -> Tier | None:
        return self.record.requested if self.record else None

    @property
    def effective_tier(self) -> Tier | None:
        return self.record.effective if self.record else None


class UnavailableError(IsotierError):
    """ISOTIER_EUNAVAILABLE: the backend cannot run on this host."""


class NotFoundError(IsotierError):
    """ISOTIER_ENOTFOUND: no such backend, provider, record or file."""


class DataError(IsotierError):
    """ISOTIER_EDATA: malformed input from outside (catalogue, probe output)."""


class DatabaseError(IsotierError):
    """ISOTIER_EDB: the history database failed (see ``db_code``)."""


class BusyError(DatabaseError):
    """ISOTIER_EBUSY: the history database is locked by another process."""


class HostFailureError(IsotierError):
    """ISOTIER_EIO or ISOTIER_ENOMEM: the environment failed (see ``sys_errno``)."""


class ChildTimeoutError(IsotierError, TimeoutError):
    """ISOTIER_ETIMEDOUT: a child process exceeded its time limit."""


class CancelledError(IsotierError):
    """ISOTIER_EINTR: cancelled through the caller's cancel_fd."""


_NAMES = {
    _lib.ERROR: "ERROR",
    _lib.EINVAL: "EINVAL",
    _lib.ENOMEM: "ENOMEM",
    _lib.EIO: "EIO",
    _lib.ECONFIG: "ECONFIG",
    _lib.EUNAVAILABLE: "EUNAVAILABLE",
    _lib.ETIMEDOUT: "ETIMEDOUT",
    _lib.EDATA: "EDATA",
    _lib.EDB: "EDB",
    _lib.EINTR: "EINTR",
    _lib.ENOTFOUND: "ENOTFOUND",
    _lib.EBUSY: "EBUSY",
}

_CLASSES: dict[int, type[IsotierError]] = {
    _lib.EINVAL: InvalidArgumentError,
    _lib.ECONFIG: RefusedError,
    _lib.EUNAVAILABLE: UnavailableError,
    _lib.ENOTFOUND: NotFoundError,
    _lib.EDATA: DataError,
    _lib.EDB: DatabaseError,
    _lib.EBUSY: BusyError,
    _lib.EIO: HostFailureError,
    _lib.ENOMEM: HostFailureError,
    _lib.ETIMEDOUT: ChildTimeoutError,
    _lib.EINTR: CancelledError,
}


def from_code(
    code: int,
    reason: str,
    sys_errno: int = 0,
    db_code: int = 0,
    audit: list[AuditRecord] | None = None,
) -> IsotierError:
    """The exception of the class ``code`` names (IsotierError for any other)."""
    cls = _CLASSES.get(code, IsotierError)
    return cls(code, reason, sys_errno, db_code, audit)


def from_error(err: _lib.Error, rc: int, audit: list[AuditRecord] | None = None) -> IsotierError:
    """The exception for a failed call's isotier_error."""
    code = err.code if err.code < 0 else rc
    msg = err.message.decode("utf-8", "replace") or _NAMES.get(code, "ERROR")
    return from_code(code, msg, err.sys_errno, err.db_code, audit)
