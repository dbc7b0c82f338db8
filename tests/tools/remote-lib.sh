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
# evidence_has NAME PATH: the latest observation's evidence archive holds PATH.
evidence_has() {
  python3 - "$D/h.db" "$2" <<'PY' || fail "$1: evidence: $(cat "$D/out")"
import io, sqlite3, sys, tarfile
blob = sqlite3.connect(sys.argv[1]).execute(
    "SELECT evidence FROM observations ORDER BY id DESC LIMIT 1").fetchone()[0]
assert blob, "no evidence stored"
names = [m.name.lstrip("./") for m in tarfile.open(fileobj=io.BytesIO(blob)).getmembers()]
assert sys.argv[2] in names, names[:40]
PY
}
# microvm_cases: the backend's MICROVM claim (firecracker) CONTRADICTED by two
# sandboxes on one kernel (exit 1), CONSISTENT with a kernel each (exit 0),
# every sandbox deleted both times; uses the test's emu.
microvm_cases() {
  emu shared
  verify_remote shared
  assert_eq "$rc" 1 "shared kernel: exit ($(cat "$D/out" "$D/err"))"
  grep -Eq "^$REMOTE_BACKEND +MICROVM \\(firecracker\\) +CONTAINER \\(bubblewrap\\) +CONTRADICTED" "$D/out" || fail "shared: $(cat "$D/out")"
  assert_eq "$(row)" "CONTRADICTED|shared|CONTAINER" "shared: stored row"
  all_deleted shared 2
  echo "ok: shared kernel -> CONTRADICTED"

  emu dedicated --identity fake
  verify_remote dedicated
  assert_eq "$rc" 0 "dedicated: exit ($(cat "$D/out"))"
  assert_eq "$(row)" "CONSISTENT|dedicated|CONTAINER" "dedicated: stored row"
  all_deleted dedicated 2
  echo "ok: a kernel each -> CONSISTENT"
  # The capture came back in the artifact step (fetch): the first sandbox's
  # kernel identity is in the stored evidence, as for a local backend.
  evidence_has dedicated proc/sys/kernel/random/boot_id
  echo "ok: the remote capture is kept as evidence"
}
