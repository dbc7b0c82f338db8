# SPDX-License-Identifier: Apache-2.0
"""The ctypes structs and constants are include/isotier.h's, byte for byte.

A C program compiled against the header prints every size, offset, version
and code; the package's mirror must say the same.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from isotier import _lib
from isotier._tier import Tier

STRUCTS = {
    "isotier_error": _lib.Error,
    "isotier_create_opts": _lib.CreateOpts,
    "isotier_exec_opts": _lib.ExecOpts,
    "isotier_resolve_request": _lib.ResolveRequest,
    "isotier_resolved": _lib.Resolved,
}
CONSTANTS = {
    "ISOTIER_ERROR_VERSION": _lib.ERROR_VERSION,
    "ISOTIER_CREATE_OPTS_VERSION": _lib.CREATE_OPTS_VERSION,
    "ISOTIER_EXEC_OPTS_VERSION": _lib.EXEC_OPTS_VERSION,
    "ISOTIER_RESOLVE_REQUEST_VERSION": _lib.RESOLVE_REQUEST_VERSION,
    "ISOTIER_RESOLVED_VERSION": _lib.RESOLVED_VERSION,
    "ISOTIER_ERROR_MESSAGE_MAX": _lib.ERROR_MESSAGE_MAX,
    "ISOTIER_OK": _lib.OK,
    "ISOTIER_ERROR": _lib.ERROR,
    "ISOTIER_EINVAL": _lib.EINVAL,
    "ISOTIER_ENOMEM": _lib.ENOMEM,
    "ISOTIER_EIO": _lib.EIO,
    "ISOTIER_ECONFIG": _lib.ECONFIG,
    "ISOTIER_EUNAVAILABLE": _lib.EUNAVAILABLE,
    "ISOTIER_ETIMEDOUT": _lib.ETIMEDOUT,
    "ISOTIER_EDATA": _lib.EDATA,
    "ISOTIER_EDB": _lib.EDB,
    "ISOTIER_EINTR": _lib.EINTR,
    "ISOTIER_ENOTFOUND": _lib.ENOTFOUND,
    "ISOTIER_EBUSY": _lib.EBUSY,
    **{f"ISOTIER_{t.name}": int(t) for t in Tier},
}


def _c_layout(root: Path, tmp_path: Path) -> dict[str, int]:
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.fail("no C compiler: scripts/deps.sh installs build-essential")
    lines = ["#include <isotier.h>", "#include <stddef.h>", "#include <stdio.h>", "int main(void) {"]
    for cname, py in STRUCTS.items():
        lines.append(f'printf("sizeof {cname} %zu\\n", sizeof({cname}));')
        for fname, _ in py._fields_:
            lines.append(f'printf("offsetof {cname}.{fname} %zu\\n", offsetof({cname}, {fname}));')
            lines.append(
                f'printf("sizeof {cname}.{fname} %zu\\n", sizeof((({cname} *)0)->{fname}));'
            )
    for name in CONSTANTS:
        lines.append(f'printf("value {name} %d\\n", (int)({name}));')
    lines += ["return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run(
        [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{root / 'include'}", str(src), "-o", str(exe)],
        check=True,
        timeout=120,
    )
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=30).stdout
    facts = {}
    for line in out.splitlines():
        kind, name, value = line.split()
        facts[f"{kind} {name}"] = int(value)
    return facts


def test_structs_and_constants_match_the_header(root: Path, tmp_path: Path) -> None:
    c = _c_layout(root, tmp_path)
    checked = 0
    for cname, py in STRUCTS.items():
        assert ctypes.sizeof(py) == c[f"sizeof {cname}"], cname
        for fname, ftype in py._fields_:
            assert getattr(py, fname).offset == c[f"offsetof {cname}.{fname}"], f"{cname}.{fname}"
            assert ctypes.sizeof(ftype) == c[f"sizeof {cname}.{fname}"], f"{cname}.{fname}"
            checked += 1
    for name, value in CONSTANTS.items():
        assert value == c[f"value {name}"], name
    assert checked >= 43


def test_every_struct_field_of_the_header_is_mirrored(root: Path) -> None:
    """A field added to the header (a new version) must be added here too."""
    import re

    header = (root / "include" / "isotier.h").read_text()
    for cname, py in STRUCTS.items():
        body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (cname, cname), header, re.S)
        assert body, cname
        text = re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S)
        names = re.findall(r"([a-z_]+)(?:\[[A-Z_0-9]+\])?;", text)
        assert names == [f for f, _ in py._fields_], cname


def test_the_library_is_the_headers_version(root: Path) -> None:
    import re

    import isotier

    header = (root / "include" / "isotier.h").read_text()
    want = re.search(r'#define ISOTIER_VERSION +"([0-9.]+)"', header)
    assert want and isotier.version() == want.group(1)
    assert isotier.library_path().endswith("libisotier.so.0")
