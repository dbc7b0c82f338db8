# SPDX-License-Identifier: Apache-2.0
# remote-lib.sh - sourced by tests/integration/remote_*.sh (after tests/lib.sh):
# the steps each remote backend's test repeats against its emulator
# (tests/tools/*_emulator.py, a real bwrap sandbox behind every create).
# The test sets before sourcing: KEY (the planted credential), REMOTE_BACKEND
# (verify --backend), REMOTE_SECRET (what KEY is called: "the API key"),
# REMOTE_NOUN and REMOTE_GONE (what is created and what becomes of it:
# "sandboxes", "deleted").
command -v bwrap >/dev/null || skip "bwrap is not installed (the emulator's sandboxes)"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI is not installed"
bwrap --unshare-all --ro-bind / / true 2>/dev/null || skip "bwrap cannot create namespaces here"
# The leases of the sandboxes a test leaks on purpose stay in the test's own
# state directory, never the host's (lease.h).
export ISOTIER_STATE_DIR=$TMP/state
EMU_PID=
stop_emu() { [ -z "$EMU_PID" ] || { kill "$EMU_PID" 2>/dev/null; wait "$EMU_PID" 2>/dev/null || true; }; EMU_PID=; }

# emu_start NAME EMULATOR [emulator options]: stops the last emulator, starts
# tests/tools/EMULATOR with D=$TMP/NAME holding its state, port, ledger and
# request log; fails unless it listens within 5 s.
emu_start() {
  local name=$1 tool=$2; shift 2
  stop_emu
  D=$TMP/$name; mkdir -p "$D/state"
  python3 "$ISOTIER_ROOT/tests/tools/$tool" --port-file "$D/port" --key "$KEY" \
    --state "$D/state" --ledger "$D/ledger" --log "$D/requests" --lifetime 120 "$@" &
  EMU_PID=$!
  for _ in $(seq 50); do [ -s "$D/port" ] && break; sleep 0.1; done
  [ -s "$D/port" ] || fail "$name: the emulator did not start"
  touch "$D/ledger"
}
# verify_remote NAME [verify options]: rc in $rc, outputs in $D/{out,err}, no_secret checked.
verify_remote() {
  local name=$1; shift
  set +e
  "$ISOTIER_BIN" verify --backend "$REMOTE_BACKEND" --db "$D/h.db" --timeout 20 "$@" >"$D/out" 2>"$D/err"
  rc=$?
  set -e
  no_secret "$name"
}
# no_secret NAME: every output, the history included, is free of the credential.
no_secret() {
  local f
  for f in "$D/out" "$D/err"; do
    ! grep -qF "$KEY" "$f" || fail "$1: $REMOTE_SECRET appears in $f"
  done
  if [ -f "$D/h.db" ]; then
    ! sqlite3 "$D/h.db" .dump | grep -qF "$KEY" || fail "$1: $REMOTE_SECRET is in the history"
  fi
}
# all_deleted NAME [MIN]: at least MIN (1) created, and every one deleted.
all_deleted() {
  local created deleted
  created=$(grep -c '^create ' "$D/ledger" || true)
  deleted=$(grep -c '^delete ' "$D/ledger" || true)
  [ "$created" -ge "${2:-1}" ] || fail "$1: $created $REMOTE_NOUN created ($(cat "$D/ledger"))"
  assert_eq "$deleted" "$created" "$1: $REMOTE_NOUN $REMOTE_GONE of those created ($(cat "$D/ledger"))"
}
# The last observation's verdict|kernel_relation|observed_tier.
row() { sqlite3 "$D/h.db" "SELECT verdict, kernel_relation, observed_tier FROM observations ORDER BY id DESC LIMIT 1"; }
# verify_unconfigured VAR LABEL: without $VAR, verify is UNAVAILABLE (69) naming VAR.
verify_unconfigured() {
  set +e
  env -u "$1" "$ISOTIER_BIN" verify --backend "$REMOTE_BACKEND" --db "$D/h.db" >"$D/out" 2>&1; rc=$?
  set -e
  assert_eq "$rc" 69 "$2: exit"
  assert_contains "$(cat "$D/out")" "not configured: set $1"
}
# leak_named WHAT: every id the emulator created is named in $D/err (the leak's report).
leak_named() {
  local id
  for id in $(sed -n 's/^create //p' "$D/ledger"); do
    assert_contains "$(cat "$D/err")" "$id" "leak: $1 id named"
  done
}
# create500_case ROUTE [LIST]: the second create answers 500 after making its sandbox (the
# emulator's create-500): the create is not repeated blindly (ROUTE as the request log writes
# it), what it made is found by the run's nonce (listed through LIST when given) and deleted.
create500_case() {
  emu create500 --fault create-500
  verify_remote create500
  assert_eq "$rc" 70 "create 500: exit"
  assert_eq "$(grep -c "^POST $1\$" "$D/requests")" 2 "create 500: no blind retry"
  [ -z "${2:-}" ] || grep -qx "GET $2" "$D/requests" || fail "create 500: not listed by GET $2"
  all_deleted create500 2
}
# leak_case FAULT WHAT: every delete fails (the emulator's FAULT): exit 70, every id named.
leak_case() {
  emu leak --fault "$1"
  verify_remote leak
  assert_eq "$rc" 70 "leak: exit"
  leak_named "$2"
}
# evidence_has NAME PATH: the latest observation's evidence archive holds PATH.
evidence_has() {
  python3 - "$D/h.db" "$2" <<'PY' || fail "$1: evidence: $(cat "$D/out")"
import io, sqlite3, sys, tarfile
blob = sqlite3.connect(sys.argv[1]).execute(
    "SELECT COALESCE(evidence, (SELECT content FROM evidence_blobs e"
    " WHERE e.sha256 = observations.evidence_sha256)) FROM observations"
    " ORDER BY id DESC LIMIT 1").fetchone()[0]
assert blob, "no evidence stored"
names = [m.name.lstrip("./") for m in tarfile.open(fileobj=io.BytesIO(blob)).getmembers()]
assert sys.argv[2] in names, names[:40]
PY
}
# microvm_cases [verify options]: the backend's MICROVM claim (firecracker)
# CONTRADICTED by two sandboxes on one kernel (exit 1), then lying_cases;
# every sandbox deleted each time; uses the test's emu.
microvm_cases() {
  emu shared
  verify_remote shared "$@"
  assert_eq "$rc" 1 "shared kernel: exit ($(cat "$D/out" "$D/err"))"
  grep -Eq "^$REMOTE_BACKEND +MICROVM \\(firecracker\\) +CONTAINER \\(bubblewrap\\) +CONTRADICTED" "$D/out" || fail "shared: $(cat "$D/out")"
  assert_eq "$(row)" "CONTRADICTED|shared|CONTAINER" "shared: stored row"
  all_deleted shared 2
  echo "ok: shared kernel -> CONTRADICTED"
  lying_cases "$@"
}

# The recorded genuine microVM probe output a replaying provider answers with:
# the probe's own report of a Firecracker guest, replayed from its capture.
replay_recording() {
  [ -s "$TMP/replay.json" ] ||
    "$ISOTIER_PROBE" --json --root "$ISOTIER_ROOT/tests/fixtures/probe/real-firecracker-native" \
      >"$TMP/replay.json" || fail "recording the microVM output to replay"
  echo "$TMP/replay.json"
}

# not_proven NAME: what a lying provider earns is at best NOT_CONTRADICTED
# (a remote claim above CONTAINER is its provider's testimony, never proven):
# never CONFIRMED, CONSISTENT or EXCEEDS; when NOT_CONTRADICTED, verify exits
# 0 (not drift), the table and the stored reason say "not contradicted, not
# proven", and a refused verdict (CONTRADICTED, INCONCLUSIVE) is fine too.
not_proven() {
  local v
  v=$(sqlite3 "$D/h.db" "SELECT verdict FROM observations ORDER BY id DESC LIMIT 1")
  case $v in
    NOT_CONTRADICTED)
      assert_eq "$rc" 0 "$1: exit ($(cat "$D/out" "$D/err"))"
      grep -Eq "^$REMOTE_BACKEND +MICROVM \\(firecracker\\) .* NOT_CONTRADICTED" "$D/out" || fail "$1: $(cat "$D/out")"
      assert_contains "$(sqlite3 "$D/h.db" 'SELECT reason FROM observations ORDER BY id DESC LIMIT 1')" \
        "not contradicted, not proven: no hardware attestation" "$1: stored reason"
      # What resolve may defend from it: nothing above CONTAINER.
      assert_eq "$(sqlite3 "$D/h.db" 'SELECT ceiling_tier FROM observations ORDER BY id DESC LIMIT 1')" CONTAINER "$1: ceiling"
      ;;
    CONTRADICTED | INCONCLUSIVE) ;;
    *) fail "$1: a lying provider is $v ($(cat "$D/out"))" ;;
  esac
  all_deleted "$1" 2
  echo "ok: $1 -> $v, not proven"
}

# refused NAME [options]: the claim this history holds grants nothing: `run` with
# --require-verified refuses the MICROVM tier (78) - a remote backend is
# refused before that (69, "is remote"), which is a refusal too - and the
# tier isotier resolves for the backend is not MICROVM.
refused() {
  local name=$1; shift
  set +e
  "$ISOTIER_BIN" run --backend "$REMOTE_BACKEND" --require-isolation MICROVM --require-verified 7 \
    --db "$D/h.db" "$@" -- /bin/true >"$D/run.out" 2>"$D/run.err"
  local run_rc=$?
  set -e
  case $run_rc in
    78) ;;
    69) assert_contains "$(cat "$D/run.err")" "is remote" "$name: run's refusal" ;;
    *) fail "$name: run --require-verified was not refused: exit $run_rc ($(cat "$D/run.err"))" ;;
  esac
  # A NOT_CONTRADICTED row defends nothing above CONTAINER (its ceiling):
  # the tier resolved for the backend, even without --require-verified.
  "$ISOTIER_BIN" backends --db "$D/h.db" --json "$@" >"$D/backends.json" 2>"$D/backends.err" ||
    fail "$name: backends: $(cat "$D/backends.err")"
  python3 - "$D/backends.json" "$REMOTE_BACKEND" "$name" "$(sqlite3 "$D/h.db" "SELECT verdict FROM observations ORDER BY id DESC LIMIT 1")" <<'PY'
import json, sys
b = [r for r in json.load(open(sys.argv[1])) if r["backend"] == sys.argv[2]]
assert len(b) == 1, (sys.argv[3], "backend not listed")
if sys.argv[4] == "NOT_CONTRADICTED":
    assert b[0]["resolved_tier"] not in ("MICROVM", "GVISOR"), (sys.argv[3], b[0])
PY
  echo "ok: $name: run --require-verified refused (exit $run_rc), nothing above CONTAINER defended"
}

# report_not_proven NAME [report options]: the report shows NOT_CONTRADICTED distinctly (a note
# "not proven", the row's state NOT PROVEN) and counts it as no alert.
report_not_proven() {
  local name=$1 f; shift
  for f in json md html; do
    "$ISOTIER_BIN" report --db "$D/h.db" --format $f --out "$D/report.$f" "$@" || fail "$name: report --format $f"
  done
  ! grep -qF "$KEY" "$D/report.json" "$D/report.md" "$D/report.html" || fail "$name: $REMOTE_SECRET in the report"
  python3 - "$D/report.json" "$REMOTE_BACKEND" "$name" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [m for m in doc["matrix"] if m["backend"] == sys.argv[2]]
assert len(rows) == 1, (sys.argv[3], rows)
r = rows[0]
assert r["verdict"] == "NOT_CONTRADICTED" and r["not_proven"] is True, r
assert not r["contradicted"] and not r["unproven"] and not r["overdue"], r
assert "NOT PROVEN" in r["state"], r
mine = [a for a in doc["attention"] if a["backend"] == sys.argv[2]]
assert [a["kind"] for a in mine] == ["not_proven"], mine
assert mine[0]["severity"] == "note" and mine[0]["failing"] is False, mine
assert "no hardware attestation" in mine[0]["detail"], mine
assert doc["summary"]["latest_verdicts"]["NOT_CONTRADICTED"] == 1, doc["summary"]
assert doc["summary"]["attention"]["not_proven"] == 1, doc["summary"]
PY
  assert_contains "$(cat "$D/report.md")" "_NOT\_CONTRADICTED_ (not proven: no hardware attestation)" "$name: markdown"
  assert_contains "$(cat "$D/report.html")" 'class="v v-not-contradicted">NOT_CONTRADICTED<' "$name: html"
  echo "ok: $name: the report shows NOT_CONTRADICTED as a note, not an alert"
}

# lying_cases [verify options]: a provider lying about its kernels - fake
# identity (two containers on one kernel, boot_ids forged distinct) and
# replay (a recorded genuine microVM probe output, fresh boot_id each) - is
# never proven, never enough for `run`. The fake identity is caught: the
# cross-sandbox challenge (one sandbox's task pattern in the other's task
# count) shows one kernel under both, whatever boot_id each prints:
# CONTRADICTED. The replay answers no challenge (it never runs the probe):
# its forged boot_ids stand, NOT_CONTRADICTED at best.
lying_cases() {
  emu fake --identity fake
  # A host busy with other tests can drown the pattern (the challenge unanswered, or too weak to
  # show): that verification claims nothing (NOT_CONTRADICTED is no grant), and it is tried again,
  # three times at most; a lie the challenge never catches fails.
  local try why
  for try in 1 2 3; do
    verify_remote fake "$@"
    [ "$rc" != 1 ] || break
    why=$(grep -o "cross-sandbox challenge unanswered[^;]*\|task pattern one [a-z0-9-]* sandbox made does not show[^;]*" "$D/out" | head -1)
    [ -n "$why" ] || break
    echo "fake identity: try $try not decided by the challenge ($why): again"
  done
  assert_eq "$rc" 1 "fake identity: exit ($(cat "$D/out" "$D/err"))"
  assert_eq "$(row)" "CONTRADICTED|shared|CONTAINER" "fake identity: stored row"
  assert_contains "$(cat "$D/out")" "sandboxes share one kernel: the random task pattern one" "fake identity: why"
  assert_contains "$(cat "$D/out")" "whatever boot_id each shows" "fake identity: why"
  not_proven "fake identity"
  # The capture came back in the artifact step (fetch): the first sandbox's
  # kernel identity is in the stored evidence, as for a local backend.
  evidence_has "fake identity" proc/sys/kernel/random/boot_id
  echo "ok: the remote capture is kept as evidence"
  refused "fake identity" "$@"

  emu replay --identity replay --replay "$(replay_recording)"
  verify_remote replay "$@"
  not_proven replay
  refused replay "$@"
  report_not_proven replay "$@"
}

# exit_wide: a provider that reports an exit code no process can exit with
# (the emulator's --fault exit-wide: `true` as 256, `/bin/true` as -256, both
# 0 once reduced to a byte; `false` as 0.5, 0 once truncated; `/bin/false` as
# -1, 255 once reduced) is an error naming the provider and the value, never
# success nor another status; a code in 0-255 is carried whole; every sandbox
# is deleted.
exit_wide() {
  local drv="$ISOTIER_ROOT/$BUILD/tests/backend-run" cmd want r
  [ -x "$drv" ] || fail "$drv not built (make BUILD=$BUILD $BUILD/tests/backend-run)"
  emu exitwide --fault exit-wide
  for cmd in "true 256" "/bin/true -256" "false 0.5" "/bin/false -1"; do
    set +e
    "$drv" --backend "$REMOTE_BACKEND" --probe "$ISOTIER_ROOT/$BUILD/isotier-probe" --timeout 30 -- "${cmd% *}" >"$D/out" 2>"$D/err"
    r=$?
    set -e
    no_secret exitwide
    assert_eq "$r" 70 "exit ${cmd#* } reported by $REMOTE_BACKEND: backend-run's exit ($(cat "$D/err"))"
    assert_contains "$(cat "$D/err")" "$REMOTE_BACKEND reported exit code ${cmd#* } "
  done
  for want in 0 3; do
    set +e
    "$drv" --backend "$REMOTE_BACKEND" --probe "$ISOTIER_ROOT/$BUILD/isotier-probe" --timeout 30 -- /bin/sh -c "exit $want" >"$D/out" 2>"$D/err"
    r=$?
    set -e
    assert_eq "$r" "$want" "exit $want through $REMOTE_BACKEND ($(cat "$D/err"))"
  done
  all_deleted exitwide 6
  echo "ok: exit codes outside 0-255 refused, inside carried whole"
}
