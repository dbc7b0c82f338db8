# SPDX-License-Identifier: Apache-2.0
"""isotier_create and its sandbox: the gate of ADR-0006 through libisotier.

Every decision (the resolution, the history gate, the attestation) is the
library's isotier_create; this module fills its options, turns its error into
the exception of its class and hands the caller the audit records the library
wrote for the call (AuditRecord: requested and effective tier, reason).
"""

from __future__ import annotations

import ctypes
import datetime
import logging
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from . import _errors, _lib
from ._audit import AuditCallback, AuditRecord, AuditTail
from ._tier import Tier

_log = logging.getLogger("isotier")

LogCallback = Callable[[str], None]


def _days(verified_within: int | float | datetime.timedelta | None) -> int:
    """require_verified_days: whole days, rounded up (never a looser window)."""
    if verified_within is None:
        return 0
    if isinstance(verified_within, datetime.timedelta):
        days = verified_within.total_seconds() / 86400
    elif isinstance(verified_within, bool) or not isinstance(verified_within, (int, float)):
        raise _errors.InvalidArgumentError(
            _lib.EINVAL, f"verified_within: not a number of days: {verified_within!r}"
        )
    else:
        days = float(verified_within)
    if not math.isfinite(days) or days <= 0 or days > 36500:
        raise _errors.InvalidArgumentError(
            _lib.EINVAL, f"verified_within: {verified_within!r} is not a positive time"
        )
    return max(1, math.ceil(days))


@dataclass
class ExecResult:
    """What a command run in a sandbox did."""

    status: int
    """Its exit status (128+N when killed by signal N)."""
    stdout: bytes = b""
    stderr: bytes = b""

    def check(self) -> "ExecResult":
        """Self; raises subprocess.CalledProcessError when the status is not 0."""
        if self.status != 0:
            import subprocess

            raise subprocess.CalledProcessError(self.status, "sandbox exec", self.stdout, self.stderr)
        return self


class Sandbox:
    """A sandbox isotier_create made: use it as a context manager.

    One thread at a time (include/isotier.h: one handle per thread).
    """

    def __init__(
        self,
        handle: ctypes.c_void_p,
        backend: str,
        audit: AuditTail,
        log_cb: Any,
    ) -> None:
        self._handle: ctypes.c_void_p | None = handle
        self.backend = backend
        self._audit = audit
        self._log_cb = log_cb  # the library calls it until destroy: kept alive here
        lib = _lib.lib()
        self.tier = Tier(lib.isotier_sandbox_tier(handle))
        """The tier this sandbox was resolved to (the tier isotier can defend)."""
        self.repr: str = lib.isotier_sandbox_repr(handle).decode("utf-8", "replace")

    @property
    def audit(self) -> list[AuditRecord]:
        """Every audit record the library wrote for this sandbox so far."""
        self._audit.read()
        return list(self._audit.records)

    @property
    def record(self) -> AuditRecord | None:
        """The record of the decision that made this sandbox: its "create" event
        (``requested``, ``effective``, ``claimed``, ``reason``; ``downgraded``)."""
        return _create_record(self.audit)

    def exec(
        self,
        argv: Sequence[str | bytes],
        *,
        timeout: int | None = None,
        stdin: int | None = None,
        capture: bool = True,
        check: bool = False,
        cancel_fd: int | None = None,
    ) -> ExecResult:
        """Runs argv in the sandbox and returns its status and output.

        capture=False: stdout and stderr are inherited instead. stdin: a
        descriptor to read from (None: /dev/null). timeout: seconds (None:
        the sandbox's). check=True raises subprocess.CalledProcessError on a
        status other than 0. cancel_fd: a descriptor that becomes readable to
        mean "cancel" (the read end of a pipe a signal handler writes to; None:
        the one given to create()): the command is killed and CancelledError
        raised, the sandbox stays usable.
        """
        if self._handle is None:
            raise _errors.InvalidArgumentError(_lib.EINVAL, "exec on a closed sandbox")
        if not argv:
            raise _errors.InvalidArgumentError(_lib.EINVAL, "exec: empty argv")
        args = [a if isinstance(a, bytes) else os.fsencode(a) for a in argv]
        if any(b"\0" in a for a in args):
            raise _errors.InvalidArgumentError(_lib.EINVAL, "exec: a NUL byte in argv")
        c_argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
        opts = _lib.ExecOpts()
        opts.version = _lib.EXEC_OPTS_VERSION
        opts.stdin_fd = -1 if stdin is None else int(stdin)
        opts.stdout_fd = -1
        opts.stderr_fd = -1
        opts.timeout_s = int(timeout or 0)
        opts.cancel_fd = int(cancel_fd) if cancel_fd is not None and cancel_fd > 0 else 0
        out = bytearray()
        err_out = bytearray()

        def on_output(stream: int, buf: Any, n: int, _data: Any) -> int:
            (out if stream == 1 else err_out).extend(ctypes.string_at(buf, n))
            return 0

        # No argument: the NULL function pointer (inherit the output); typeshed lacks that form.
        cb = _lib.OUTPUT_FN(on_output) if capture else _lib.OUTPUT_FN()  # type: ignore[call-overload]
        opts.on_output = cb
        status = ctypes.c_int(0)
        err = _lib.new_error()
        rc = _lib.lib().isotier_sandbox_exec(
            ctypes.byref(status), self._handle, c_argv, ctypes.byref(opts), ctypes.byref(err)
        )
        events = self._audit.read()
        if rc < 0:
            raise _errors.from_error(err, rc, events)
        result = ExecResult(status.value, bytes(out), bytes(err_out))
        return result.check() if check else result

    def close(self) -> None:
        """Tears the sandbox down (isotier_sandbox_destroy); idempotent."""
        if self._handle is not None:
            _lib.lib().isotier_sandbox_destroy(self._handle)
            self._handle = None
            self._audit.read()
            self._audit.close()
            self._log_cb = None

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return self.repr


def _make_log(log: LogCallback | None) -> Any:
    def handler(_level: int, message: bytes | None, _data: Any) -> None:
        text = (message or b"").decode("utf-8", "replace")
        if log is not None:
            log(text)
        else:
            _log.warning("%s", text)

    return _lib.LOG_FN(handler)


def create(
    backend: str,
    *,
    require: Tier | str | int = Tier.UNKNOWN,
    verified_within: int | float | datetime.timedelta | None = None,
    attest: bool = False,
    catalogue: str | os.PathLike[str] | None = None,
    db: str | os.PathLike[str] | None = None,
    create_db: bool = False,
    max_source_age_days: int = 0,
    rootfs: str | os.PathLike[str] | None = None,
    probe: str | os.PathLike[str] | None = None,
    timeout: int | None = None,
    audit_log: str | os.PathLike[str] | None = None,
    on_audit: AuditCallback | None = None,
    log: LogCallback | None = None,
    otlp_endpoint: str | None = None,
    otlp_file: str | os.PathLike[str] | None = None,
    otlp_required: bool = False,
    cancel_fd: int | None = None,
    trust_history: bool = False,
) -> Sandbox:
    """Creates a sandbox of ``backend`` that is at least ``require``, or raises.

    ``with isotier.create("runsc", require=Tier.GVISOR, attest=True) as sb:
    sb.exec(["python3", "job.py"])``

    The library's isotier_create decides: the catalogue's claim for the
    backend, downgraded by the host's history (``db``; None: ``$ISOTIER_DB``,
    else /var/lib/isotier/isotier.db, read only), must satisfy ``require``;
    ``verified_within`` (days, or a timedelta, rounded up to whole days)
    demands a recent proof made on this host; ``attest`` runs the probe
    inside the new sandbox and runs every command in the probe's own process,
    only once its report attests the tier, and fails closed. Above CONTAINER
    ``require`` needs ``attest`` or, explicitly, the weaker ``trust_history``
    (the catalogue and history alone). A refusal raises RefusedError
    before anything is started; its ``record`` is the library's "refuse"
    audit record (``requested``, ``effective``, ``reason``).

    Audit events go to ``audit_log`` (JSON Lines) when given, else to a
    private file removed with the sandbox; either way each is read back as
    an AuditRecord, passed to ``on_audit`` and kept in ``Sandbox.audit``.
    ``cancel_fd`` (a descriptor that becomes readable to mean "cancel", the
    caller's, kept open while the sandbox lives) cancels provisioning,
    attestation and every exec that names none: CancelledError. ``log``
    receives the library's warnings (default: the "isotier" logger).
    """
    req = Tier.parse(require)
    opts = _lib.CreateOpts()
    opts.version = _lib.CREATE_OPTS_VERSION
    opts.backend = _lib.enc(backend)
    opts.require_isolation = int(req)
    opts.catalogue_dir = _lib.enc(catalogue)
    opts.db_path = _lib.enc(db)
    opts.max_source_age_days = int(max_source_age_days)
    opts.require_verified_days = _days(verified_within)
    opts.attest = bool(attest)
    opts.rootfs = _lib.enc(rootfs)
    opts.probe_path = _lib.enc(probe)
    opts.otlp_endpoint = _lib.enc(otlp_endpoint)
    opts.otlp_file = _lib.enc(otlp_file)
    opts.otlp_required = bool(otlp_required)
    opts.trust_history = bool(trust_history)
    opts.timeout_s = int(timeout or 0)
    opts.create_db = bool(create_db)
    opts.cancel_fd = int(cancel_fd) if cancel_fd is not None and cancel_fd > 0 else 0
    log_cb = _make_log(log)
    opts.log = log_cb
    tail = AuditTail(audit_log, on_audit)
    opts.audit_log = _lib.enc(tail.path)
    handle = ctypes.c_void_p()
    err = _lib.new_error()
    try:
        rc = _lib.lib().isotier_create(ctypes.byref(handle), ctypes.byref(opts), ctypes.byref(err))
        events = tail.read()
    except BaseException:
        tail.close()
        raise
    if rc < 0 or not handle:
        tail.close()
        raise _errors.from_error(err, rc if rc < 0 else _lib.ERROR, events)
    return Sandbox(handle, backend, tail, log_cb)


@dataclass
class Grant:
    """What require() found: the backend meets the tier."""

    backend: str
    required: Tier
    tier: Tier
    """The tier the library resolved the backend to (at least ``required``)."""
    attested: bool
    repr: str
    audit: list[AuditRecord] = field(default_factory=list)

    @property
    def record(self) -> AuditRecord | None:
        """The record of the grant: the library's "create" audit event
        (``requested``, ``effective``, ``claimed``, ``reason``)."""
        return _create_record(self.audit)

    @property
    def claimed(self) -> Tier | None:
        """The catalogue's claim, from the grant's audit record (None without one)."""
        rec = self.record
        return rec.claimed if rec else None

    @property
    def downgraded(self) -> bool:
        """Whether the tier granted is below the catalogue's claim (still meeting ``required``)."""
        claimed = self.claimed
        return claimed is not None and self.tier < claimed


def _create_record(records: list[AuditRecord]) -> AuditRecord | None:
    for rec in records:
        if rec.event == "create":
            return rec
    return None


def require(
    backend: str,
    tier: Tier | str | int,
    *,
    verified_within: int | float | datetime.timedelta | None = None,
    attest: bool = True,
    **kwargs: Any,
) -> Grant:
    """Checks that ``backend`` meets ``tier`` now, as create() would, or raises.

    The same gate as create() (the library's isotier_create: catalogue,
    history, ``verified_within``, and with ``attest`` — the default — the
    probe run inside a sandbox made for the check and torn down at once).
    Raises RefusedError (exit_class 78) when the tier is not met, with the
    requested and effective tier and the library's audit events; another
    IsotierError subclass when the check could not be made. Takes create()'s
    other keyword arguments (catalogue, db, probe, timeout, audit_log...).
    """
    req = Tier.parse(tier)
    if req == Tier.UNKNOWN:
        raise _errors.InvalidArgumentError(
            _lib.EINVAL, "require: UNKNOWN is no requirement; name the tier required"
        )
    with create(backend, require=req, verified_within=verified_within, attest=attest, **kwargs) as sb:
        grant = Grant(backend, req, sb.tier, bool(attest), sb.repr)
    grant.audit = sb.audit
    return grant
