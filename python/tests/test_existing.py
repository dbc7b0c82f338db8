# SPDX-License-Identifier: Apache-2.0
"""verify(provider=..., sandbox_id=...): an existing sandbox, the caller's.

Each test starts a real provider emulator (tests/tools/*_emulator.py, a real
bwrap sandbox behind every create), creates the caller's sandbox the way the
provider's SDK does (tests/tools/emu_caller.py) and verifies it through the
real CLI: never CONFIRMED, the row marked an existing sandbox, the caller's
sandbox alive afterwards and only isotier's own second sandbox deleted; each
error class raises its exception.
"""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import isotier
from isotier import _errors

KEY = f"py-PLANTED-{os.getpid()}-{random.randrange(1 << 30)}-secret"

# Each provider's emulator options and the environment isotier reads.
PROVIDERS = {
    "e2b": ([], lambda port: {
        "E2B_API_KEY": KEY, "ISOTIER_E2B_API_URL": f"http://127.0.0.1:{port}",
        "ISOTIER_E2B_ENVD_URL": f"http://127.0.0.1:{port}/envd/{{id}}"}),
    "fly": (["--app", "isotier-test"], lambda port: {
        "FLY_API_TOKEN": KEY, "FLY_APP": "isotier-test",
        "ISOTIER_FLY_API_URL": f"http://127.0.0.1:{port}/v1"}),
    "vercel": (["--team", "team_emu", "--project", "prj_emu"], lambda port: {
        "VERCEL_TOKEN": KEY, "VERCEL_TEAM_ID": "team_emu", "VERCEL_PROJECT_ID": "prj_emu",
        "ISOTIER_VERCEL_API_URL": f"http://127.0.0.1:{port}"}),
    "daytona": ([], lambda port: {
        "DAYTONA_API_KEY": KEY, "ISOTIER_DAYTONA_API_URL": f"http://127.0.0.1:{port}/api"}),
}


class Emulator:
    def __init__(self, root: Path, tmp: Path, provider: str, *extra: str) -> None:
        opts, env_of = PROVIDERS[provider]
        self.root, self.provider, self.dir = root, provider, tmp
        self.ledger = tmp / "ledger"
        self.ledger.touch()
        (tmp / "state").mkdir()
        self.proc = subprocess.Popen(
            [sys.executable, str(root / f"tests/tools/{provider}_emulator.py"),
             "--port-file", str(tmp / "port"), "--key", KEY, "--state", str(tmp / "state"),
             "--ledger", str(self.ledger), "--log", str(tmp / "requests"), "--lifetime", "150",
             *opts, *extra])
        for _ in range(100):
            if (tmp / "port").is_file() and (tmp / "port").read_text():
                break
            time.sleep(0.05)
        else:
            self.stop()
            pytest.fail(f"{provider} emulator did not start")
        self.env = env_of(int((tmp / "port").read_text()))
        self.env["ISOTIER_STATE_DIR"] = str(tmp / "leases")

    def caller(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(self.root / "tests/tools/emu_caller.py"), *args],
            env={**os.environ, **self.env}, capture_output=True, text=True, timeout=60)

    def create(self) -> str:
        p = self.caller("create", self.provider)
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()

    def alive(self, sid: str) -> bool:
        return self.caller("alive", self.provider, sid).returncode == 0

    def lines(self, verb: str) -> list[str]:
        return [ln.split()[1] for ln in self.ledger.read_text().splitlines() if ln.startswith(verb + " ")]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def emulator(root: Path, tmp_path: Path):
    started: list[Emulator] = []

    def start(provider: str, *extra: str) -> Emulator:
        d = tmp_path / f"emu-{provider}-{len(started)}"
        d.mkdir()
        e = Emulator(root, d, provider, *extra)
        started.append(e)
        return e

    yield start
    for e in started:
        e.stop()


def stored(db: Path) -> tuple[str, str, str]:
    with sqlite3.connect(db) as c:
        return c.execute(
            "SELECT verdict, layers_json, reason FROM observations ORDER BY id DESC LIMIT 1").fetchone()


def assert_kept(emu: Emulator, sid: str) -> None:
    assert emu.alive(sid), f"the caller's sandbox {sid} is gone"
    assert sid not in emu.lines("delete")
    made = emu.lines("create")
    assert len(made) == 2 and sid in made
    assert emu.lines("delete") == [m for m in made if m != sid]


def test_honest_existing_sandbox_is_verified_and_kept(emulator, tmp_path: Path) -> None:
    """Two containers on one kernel: CONTRADICTED, the caller's left running."""
    emu = emulator("e2b")
    sid = emu.create()
    db = tmp_path / "h.db"
    v = isotier.verify(provider="e2b", sandbox_id=sid, db=db, probe_timeout=20, env=emu.env)
    assert v.existing_sandbox == sid and v.backend == "e2b" and v.remote
    assert v.verdict == "CONTRADICTED" and v.kernel_relation == "shared", v.reason
    assert v.exit_status == 1 and v.recorded and not v.attested
    assert v.reason.startswith(f"existing sandbox {sid} (the caller's, not created by isotier")
    verdict, layers, reason = stored(db)
    assert verdict == "CONTRADICTED" and f'"existing_sandbox":"{sid}"' in layers
    assert KEY not in reason
    assert_kept(emu, sid)


@pytest.mark.parametrize("provider", ["fly", "vercel"])
def test_lying_provider_is_never_proven(emulator, root: Path, tmp_path: Path, provider: str) -> None:
    """A recorded microVM output replayed for every command: not proven."""
    rec = tmp_path / "replay.json"
    with rec.open("wb") as f:
        subprocess.run(
            [os.environ.get("ISOTIER_PROBE", str(Path(isotier.cli_path()).parent / "isotier-probe")),
             "--json", "--root", str(root / "tests/fixtures/probe/real-firecracker-native")],
            stdout=f, check=True, timeout=60)
    emu = emulator(provider, "--identity", "replay", "--replay", str(rec))
    sid = emu.create()
    v = isotier.verify(provider=provider, sandbox_id=sid, db=tmp_path / "h.db", probe_timeout=20,
                       env=emu.env)
    assert v.existing_sandbox == sid
    assert v.verdict in ("NOT_CONTRADICTED", "CONTRADICTED", "INCONCLUSIVE"), v.reason
    assert not v.proven and not v.attested
    assert_kept(emu, sid)


def test_unknown_sandbox_is_not_found(emulator, tmp_path: Path) -> None:
    emu = emulator("vercel")
    db = tmp_path / "h.db"
    with pytest.raises(isotier.NotFoundError) as e:
        isotier.verify(provider="vercel", sandbox_id="sbx_nosuch", db=db, env=emu.env)
    assert e.value.exit_class == 66 and "no sandbox sbx_nosuch" in str(e.value)
    assert not emu.lines("create")
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM observations").fetchone()[0] == 0


@pytest.mark.parametrize("sid", ["../sandboxes", "a/b", "x" * 129, "..", "id?x=1", ""])
def test_bad_sandbox_id_is_refused_before_any_request(emulator, tmp_path: Path, sid: str) -> None:
    emu = emulator("e2b")
    with pytest.raises(isotier.InvalidArgumentError) as e:
        isotier.verify(provider="e2b", sandbox_id=sid, db=tmp_path / "h.db", env=emu.env)
    assert e.value.exit_class == 64
    assert not (emu.dir / "requests").exists() or not (emu.dir / "requests").read_text()


def test_argument_errors() -> None:
    with pytest.raises(isotier.InvalidArgumentError):
        isotier.verify("e2b", provider="e2b", sandbox_id="i1")
    with pytest.raises(isotier.InvalidArgumentError):
        isotier.verify(sandbox_id="i1")
    with pytest.raises(isotier.InvalidArgumentError):
        isotier.verify()
    with pytest.raises(isotier.InvalidArgumentError) as e:  # the CLI's own check: 64
        isotier.verify(provider="bwrap", sandbox_id="i1")
    assert e.value.exit_class == 64


def test_no_credentials_is_unavailable(tmp_path: Path) -> None:
    """Unconfigured: nothing asked, the verdict UNAVAILABLE naming the variable (69)."""
    v = isotier.verify(provider="e2b", sandbox_id="i1", db=tmp_path / "h.db",
                       env={"E2B_API_KEY": "", "ISOTIER_STATE_DIR": str(tmp_path / "leases")})
    assert v.verdict == "UNAVAILABLE" and v.exit_status == _errors.EX_UNAVAILABLE
    assert "not configured: set E2B_API_KEY" in v.reason and v.existing_sandbox is None
