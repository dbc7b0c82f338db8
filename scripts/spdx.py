#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# spdx.py [--check] - every C, shell and Python source the repository tracks carries one
# SPDX-License-Identifier line near its top (LICENSE: Apache-2.0): a C file's first line, a
# script's line after its shebang. A first line other tools read stays first: a unit suite's
# `/* isotier-unit: ... */` (tests/run-unit.sh) and an integration test's tag on line 2
# (tests/run-integration.sh) keep their places, the identifier goes after them.
# --check: list the files without one and exit 1 (tests/integration/licence.sh).
import subprocess
import sys

LICENCE = "Apache-2.0"
TAG = "SPDX-License-Identifier:"


def marker(path):
    if path.endswith((".c", ".h")):
        return "/* %s %s */\n" % (TAG, LICENCE)
    return "# %s %s\n" % (TAG, LICENCE)


def where(lines, path):
    """The index the identifier goes at: after a shebang and the lines tools read by position."""
    i = 0
    if lines and lines[0].startswith("#!"):
        i = 1
        if len(lines) > 1 and lines[1].startswith("# isotier-test:"):
            i = 2
    elif path.endswith((".c", ".h")) and lines and lines[0].startswith("/* isotier-unit:"):
        i = 1
    return i


def main():
    check = "--check" in sys.argv[1:]
    files = subprocess.run(["git", "ls-files", "*.c", "*.h", "*.sh", "*.py"], check=True,
                           capture_output=True, text=True).stdout.split()
    missing = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        if any(TAG in line for line in lines[:4]):
            continue
        if check:
            missing.append(path)
            continue
        lines.insert(where(lines, path), marker(path))
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)
    if missing:
        print("no %s line in the first 4 lines of: %s" % (TAG, " ".join(missing)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
