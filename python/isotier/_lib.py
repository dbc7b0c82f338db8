# SPDX-License-Identifier: Apache-2.0
"""libisotier.so.0 through ctypes: the structs of include/isotier.h, mirrored.

Nothing here decides a tier: every decision is the library's. The structs are
the header's, field for field and in order (tests/test_abi.py compiles a C
program against include/isotier.h and compares every size and offset).

Which library is loaded, first found:
  1. ``$ISOTIER_LIBRARY``: a path to a libisotier.so.0 (tests, a private build);
  2. the build tree, when this package runs from an isotier checkout
     (``python/isotier`` beside ``build/libisotier.so.0``);
  3. the system's ``libisotier.so.0`` (the dynamic loader's search: the
     installed package).
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

from ._tier import Tier

SONAME = "libisotier.so.0"

# include/isotier.h's versions of the structs this package fills. A library
# reads any version up to its own, so a newer library keeps reading these.
ERROR_VERSION = 1
CREATE_OPTS_VERSION = 2
EXEC_OPTS_VERSION = 2
RESOLVE_REQUEST_VERSION = 1
RESOLVED_VERSION = 1
ERROR_MESSAGE_MAX = 2048

# include/isotier.h's error codes (the library's classes).
OK = 0
ERROR = -1
EINVAL = -2
ENOMEM = -3
EIO = -4
ECONFIG = -5
EUNAVAILABLE = -6
ETIMEDOUT = -7
EDATA = -8
EDB = -9
EINTR = -10
ENOTFOUND = -11
EBUSY = -12


class Error(ctypes.Structure):
    """isotier_error."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("code", ctypes.c_int),
        ("sys_errno", ctypes.c_int),
        ("message", ctypes.c_char * ERROR_MESSAGE_MAX),
        ("db_code", ctypes.c_int),
    ]


LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
OUTPUT_FN = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_char), ctypes.c_size_t, ctypes.c_void_p
)


class CreateOpts(ctypes.Structure):
    """isotier_create_opts, version 2."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("backend", ctypes.c_char_p),
        ("require_isolation", ctypes.c_int),
        ("catalogue_dir", ctypes.c_char_p),
        ("db_path", ctypes.c_char_p),
        ("max_source_age_days", ctypes.c_int),
        ("require_verified_days", ctypes.c_int),
        ("attest", ctypes.c_bool),
        ("rootfs", ctypes.c_char_p),
        ("probe_path", ctypes.c_char_p),
        ("audit_log", ctypes.c_char_p),
        ("otlp_endpoint", ctypes.c_char_p),
        ("otlp_file", ctypes.c_char_p),
        ("timeout_s", ctypes.c_int),
        ("create_db", ctypes.c_bool),
        ("log", LOG_FN),
        ("log_data", ctypes.c_void_p),
        ("cancel_fd", ctypes.c_int),
        ("otlp_required", ctypes.c_bool),
        ("trust_history", ctypes.c_bool),
    ]


class ExecOpts(ctypes.Structure):
    """isotier_exec_opts, version 2."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("stdin_fd", ctypes.c_int),
        ("stdout_fd", ctypes.c_int),
        ("stderr_fd", ctypes.c_int),
        ("timeout_s", ctypes.c_int),
        ("cancel_fd", ctypes.c_int),
        ("on_output", OUTPUT_FN),
        ("output_data", ctypes.c_void_p),
    ]


class ResolveRequest(ctypes.Structure):
    """isotier_resolve_request, version 1."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("backend", ctypes.c_char_p),
        ("catalogue_dir", ctypes.c_char_p),
        ("db_path", ctypes.c_char_p),
        ("max_source_age_days", ctypes.c_int),
        ("require_verified_days", ctypes.c_int),
    ]


class Resolved(ctypes.Structure):
    """isotier_resolved, version 1."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("tier", ctypes.c_int),
        ("claimed", ctypes.c_int),
        ("provider_id", ctypes.c_char * 64),
        ("mechanism", ctypes.c_char * 64),
        ("status", ctypes.c_char * 64),
        ("latest_verdict", ctypes.c_char * 32),
        ("latest_at", ctypes.c_char * 32),
        ("reason", ctypes.c_char * 1024),
    ]


_lock = threading.Lock()
_handle: ctypes.CDLL | None = None


def _checkout_library() -> Path | None:
    """The build tree's library when this package runs from a checkout."""
    pkg = Path(__file__).resolve().parent
    root = pkg.parent.parent
    # Only a checkout: the header and the Makefile beside python/, never a
    # path an installed package would read.
    if not (root / "include" / "isotier.h").is_file() or not (root / "Makefile").is_file():
        return None
    build = os.environ.get("BUILD", "build")
    cand = root / build / SONAME
    return cand if cand.is_file() else None


def library_path() -> str:
    """The library this package loads (see the module's docstring)."""
    env = os.environ.get("ISOTIER_LIBRARY")
    if env:
        return env
    local = _checkout_library()
    return str(local) if local else SONAME


def _declare(lib: ctypes.CDLL) -> None:
    c = ctypes
    lib.isotier_version.argtypes = [c.POINTER(c.c_int)] * 3
    lib.isotier_version.restype = c.c_char_p
    lib.isotier_tier_name.argtypes = [c.c_int]
    lib.isotier_tier_name.restype = c.c_char_p
    lib.isotier_tier_parse.argtypes = [c.POINTER(c.c_int), c.c_char_p]
    lib.isotier_tier_parse.restype = c.c_int
    lib.isotier_tier_satisfies.argtypes = [c.c_int, c.c_int]
    lib.isotier_tier_satisfies.restype = c.c_bool
    lib.isotier_strerror.argtypes = [c.c_int]
    lib.isotier_strerror.restype = c.c_char_p
    lib.isotier_create.argtypes = [c.POINTER(c.c_void_p), c.POINTER(CreateOpts), c.POINTER(Error)]
    lib.isotier_create.restype = c.c_int
    lib.isotier_sandbox_exec.argtypes = [
        c.POINTER(c.c_int),
        c.c_void_p,
        c.POINTER(c.c_char_p),
        c.POINTER(ExecOpts),
        c.POINTER(Error),
    ]
    lib.isotier_sandbox_exec.restype = c.c_int
    lib.isotier_sandbox_tier.argtypes = [c.c_void_p]
    lib.isotier_sandbox_tier.restype = c.c_int
    lib.isotier_sandbox_repr.argtypes = [c.c_void_p]
    lib.isotier_sandbox_repr.restype = c.c_char_p
    lib.isotier_sandbox_destroy.argtypes = [c.c_void_p]
    lib.isotier_sandbox_destroy.restype = None
    lib.isotier_resolve.argtypes = [c.POINTER(Resolved), c.POINTER(ResolveRequest), c.POINTER(Error)]
    lib.isotier_resolve.restype = c.c_int


def lib() -> ctypes.CDLL:
    """The loaded library (loaded once per process)."""
    global _handle
    with _lock:
        if _handle is None:
            path = library_path()
            try:
                handle = ctypes.CDLL(path)
            except OSError as e:
                from ._errors import UnavailableError

                raise UnavailableError(
                    EUNAVAILABLE, f"cannot load libisotier ({path}): {e}", 0
                ) from None
            _declare(handle)
            major = ctypes.c_int()
            handle.isotier_version(ctypes.byref(major), None, None)
            if major.value != 0:
                from ._errors import UnavailableError

                raise UnavailableError(
                    EUNAVAILABLE,
                    f"{path} is libisotier {major.value}.x; this package speaks 0.x",
                    0,
                )
            _handle = handle
        return _handle


def version() -> str:
    """The running library's version ("0.1.0")."""
    return str(lib().isotier_version(None, None, None).decode())


def tier_name(tier: Tier | int) -> str:
    """isotier_tier_name."""
    return str(lib().isotier_tier_name(int(tier)).decode())


def tier_satisfies(have: Tier | int, required: Tier | int) -> bool:
    """isotier_tier_satisfies."""
    return bool(lib().isotier_tier_satisfies(int(have), int(required)))


def strerror(code: int) -> str:
    """isotier_strerror: "ECONFIG"..."""
    return str(lib().isotier_strerror(code).decode())


def enc(s: str | os.PathLike[str] | None) -> bytes | None:
    """A string option as the library reads it (None stays NULL)."""
    if s is None:
        return None
    b = os.fsencode(s)
    if b"\0" in b:
        raise ValueError(f"a NUL byte in {s!r}")
    return b


def new_error() -> Error:
    err = Error()
    err.version = ERROR_VERSION
    return err

