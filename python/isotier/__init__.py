# SPDX-License-Identifier: Apache-2.0
"""isotier: a sandbox's isolation tier as a claim that can be checked, from Python.

A thin layer over libisotier.so.0 (ctypes; no second implementation): the
library decides every tier, this package fills its options and raises its
errors as exceptions of their class.

    import isotier
    with isotier.create("runsc", require=isotier.Tier.GVISOR, attest=True) as sb:
        sb.exec(["python3", "-c", "print('hello')"])

- create(backend, require=..., verified_within=..., attest=...): a Sandbox
  (context manager) or an exception; the library's isotier_create.
- require(backend, tier, verified_within=None, attest=True): the same gate,
  the sandbox torn down at once; a Grant or RefusedError.
- resolve(backend, verified_within=...): the tier isotier can defend now
  and why, creating nothing; the library's isotier_resolve.
- verify(backend): a new observation's Verdict (``isotier verify --json``).
- framework_level(tier): the tier in the frameworks' vocabulary
  (none, host-sandbox, container, user-space-kernel, vm, confidential-vm).

Errors: IsotierError and its subclasses, one per library error class
(RefusedError is ISOTIER_ECONFIG...), each with .code, .exit_class (the
CLI's sysexits status for it), .reason, .audit and .record.

Audit: every decision is an AuditRecord of the library's (requested,
effective and claimed tier, decision, reason): a refusal's on the exception
(``err.record``, ``err.audit``), a grant's on the Grant and the Sandbox
(``.record``, ``.audit``; ``.downgraded``), each passed to ``on_audit``.
"""

from __future__ import annotations

from ._audit import AuditRecord
from ._cli import Verdict, cli_path, verify
from ._resolve import Resolution, resolve
from ._errors import (
    BusyError,
    CancelledError,
    ChildTimeoutError,
    DatabaseError,
    DataError,
    HostFailureError,
    InvalidArgumentError,
    IsotierError,
    NotFoundError,
    RefusedError,
    UnavailableError,
    exit_class,
)
from ._levels import FrameworkLevel, framework_level, level_requirement, mapping
from ._lib import (
    EBUSY,
    ECONFIG,
    EDATA,
    EDB,
    EINTR,
    EINVAL,
    EIO,
    ENOMEM,
    ENOTFOUND,
    ERROR,
    ETIMEDOUT,
    EUNAVAILABLE,
    library_path,
    strerror,
    version,
)
from ._sandbox import ExecResult, Grant, Sandbox, create, require
from ._tier import Tier

__all__ = [
    "Tier",
    "create",
    "require",
    "resolve",
    "verify",
    "framework_level",
    "level_requirement",
    "mapping",
    "Sandbox",
    "ExecResult",
    "Grant",
    "AuditRecord",
    "Resolution",
    "Verdict",
    "FrameworkLevel",
    "IsotierError",
    "InvalidArgumentError",
    "RefusedError",
    "UnavailableError",
    "NotFoundError",
    "DataError",
    "DatabaseError",
    "BusyError",
    "HostFailureError",
    "ChildTimeoutError",
    "CancelledError",
    "exit_class",
    "library_path",
    "cli_path",
    "strerror",
    "version",
    "ERROR",
    "EINVAL",
    "ENOMEM",
    "EIO",
    "ECONFIG",
    "EUNAVAILABLE",
    "ETIMEDOUT",
    "EDATA",
    "EDB",
    "EINTR",
    "ENOTFOUND",
    "EBUSY",
]
