#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# The e2b backend's API faults against tests/tools/e2b_emulator.py (remote_e2b.sh has the
# verdicts, which need the cross-sandbox challenge: a challenge slot): a wrong key and a 403
# create nothing; a create that answers 500, hangs or answers hostile JSON; a process stream
# cut or never ending; SIGINT and SIGTERM during the probe or a hanging create; the per-run
# cap; and the emulator holding requests to E2B's spec. Every sandbox made is deleted on every
# path, and the planted API key is in no output at all. No run here reaches the challenge:
# each fails before both sandboxes answer their probe.
. "$ISOTIER_ROOT/tests/lib.sh"
. "$ISOTIER_ROOT/tests/tools/e2b-lib.sh"

# 5. A wrong key: 401, named; nothing created; the wrong key is not printed either.
emu badkey
WRONG="sk-e2b-WRONG-$$-$RANDOM"
set +e
E2B_API_KEY=$WRONG "$ISOTIER_BIN" verify --backend e2b --db "$D/h.db" >"$D/out" 2>"$D/err"; rc=$?
set -e
assert_eq "$rc" 70 "401: exit"
assert_contains "$(cat "$D/out")" "HTTP 401"
! grep -qF "$WRONG" "$D/out" "$D/err" || fail "401: the wrong key was printed"
dump=$(sqlite3 "$D/h.db" .dump)
! grep -qF "$WRONG" <<<"$dump" || fail "401: the wrong key is in the history"
echo "ok: 401 reported, key redacted"

# 6. 403 on create.
emu forbidden --fault create-403
verify_remote forbidden
assert_eq "$rc" 70 "403: exit"
assert_contains "$(cat "$D/out")" "HTTP 403"
echo "ok: 403 reported"

# 8. The second create answers 500 after making a sandbox: not repeated blindly;
#    what exists is listed by the run's nonce and deleted.
create500_case /sandboxes /v2/sandboxes
assert_contains "$(cat "$D/out")" "HTTP 500"
echo "ok: create 500 -> listed by nonce, deleted"

# 9. The second create never answers: the run's time limit ends it, the sweep deletes it.
emu createhang --fault create-hang
ISOTIER_REMOTE_WALL_S=4 verify_remote createhang
assert_eq "$rc" 70 "create hang: exit"
all_deleted createhang 2
echo "ok: create timeout -> listed by nonce, deleted"

# 9b. Hostile answers to a create: duplicate keys, 2 MiB. Rejected, and the
#     sandbox they stand for is found by the nonce and deleted.
for f in dupkey huge; do
  emu "create-$f" --fault "create-$f"
  verify_remote "create-$f"
  assert_eq "$rc" 70 "create $f: exit"
  case $f in
    dupkey) assert_contains "$(cat "$D/out")" "duplicate key" ;;
    huge) assert_contains "$(cat "$D/out")" "larger than" ;;
  esac
  all_deleted "create-$f" 2
done
echo "ok: hostile create answers rejected, their sandboxes deleted"

# 12. The process stream cut mid-way: an error, both deleted.
emu streamcut --fault stream-cut
verify_remote streamcut
assert_eq "$rc" 70 "stream cut: exit ($(cat "$D/out"))"
assert_contains "$(cat "$D/out")" "stream"
all_deleted streamcut 2
echo "ok: stream cut -> error, both deleted"

# 12b. The probe's stream never ends: --timeout ends it, both deleted.
emu exectimeout --fault start-hang
t0=$(date +%s)
verify_remote exectimeout --timeout 2
assert_eq "$rc" 70 "exec timeout: exit ($(cat "$D/out"))"
assert_contains "$(cat "$D/out")" "no complete answer"
[ $(( $(date +%s) - t0 )) -lt 15 ] || fail "exec timeout: not bounded by --timeout"
all_deleted exectimeout 2
echo "ok: exec timeout -> both deleted"

# 13. SIGINT while the probe runs (between create and delete): both deleted, 130.
# 13b. SIGTERM likewise: both deleted, 143.
for c in "INT 130" "TERM 143"; do
  sig=${c% *} name=sig$(tr 'A-Z' 'a-z' <<<"${c% *}")
  emu "$name" --fault start-hang
  set +e
  "$ISOTIER_BIN" verify --backend e2b --db "$D/h.db" --timeout 60 >"$D/out" 2>"$D/err" &
  vpid=$!
  for _ in $(seq 100); do grep -q 'process.Process/Start' "$D/requests" 2>/dev/null && break; sleep 0.1; done
  sleep 0.3
  kill -"$sig" "$vpid"
  wait "$vpid"; rc=$?
  set -e
  no_secret "$name"
  assert_eq "$rc" "${c#* }" "$name: exit ($(cat "$D/err"))"
  all_deleted "$name" 2
  echo "ok: SIG$sig -> both deleted"
done

# 13c. SIGINT while the second create hangs: the cancel descriptor stops the
#      create, the first sandbox is deleted and the second (outcome unknown)
#      is found by its nonce and deleted - cleanup requests ignore the cancel.
emu sigint-create --fault create-hang
set +e
"$ISOTIER_BIN" verify --backend e2b --db "$D/h.db" --timeout 60 >"$D/out" 2>"$D/err" &
vpid=$!
for _ in $(seq 100); do [ "$(grep -c '^create ' "$D/ledger" 2>/dev/null)" = 2 ] && break; sleep 0.1; done
sleep 0.3
t0=$(date +%s)
kill -INT "$vpid"
wait "$vpid"; rc=$?
set -e
no_secret sigint-create
assert_eq "$rc" 130 "sigint in create: exit ($(cat "$D/err"))"
[ $(( $(date +%s) - t0 )) -lt 10 ] || fail "sigint in create: not prompt"
all_deleted sigint-create 2
echo "ok: SIGINT during a create -> both deleted"

# 14. The per-run cap: one sandbox allowed, so the second create is refused
#     before any request and the first is deleted.
emu cap
ISOTIER_REMOTE_MAX_SANDBOXES=1 verify_remote cap
assert_eq "$rc" 70 "cap: exit"
assert_contains "$(cat "$D/out")" "ISOTIER_REMOTE_MAX_SANDBOXES"
assert_eq "$(grep -c '^create ' "$D/ledger")" 1 "cap: sandboxes created"
all_deleted cap 1
echo "ok: per-run cap"

# 15. The emulator itself holds requests to the spec (so the runs above mean
#     something): no key, a wrong content type, unknown fields, a bad envelope.
emu strict
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
U=$ISOTIER_E2B_API_URL
assert_eq "$(code -X POST -H 'Content-Type: application/json' -d '{"templateID":"base"}' "$U/sandboxes")" 401 "emulator: no X-API-Key"
assert_eq "$(code -X POST -H "X-API-Key: $KEY" -H 'Content-Type: text/plain' -d '{"templateID":"base"}' "$U/sandboxes")" 400 "emulator: content type"
assert_eq "$(code -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"templateID":"base","bogus":1}' "$U/sandboxes")" 400 "emulator: unknown field"
sid=$(curl -s -X POST -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"templateID":"base"}' "$U/sandboxes" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["sandboxID"])')
assert_eq "$(code -X POST -H 'Content-Type: application/connect+json' --data-binary '{}' "$U/envd/$sid/process.Process/Start")" 401 "emulator: envd without its token"
assert_eq "$(code -X DELETE -H "X-API-Key: $KEY" "$U/sandboxes/$sid")" 204 "emulator: delete"
echo "ok: the emulator rejects requests off the spec"

# 16. The emulators' sandboxes (tests/tools/emu_sandbox.py) are on this host: a --pattern or
#     --challenge command in one holds the host's challenge lock while it runs (so a remote
#     test's cross challenge and a local verification's never blur each other), one hold for
#     two such commands at once; it waits for a holder; any other command takes no lock.
lock=$TMP/challenge.lock
ISOTIER_CHALLENGE_LOCK=$lock python3 - "$ISOTIER_ROOT/tests/tools" "$TMP/emu-lock" "$lock" <<'PY'
import fcntl, os, subprocess, sys, threading, time
sys.path.insert(0, sys.argv[1])
import emu_sandbox as e
state, lock = sys.argv[2], sys.argv[3]
os.makedirs(state)
a, b = e.Sandbox(state, "a"), e.Sandbox(state, "b")


def free():
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def settle(want, what):
    for _ in range(100):
        if free() == want:
            return
        time.sleep(0.05)
    sys.exit(f"the host's challenge lock: {what}")


p = a.popen(["/bin/sh", "-c", "sleep 1.5", "sh", "--pattern", "0110"])
time.sleep(0.3)
assert not free(), "not held while a --pattern command runs"
q = b.popen(["/bin/sh", "-c", "sleep 0.3", "sh", "--challenge", "500"])
b.wait(q, 10)
time.sleep(0.2)
assert not free(), "let go when the second of two pattern commands ended, the first still running"
a.wait(p, 10)
settle(True, "still held after both ended")
r = a.popen(["/bin/sh", "-c", "sleep 1"])
time.sleep(0.2)
assert free(), "held for a command that plays no pattern"
a.wait(r, 10)
# Held by another (a local verification's challenge): the pattern command waits for it.
fd = os.open(lock, os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_EX)
threading.Timer(1.0, os.close, (fd,)).start()
t0 = time.monotonic()
p = a.popen(["/bin/sh", "-c", "true", "sh", "--pattern", "01"])
waited = time.monotonic() - t0
a.wait(p, 10)
assert waited >= 0.9, f"started {waited:.2f} s into another's 1 s hold"
settle(True, "still held after the waiting command ended")
a.destroy(); b.destroy()
PY
echo "ok: the emulators' pattern commands hold the host's challenge lock"
