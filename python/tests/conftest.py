# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the package's tests: the checkout, its build, real files.

Run by tests/integration/python_api.sh against the built library
($ISOTIER_LIBRARY, $ISOTIER_CLI); run by hand from a built checkout they find
the same through the package's own search.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import isotier  # noqa: E402


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def cli() -> str:
    return isotier.cli_path()


@pytest.fixture
def variant(tmp_path: Path):
    """variant(ID, MODE): the real catalogue with one entry rewritten (tests/tools/catalogue_variant.py)."""

    def make(pid: str, mode: str) -> Path:
        dest = tmp_path / f"cat-{pid}-{mode.replace('/', '_')}"
        subprocess.run(
            [sys.executable, str(ROOT / "tests/tools/catalogue_variant.py"),
             str(ROOT / "catalogue/providers"), str(dest), pid, mode],
            check=True,
        )
        return dest

    return make


@pytest.fixture
def history(tmp_path: Path, cli: str):
    """A new, empty history database (its schema made by the real CLI)."""
    db = tmp_path / "history.db"
    subprocess.run(
        [cli, "run", "--new-db", "--backend", "host", "--db", str(db), "--", "/bin/true"],
        check=True, capture_output=True, timeout=120,
    )
    assert db.is_file()
    return db
