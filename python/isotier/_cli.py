# SPDX-License-Identifier: Apache-2.0
"""verify() through the ``isotier`` CLI's JSON.

include/isotier.h has no verify entry point (a verification is a run of the
CLI: worker threads, the history's run, its signal handling); verify() runs
the CLI with --json and reads its documented ``isotier.verify/1`` document, so
no decision is made here either. The CLI found, first:
  1. ``$ISOTIER_CLI``;
  2. the build tree's ``isotier`` beside the library this package loads from
     a checkout (see _lib);
  3. ``isotier`` on PATH (the installed package).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _errors, _lib
from ._tier import Tier

# The CLI's documents are small; one far larger is not the CLI's.
_OUTPUT_MAX = 16 << 20

# The CLI's exit statuses (verify/cmd/cli.h) back to the library's classes.
_STATUS_CODES = {
    _errors.EX_USAGE: _lib.EINVAL,
    _errors.EX_DATAERR: _lib.EDATA,
    _errors.EX_NOINPUT: _lib.ENOTFOUND,
    _errors.EX_UNAVAILABLE: _lib.EUNAVAILABLE,
    _errors.EX_IOERR: _lib.EIO,
    _errors.EX_TEMPFAIL: _lib.EBUSY,
    _errors.EX_CONFIG: _lib.ECONFIG,
    _errors.EX_INTERRUPTED: _lib.EINTR,
}


def cli_path() -> str:
    """The ``isotier`` CLI this package runs (see the module's docstring)."""
    env = os.environ.get("ISOTIER_CLI")
    if env:
        return env
    local = _lib._checkout_library()
    if local is not None and (local.parent / "isotier").is_file():
        return str(local.parent / "isotier")
    found = shutil.which("isotier")
    if not found:
        raise _errors.UnavailableError(
            _lib.EUNAVAILABLE, "the isotier CLI is not installed (nor $ISOTIER_CLI set)"
        )
    return found


def _run(args: list[str], timeout: float, env: dict[str, str] | None = None) -> tuple[int, Any, str]:
    """Runs the CLI; returns its status, its parsed JSON (None when none), stderr."""
    cmd = [cli_path(), *args]
    try:
        p = subprocess.run(
            cmd,
            capture_output=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **env} if env else None,
        )
    except subprocess.TimeoutExpired:
        raise _errors.ChildTimeoutError(
            _lib.ETIMEDOUT, f"{' '.join(cmd[:3])}: no answer within {timeout:g} s"
        ) from None
    except OSError as e:
        raise _errors.UnavailableError(_lib.EUNAVAILABLE, f"{cmd[0]}: {e}", e.errno or 0) from None
    err = p.stderr[:65536].decode("utf-8", "replace").strip()
    doc = None
    if p.stdout and len(p.stdout) <= _OUTPUT_MAX:
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            doc = None
    return p.returncode, doc, err


def _fail(status: int, err: str, what: str) -> _errors.IsotierError:
    code = _STATUS_CODES.get(status, _lib.ERROR)
    # The CLI says 66 for a path that does not exist (ENOENT), as cli_fail does.
    sys_errno = 2 if status == _errors.EX_NOINPUT else 0
    e = _errors.from_code(code, f"{what}: {err or f'exit status {status}'}", sys_errno)
    e.exit_class = status
    return e


def _opt(args: list[str], name: str, value: Any) -> None:
    if value is not None:
        args += [name, os.fspath(value)]


@dataclass
class Verdict:
    """One observation of ``isotier verify``: the judge's verdict on a claim."""

    backend: str
    verdict: str
    """CONFIRMED, CONSISTENT, EXCEEDS, CONTRADICTED, INCONCLUSIVE or UNAVAILABLE
    (base/verdict.c says what each lets a reader conclude)."""
    tier: Tier
    """The ceiling the evidence shows for the sandbox's own boundary
    (UNKNOWN when nothing was shown)."""
    claimed: Tier
    observed: Tier
    layers: list[dict[str, Any]]
    kernel_relation: str | None
    reason: str
    attested: bool
    unproven: bool
    recorded: bool
    remote: bool
    run_id: int | None
    exit_status: int
    """The CLI's exit status for the run (0, 1 CONTRADICTED, 2 unproven...)."""
    statement: Any = None
    """The observation's signed statement when the CLI gives one (None otherwise)."""
    existing_sandbox: str | None = None
    """verify(provider=..., sandbox_id=...): the caller's sandbox id, the row
    marked as such; its verdict is NOT_CONTRADICTED at best, never CONFIRMED."""
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def contradicted(self) -> bool:
        return self.verdict == "CONTRADICTED"

    @property
    def proven(self) -> bool:
        """CONFIRMED or CONSISTENT: the claim is shown, not only not refuted."""
        return self.verdict in ("CONFIRMED", "CONSISTENT")


def _tier(v: Any) -> Tier:
    try:
        return Tier.parse(v) if isinstance(v, str) else Tier.UNKNOWN
    except ValueError:
        return Tier.UNKNOWN  # a name this package does not know proves nothing


def verify(
    backend: str | None = None,
    *,
    provider: str | None = None,
    sandbox_id: str | None = None,
    db: str | os.PathLike[str] | None = None,
    catalogue: str | os.PathLike[str] | None = None,
    attest: bool = False,
    probe_timeout: int | None = None,
    timeout: float = 900,
    env: dict[str, str] | None = None,
) -> Verdict:
    """Verifies ``backend`` now (``isotier verify --backend NAME --json``).

    Runs the probe in a new sandbox, judges the catalogue's claim and records
    the observation in ``db`` (None: the CLI's default, ./isotier.db). Returns
    the verdict whatever it is (a CONTRADICTED one too: the caller decides);
    raises the error of the CLI's exit status when no verdict was made.
    ``env``: variables added to the CLI's environment (a backend's settings).

    ``provider`` and ``sandbox_id`` instead of ``backend``: verifies a sandbox
    the caller created with the provider's SDK (``isotier verify --provider
    NAME --sandbox-id ID``): the same probe, nonce and cross challenge, the
    challenge's second sandbox created (like the caller's) and deleted by the
    CLI, the caller's left running. Its verdict is NOT_CONTRADICTED at best,
    never CONFIRMED. An id the provider does not know raises NotFoundError (66),
    a malformed one InvalidArgumentError (64) before any request.
    """
    if provider is not None or sandbox_id is not None:
        if backend is not None or provider is None or sandbox_id is None:
            raise _errors.InvalidArgumentError(
                _lib.EINVAL, "verify: provider= and sandbox_id= go together, without a backend"
            )
        args = ["verify", "--provider", provider, "--sandbox-id", sandbox_id, "--json"]
        what = f"isotier verify --provider {provider} --sandbox-id {sandbox_id[:40]}"
    elif backend is None:
        raise _errors.InvalidArgumentError(_lib.EINVAL, "verify: a backend, or provider= and sandbox_id=")
    else:
        args = ["verify", "--backend", backend, "--json"]
        what = f"isotier verify --backend {backend}"
    _opt(args, "--db", db)
    _opt(args, "--catalogue", catalogue)
    if probe_timeout is not None:
        args += ["--timeout", str(int(probe_timeout))]
    if attest:
        args.append("--attest")
    status, doc, err = _run(args, timeout, env)
    results = doc.get("results") if isinstance(doc, dict) else None
    row = results[0] if isinstance(results, list) and results else None
    if not isinstance(row, dict) or not isinstance(row.get("verdict"), str):
        raise _fail(status, err, what)
    layers = row.get("layers")
    run_id = doc.get("run_id") if isinstance(doc, dict) else None
    existing = row.get("existing_sandbox")
    return Verdict(
        backend=str(row.get("backend", backend or provider)),
        verdict=row["verdict"],
        tier=_tier(row.get("ceiling_tier")),
        claimed=_tier(row.get("claimed_tier")),
        observed=_tier(row.get("observed_tier")),
        layers=layers if isinstance(layers, list) else [],
        kernel_relation=row.get("kernel_relation"),
        reason=str(row.get("reason", "")),
        attested=row.get("attested") is True,
        unproven=row.get("unproven") is True,
        recorded=row.get("recorded") is True,
        remote=row.get("remote") is True,
        run_id=run_id if isinstance(run_id, int) else None,
        exit_status=status,
        statement=row.get("statement"),
        existing_sandbox=existing if isinstance(existing, str) else None,
        raw=row,
    )
