#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# Each backend's descriptor lists every environment variable its file reads
# (`isotier backends --json` settings): a variable added to a backend without
# its setting row fails here. A secret's value never appears in the listing,
# and a remote backend is unavailable until its required settings are set.
. "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
secret="isotier-planted-$$-$RANDOM-credential"
env -u E2B_API_KEY -u FLY_APP "$ISOTIER_BIN" backends --json >"$TMP/unset.json"
E2B_API_KEY=$secret FLY_API_TOKEN=$secret "$ISOTIER_BIN" backends --json >"$TMP/set.json"
! grep -qF "$secret" "$TMP/set.json" || fail "a secret's value is in backends --json"
python3 - "$R/reference" "$TMP/unset.json" "$TMP/set.json" <<'PY'
import glob, json, os, re, sys
ref, unset, setj = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
by_name = {b["backend"]: b for b in unset}
# The variables a file reads: getenv("X"), a *_ENV macro "X", a setting
# helper's first argument, or a .guest_env/.init_env field.
read_pat = re.compile(r'(?:getenv|isotier__remote_setting|isotier__remote_run_init\([^;]*?)\(?\s*"([A-Z][A-Z0-9_]+)"'
                      r'|#define\s+\w+_ENV\s+"([A-Z][A-Z0-9_]+)"'
                      r'|_env\s*=\s*"([A-Z][A-Z0-9_]+)"'
                      r'|"(ISOTIER_[A-Z0-9_]+_URL)"')
generic = {"PATH", "TMPDIR", "HOME", "XDG_CACHE_HOME"}
checked = 0
remote_found = set()
# A local backend is reference/backend_<name>.c; a remote provider is a file of
# reference/backends/remote/ whose descriptor ISOTIER_REMOTE_BACKEND(<name>, ...) makes (an engine's
# or an OCI runtime's: ISOTIER_ENGINE_BACKEND / ISOTIER_OCI_BACKEND).
remote_dir = os.path.join(ref, "backends", "remote")
engine = {"remote.c", "remote_util.c"}
files = set(glob.glob(os.path.join(ref, "**", "backend_*.c"), recursive=True) + glob.glob(os.path.join(remote_dir, "*.c")))
assert len(glob.glob(os.path.join(remote_dir, "*.c"))) >= 6, "no remote providers found"
for path in sorted(files):
    src = open(path).read()
    names = re.findall(r'const isotier_backend isotier__backend_\w+ = \{\s*\.version = \w+,(?:\s*\.settings = \w+,)?\s*\.name = "([^"]+)"', src)
    names += re.findall(r'^ISOTIER_REMOTE_BACKEND\(\s*(\w+),', src, re.M)
    names += re.findall(r'^ISOTIER_(?:ENGINE|OCI)_BACKEND\(\s*isotier__backend_\w+,\s*\w+,\s*\.name = "([^"]+)"', src, re.M)
    if os.path.dirname(path) == remote_dir:
        remote_found |= set(names)
    if not names:  # a helper of other backends' files: it reads nothing of its own
        assert os.path.basename(path) in engine or not read_pat.findall(src), path
        continue
    declared = set()
    for n in names:
        declared |= {s["env"] for s in by_name[n]["settings"]}
    read = {v for m in read_pat.findall(src) for v in m if v} - generic
    missing = read - declared
    assert not missing, f"{os.path.basename(path)} reads {sorted(missing)} without a setting row"
    checked += len(read)
# Every remote backend's file was read (a descriptor the pattern misses reads as no backend).
assert remote_found == {b["backend"] for b in unset if b["remote"]}, remote_found
# The remote engine's shared settings belong to every remote backend.
shared = set()
for f in engine:
    shared |= set(re.findall(r'getenv\("([A-Z][A-Z0-9_]+)"\)', open(os.path.join(remote_dir, f)).read()))
assert "ISOTIER_REMOTE_MAX_SANDBOXES" in shared, shared
for b in unset:
    if b["remote"]:
        missing = shared - {s["env"] for s in b["settings"]}
        assert not missing, f"{b['backend']}: {sorted(missing)} without a setting row"
assert checked >= 20, f"only {checked} variables found: the pattern no longer matches the sources"
e2b_unset = by_name["e2b"]
assert not e2b_unset["available"] and "E2B_API_KEY" in e2b_unset["unavailable_reason"], e2b_unset
e2b_set = {b["backend"]: b for b in setj}["e2b"]
key = [s for s in e2b_set["settings"] if s["env"] == "E2B_API_KEY"][0]
assert key["secret"] and key["required"] and key["set"], key
# FLY_APP is required too: a token alone does not make fly available.
fly = {b["backend"]: b for b in setj}["fly"]
assert not fly["available"] and "FLY_APP" in fly["unavailable_reason"], fly
PY
echo "ok: every variable a backend reads is a setting of its descriptor"
