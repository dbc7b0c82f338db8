#!/usr/bin/env bash
# isotier-test: fast; uses: docker
# SPDX-License-Identifier: Apache-2.0
# Hostile engine output, bounded: a stand-in `docker` first in PATH (like the fault probes stand
# in for isotier-probe; under a context, so that availability asks it) answers `docker info` with what a compromised or broken daemon could send:
# terminal escapes and NULs in runtime names, 200 runtimes, 1 MiB of output, JSON that is not an
# object, and then garbage for `docker import`. `isotier backends` stays bounded and terminal-safe,
# the docker backends call themselves unavailable or fail cleanly, and nothing is left behind.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
mkdir -p "$TMP/bin"
cat >"$TMP/bin/docker" <<'SH'
#!/bin/sh
# argv[1] is the subcommand; $HOSTILE_MODE picks the answer.
case "$1:$HOSTILE_MODE" in
  info:escapes)
    printf '{"ru\\u001b[31mnc":{"path":"runc"},"runsc":{"path":"/tmp/\\u001b]0;pwned\\u0007x","runtimeArgs":["--a\\u0000b","\\u009b2J"]}}\n' ;;
  info:many)
    python3 -c 'import json; print(json.dumps({"rt%03d" % i: {"path": "/p/%d" % i, "runtimeArgs": ["x" * 50] * 3} for i in range(200)}))' ;;
  info:huge)
    head -c 1048576 /dev/zero | tr '\0' 'A' ;;
  info:array)
    echo '["runsc"]' ;;
  info:*)
    echo '{"runc":{"path":"runc"},"runsc":{"path":"/usr/bin/runsc"}}' ;;
  import:*)
    printf 'sha256:\033[2Jnot-an-id\n' ;;
  *) exit 0 ;;
esac
SH
chmod +x "$TMP/bin/docker"
# A context: availability asks `docker info` (without one it asks the daemon's API over its
# socket, whose hostile answers backend_docker.sh's stand-in daemon sends).
export PATH="$TMP/bin:$PATH" DOCKER_CONTEXT=default

for mode in escapes many huge array; do
  HOSTILE_MODE=$mode "$ISOTIER_BIN" backends >"$TMP/$mode.txt" 2>&1 || fail "backends with a $mode daemon: $(tail -n 3 "$TMP/$mode.txt")"
  line=$(grep '^docker-runsc ' "$TMP/$mode.txt") || fail "$mode: no docker-runsc row"
  # Bounded: the row is well under the availability buffer; no control byte reaches the terminal.
  [ "${#line}" -lt 1400 ] || fail "$mode: docker-runsc row is ${#line} bytes"
  if LC_ALL=C grep -q "$(printf '[\001-\010\016-\037\177]')" "$TMP/$mode.txt"; then
    fail "$mode: control bytes in the output: $(cat -v "$TMP/$mode.txt" | grep docker | head -c 600)"
  fi
  echo "ok: $mode: $(head -c 300 <<<"$line")"
done
assert_contains "$(cat "$TMP/escapes.txt")" "runsc (/tmp/??0?pwned?x --a ??2J)" "escapes: sanitized runtime path and args"
assert_contains "$(cat "$TMP/many.txt")" ", ..." "many: the list is cut"
rc=0
HOSTILE_MODE=huge "$DRIVER" --backend docker --available >"$TMP/huge.avail" || rc=$?
assert_eq "$rc" 69 "huge: docker is unavailable (not a runtimes table)"
assert_contains "$(cat "$TMP/huge.avail")" "longer than 65536 bytes" "huge: reason"
rc=0
HOSTILE_MODE=array "$DRIVER" --backend docker-runsc --available >"$TMP/array.avail" || rc=$?
assert_eq "$rc" 69 "array: docker-runsc is unavailable"
assert_contains "$(cat "$TMP/array.avail")" "not a JSON object" "array: reason"

# A daemon whose import answer is not an image id: provision fails (65/70), nothing is left.
rc=0
HOSTILE_MODE=plain "$DRIVER" --backend docker --minimal --probe "$PROBE" -- /.isotier/isotier-probe >"$TMP/imp.out" 2>"$TMP/imp.err" || rc=$?
[ "$rc" != 0 ] || fail "docker with a garbled import answer succeeded"
assert_contains "$(cat "$TMP/imp.err")" "unexpected answer" "import: reason"
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/imp.err"; then fail "import: escape reached stderr"; fi
assert_nothing_left "garbled import"
echo "ok: garbled import answer refused: $(tail -n 2 "$TMP/imp.err" | head -n 1)"
