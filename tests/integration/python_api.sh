#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# The Python package (python/isotier) against the built library and CLI, with
# Debian's python3 and pytest (python/tests): its structs are the header's
# (a C program prints every size and offset), each library error class raises
# its exception with the CLI's exit status, a refusal starts nothing and is
# audited, a grant attests on a real bwrap sandbox, a real `isotier verify` of
# a lying catalogue entry leaves a CONTRADICTED history that resolve() and
# require() honour, the framework-level mapping is the published one, and
# verify(provider=, sandbox_id=) verifies an existing sandbox behind the
# provider emulators (python/tests/test_existing.py: never CONFIRMED, the
# caller's sandbox left running, NotFoundError and InvalidArgumentError).
. "$ISOTIER_ROOT/tests/lib.sh"
py=${ISOTIER_PYTHON:-/usr/bin/python3}
[ -x "$py" ] || skip "$py missing (scripts/deps.sh installs python3)"
"$py" -c 'import pytest' 2>/dev/null || skip "pytest missing for $py (scripts/deps.sh installs python3-pytest)"
command -v bwrap >/dev/null || skip "bwrap is not installed"
lib=$ISOTIER_ROOT/$BUILD/libisotier.so.0
[ -f "$lib" ] || fail "not built: $lib"
# The package reads no history of the host's: each test names its own; the
# default ($ISOTIER_DB) points into this test's directory.
export ISOTIER_LIBRARY=$lib ISOTIER_CLI=$ISOTIER_BIN PYTHONDONTWRITEBYTECODE=1
ISOTIER_DB=$(empty_history "$TMP/host.db") # a named history must exist: empty, nothing verified
export ISOTIER_DB
cd "$TMP"
timeout 600 "$py" -m pytest -p no:cacheprovider -q --basetemp="$TMP/pytest" "$ISOTIER_ROOT/python/tests" \
  >"$TMP/pytest.out" 2>&1 || fail "pytest: $(tail -60 "$TMP/pytest.out")"
tail -1 "$TMP/pytest.out"
grep -Eq '^[0-9]+ passed' <<<"$(tail -1 "$TMP/pytest.out")" || fail "pytest summary: $(tail -5 "$TMP/pytest.out")"
! grep -q 'skipped' <<<"$(tail -1 "$TMP/pytest.out")" || fail "tests skipped: $(tail -20 "$TMP/pytest.out")"

# Installed as `make python` installs it (what a python3-isotier package ships): it finds no
# build tree from there, so without $ISOTIER_LIBRARY it asks the loader for the soname; with
# it, the installed copy grants and refuses as the checkout's does.
make -s -C "$ISOTIER_ROOT" --no-print-directory python PREFIX=/usr DESTDIR="$TMP/root" >"$TMP/make.out" 2>&1 ||
  fail "make python: $(cat "$TMP/make.out")"
site=$TMP/root/usr/lib/python3/dist-packages
for f in __init__.py _lib.py py.typed framework-levels.json; do
  [ -f "$site/isotier/$f" ] || fail "make python did not install isotier/$f"
done
PYTHONPATH=$site "$py" - "$site" <<'PY' || fail "the installed package"
import os, sys
env_lib = os.environ.pop("ISOTIER_LIBRARY")
import isotier
assert isotier.__file__.startswith(sys.argv[1]), isotier.__file__
assert isotier.library_path() == "libisotier.so.0", isotier.library_path()
os.environ["ISOTIER_LIBRARY"] = env_lib
assert isotier.require("bwrap", "CONTAINER", attest=False).tier == isotier.Tier.CONTAINER
try:
    isotier.require("bwrap", "MICROVM", attest=False)
except isotier.RefusedError as e:
    assert e.exit_class == 78 and e.effective_tier == isotier.Tier.CONTAINER, e
else:
    raise SystemExit("bwrap granted MICROVM")
print("installed:", isotier.__file__)
PY
echo "ok: the Python package against $lib"
