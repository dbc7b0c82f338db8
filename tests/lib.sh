# SPDX-License-Identifier: Apache-2.0
# tests/lib.sh - sourced by integration tests. Real sandboxes, real files.
set -euo pipefail
: "${ISOTIER_ROOT:?run through tests/run-integration.sh}"
TMP=$(mktemp -d /tmp/isotier-test.XXXXXX)
# The job (runbook/jobs/isotier-reverify.sh) reads /etc/default/isotier: this host's settings are
# not a test's (a test that wants a file names its own).
export ISOTIER_DEFAULTS=${ISOTIER_DEFAULTS:-/dev/null}
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# Skip loudly: the last line printed is the reason the runner shows.
skip() { echo "SKIPPED (loudly): $*"; exit 77; }
assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected '$2', got '$1'"; }
# sqlite3 reading a history a run may be writing: waits for a writer's lock as
# isotier does (history_sqlite.c's busy timeout) instead of failing with 5 (BUSY).
sql() { sqlite3 -batch -noheader -cmd '.timeout 10000' "$@"; }
assert_contains() { grep -qF -- "$2" <<<"$1" || fail "${3:-missing text}: '$2' not in: $(head -c 2000 <<<"$1")"; }
# jq-free JSON field access through python3's json module.
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); 
for k in sys.argv[2].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d if not isinstance(d,(dict,list)) else json.dumps(d))' "$1" "$2"; }
# empty_history PATH: a new history at PATH with no observation (run's --new-db
# on the host backend: no sandbox), for a test that wants "nothing verified
# yet"; prints PATH. A $ISOTIER_DB that does not exist is refused (66).
empty_history() {
  [ -e "$1" ] || (cd / && "$ISOTIER_BIN" run --db "$1" --new-db --backend host -- true) >/dev/null ||
    fail "empty_history $1"
  echo "$1"
}
