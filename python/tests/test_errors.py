# SPDX-License-Identifier: Apache-2.0
"""Each library error class raises its exception, with the CLI's exit status.

Every error here is the real library's answer to a real bad input: nothing is
raised by hand.
"""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import pytest

import isotier
from isotier import _errors, _lib


def test_exit_classes_are_the_clis(root: Path) -> None:
    """exit_class() is verify/cmd/cli.c's cli_exit_code, case for case."""
    src = (root / "verify/cmd/cli.c").read_text()
    body = src[src.index("int cli_exit_code(") :]
    body = body[: body.index("\n}\n")]
    cases = dict(re.findall(r"case (ISOTIER_E[A-Z]+): return (EXIT_[A-Z]+);", body))
    hdr = (root / "verify/cmd/cli.h").read_text()
    exits = {k: int(v) for k, v in re.findall(r"(EXIT_[A-Z]+) = (\d+)", hdr)}
    assert len(cases) >= 6
    for code_name, exit_name in cases.items():
        code = getattr(_lib, code_name[len("ISOTIER_") :])
        assert isotier.exit_class(code) == exits[exit_name], code_name
    # The two the switch decides on more than the code:
    assert "ISOTIER_DB_NOTADB ? EXIT_DATAERR : EXIT_IOERR" in body
    assert isotier.exit_class(_lib.EDB, db_code=26) == exits["EXIT_DATAERR"]
    assert isotier.exit_class(_lib.EDB, db_code=14) == exits["EXIT_IOERR"]
    assert "err->sys_errno == ENOENT || err->sys_errno == ENOTDIR ? EXIT_NOINPUT" in " ".join(body.split())
    assert isotier.exit_class(_lib.ENOTFOUND, sys_errno=2) == exits["EXIT_NOINPUT"]
    assert isotier.exit_class(_lib.ENOTFOUND, sys_errno=20) == exits["EXIT_NOINPUT"]
    # EIO: the errno decides, as errno_exit does.
    assert "case EACCES:" in src and "return EXIT_NOPERM;" in src
    assert isotier.exit_class(_lib.EIO, sys_errno=13) == exits["EXIT_NOPERM"]
    assert isotier.exit_class(_lib.EIO, sys_errno=21) == exits["EXIT_NOINPUT"]
    assert isotier.exit_class(_lib.EIO, sys_errno=5) == exits["EXIT_IOERR"]
    assert isotier.exit_class(_lib.ENOTFOUND) == exits["EXIT_DATAERR"]
    assert isotier.exit_class(_lib.ERROR) == exits["EXIT_SOFTWARE"]


def test_unknown_backend_is_not_found() -> None:
    with pytest.raises(isotier.NotFoundError) as e:
        isotier.require("no-such-backend", "CONTAINER", attest=False)
    assert e.value.code == isotier.ENOTFOUND and e.value.name == "ENOTFOUND"
    assert e.value.exit_class == 65
    assert "no-such-backend" in e.value.reason


def test_absent_history_is_not_found_with_enoent(tmp_path: Path) -> None:
    with pytest.raises(isotier.NotFoundError) as e:
        isotier.require("bwrap", "CONTAINER", attest=False, db=tmp_path / "absent.db")
    assert e.value.sys_errno == 2 and e.value.exit_class == 66
    assert not (tmp_path / "absent.db").exists()


def test_not_a_database_is_data(tmp_path: Path) -> None:
    db = tmp_path / "garbage.db"
    db.write_bytes(b"not sqlite " * 500)
    with pytest.raises(isotier.IsotierError) as e:
        isotier.require("bwrap", "CONTAINER", attest=False, db=db)
    assert isinstance(e.value, (isotier.DataError, isotier.DatabaseError)), type(e.value)
    assert e.value.exit_class == 65
    assert db.read_bytes() == b"not sqlite " * 500  # never turned into a database


def test_remote_backend_is_unavailable_to_create() -> None:
    with pytest.raises(isotier.UnavailableError) as e:
        isotier.require("e2b", "CONTAINER", attest=False)
    assert e.value.code == isotier.EUNAVAILABLE and e.value.exit_class == 69


def test_a_newer_struct_version_is_the_callers_mistake() -> None:
    """The library refuses an options version it does not know (ADR-0021)."""
    opts = _lib.CreateOpts()
    opts.version = _lib.CREATE_OPTS_VERSION + 1
    opts.backend = b"bwrap"
    handle = ctypes.c_void_p()
    err = _lib.new_error()
    rc = _lib.lib().isotier_create(ctypes.byref(handle), ctypes.byref(opts), ctypes.byref(err))
    exc = _errors.from_error(err, rc)
    assert isinstance(exc, isotier.InvalidArgumentError) and isinstance(exc, ValueError)
    assert exc.exit_class == 64 and not handle


def test_tier_names_are_refused_not_defaulted() -> None:
    with pytest.raises(ValueError):
        isotier.Tier.parse("VM")
    with pytest.raises(ValueError):
        isotier.Tier.parse(True)
    with pytest.raises(isotier.InvalidArgumentError):
        isotier.require("bwrap", isotier.Tier.UNKNOWN)
    for bad in (0, -1, float("nan"), "7"):
        with pytest.raises(isotier.InvalidArgumentError):
            isotier.require("bwrap", "CONTAINER", verified_within=bad, attest=False)


def test_tier_order_is_the_librarys() -> None:
    T = isotier.Tier
    assert T.UNKNOWN < T.CONTAINER < T.GVISOR < T.MICROVM
    for have in T:
        for req in T:
            lib = _lib.lib().isotier_tier_satisfies(int(have), int(req))
            assert have.satisfies(req) == lib
    assert not T.UNKNOWN.satisfies(T.CONTAINER) and T.UNKNOWN.satisfies(T.UNKNOWN)
    assert [_lib.tier_name(t) for t in T] == [t.name for t in T]
    assert isotier.strerror(isotier.ECONFIG) == "ECONFIG"


def test_subclasses() -> None:
    for cls in (
        isotier.RefusedError,
        isotier.NotFoundError,
        isotier.UnavailableError,
        isotier.DataError,
        isotier.DatabaseError,
        isotier.BusyError,
        isotier.HostFailureError,
        isotier.ChildTimeoutError,
        isotier.CancelledError,
        isotier.InvalidArgumentError,
    ):
        assert issubclass(cls, isotier.IsotierError)
    assert issubclass(isotier.BusyError, isotier.DatabaseError)
    assert _errors.from_code(isotier.EBUSY, "x").exit_class == 75
    assert type(_errors.from_code(isotier.ETIMEDOUT, "x")) is isotier.ChildTimeoutError


def test_resolve_refuses_versions_it_does_not_know() -> None:
    """isotier_resolve reads requests up to its version and refuses a result
    version it cannot fill (ADR-0021), naming both."""
    for req_v, out_v in ((0, 1), (_lib.RESOLVE_REQUEST_VERSION + 1, 1), (1, _lib.RESOLVED_VERSION + 1)):
        req = _lib.ResolveRequest()
        req.version = req_v
        req.backend = b"bwrap"
        out = _lib.Resolved()
        out.version = out_v
        out.tier = 7
        err = _lib.new_error()
        rc = _lib.lib().isotier_resolve(ctypes.byref(out), ctypes.byref(req), ctypes.byref(err))
        assert rc == isotier.EINVAL, (req_v, out_v, rc)
        assert b"version" in err.message and out.tier == 7
    req = _lib.ResolveRequest()
    req.version = 1
    req.backend = b"bwrap"
    req.require_verified_days = -1
    out = _lib.Resolved()
    rc = _lib.lib().isotier_resolve(ctypes.byref(out), ctypes.byref(req), None)
    assert rc == isotier.EINVAL
    # A zero-initialised result is version 1.
    req.require_verified_days = 0
    assert _lib.lib().isotier_resolve(ctypes.byref(out), ctypes.byref(req), None) == 0
    assert out.claimed == int(isotier.Tier.CONTAINER)
