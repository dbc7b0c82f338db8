#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# isotier_create() refuses a tier it cannot defend BEFORE anything is
# provisioned: for each local backend and each requirement above its claim,
# exit 78 with ConfigurationError, and strace shows no process started and no
# file created but the audit log and the history.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v strace >/dev/null || skip "strace missing (scripts/deps.sh installs it)"

declare -A claim=([bwrap]=CONTAINER [runc]=CONTAINER [runsc]=GVISOR [qemu-microvm]=MICROVM)
rank() { case $1 in CONTAINER) echo 1;; GVISOR) echo 2;; MICROVM) echo 3;; esac; }

refusals=0
for backend in bwrap runc runsc qemu-microvm; do
  for req in CONTAINER GVISOR MICROVM; do
    [ "$(rank "$req")" -gt "$(rank "${claim[$backend]}")" ] || continue
    work=$TMP/$backend-$req; mkdir -p "$work/tmp"
    set +e
    TMPDIR=$work/tmp strace -f -qq -o "$work/trace" \
      -e trace=execve,execveat,clone,clone3,fork,vfork,unshare,mkdir,mkdirat,openat,creat,symlink,link \
      "$ISOTIER_BIN" run --new-db --backend "$backend" --require-isolation "$req" \
      --db "$work/h.db" --audit-log "$work/audit.jsonl" -- /bin/echo provisioned \
      >"$work/out" 2>"$work/err"
    rc=$?
    set -e
    assert_eq "$rc" 78 "$backend requiring $req: exit status"
    err=$(cat "$work/err")
    assert_contains "$err" "ConfigurationError: backend $backend resolves to ${claim[$backend]}, weaker than the required $req"
    [ ! -s "$work/out" ] || fail "$backend/$req: the command ran: $(cat "$work/out")"
    # Exactly one execve (isotier itself), no process or namespace created.
    assert_eq "$(grep -c 'execve(' "$work/trace")" 1 "$backend/$req: execve count"
    ! grep -Eq '(clone|clone3|fork|vfork|unshare)\(' "$work/trace" || fail "$backend/$req: a process was started: $(grep -E 'clone|fork|unshare' "$work/trace" | head -3)"
    # No file or directory created except the audit sinks.
    created=$(grep -E 'O_CREAT|mkdir|creat\(|symlink|link\(' "$work/trace" | grep -v -e "$work/audit.jsonl" -e "$work/h.db" || true)
    [ -z "$created" ] || fail "$backend/$req: files created: $created"
    [ -z "$(ls -A "$work/tmp")" ] || fail "$backend/$req: TMPDIR not empty"
    # The refusal is audited, with the tiers.
    python3 - "$work/audit.jsonl" "$backend" "$req" "${claim[$backend]}" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 1, lines
e = lines[0]
assert e["event"] == "refuse" and e["decision"] == "refused", e
assert e["backend"] == sys.argv[2] and e["required_tier"] == sys.argv[3], e
assert e["resolved_tier"] == sys.argv[4] and e["claimed_tier"] == sys.argv[4], e
# The record of the refusal: requested (required_tier), effective tier and reason.
assert e["effective_tier"] == sys.argv[4] and "weaker than the required" in e["reason"], e
PY
    n=$(sqlite3 "$work/h.db" "SELECT count(*) FROM audit_events WHERE event='refuse' AND backend='$backend' AND required_tier='$req'")
    assert_eq "$n" 1 "$backend/$req: refusal stored in history"
    refusals=$((refusals + 1))
  done
done
assert_eq "$refusals" 5 "number of refusal cases"

# An unknown tier name or backend is a usage error, not a silent default.
set +e
"$ISOTIER_BIN" run --new-db --backend bwrap --require-isolation VM -- /bin/true 2>/dev/null; assert_eq $? 64 "bad tier"
"$ISOTIER_BIN" run --new-db --backend nosuch -- /bin/true 2>"$TMP/nosuch.err"; rc=$?
set -e
assert_eq "$rc" 64 "unknown backend is a usage error ($(cat "$TMP/nosuch.err"))"
assert_contains "$(cat "$TMP/nosuch.err")" "unknown backend 'nosuch'"
echo "ok: $refusals refusals with nothing provisioned"
