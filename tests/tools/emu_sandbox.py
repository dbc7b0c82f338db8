# SPDX-License-Identifier: Apache-2.0
"""emu_sandbox.py - TEST FIXTURE, not part of isotier: the real local sandbox
behind every "create" of the provider emulators (tests/tools/*_emulator.py).

A sandbox is a directory standing for its /tmp. A command runs in bubblewrap
(kind "bwrap": every namespace unshared, host root read-only, the directory at
/tmp) or gVisor (kind "runsc": `runsc do`, paths under /tmp/isotier rewritten
to the directory).

identity: how the provider answers for its sandboxes' kernel, honestly or not.
"host": the truth (bwrap sandboxes share this host's kernel). The lying modes
a provider could use, every one of them a container on this kernel:
"fake": a kernel identity of its own per sandbox (a boot_id and a /proc/stat
btime bound over the real ones), as if each booted its own kernel;
"replay": the probe's exec is answered with a recorded genuine microVM probe
output (REPLAY, a file; set by emu_common from --replay), whatever command
was asked, made as convincing as a provider can: a fresh boot_id and btime per
sandbox, its identity marked checked, and the run's nonce (the provider sees
the command) echoed.
"""
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

# bwrap --die-with-parent is PR_SET_PDEATHSIG, which fires when the *thread*
# that forked exits: a command started from a request's handler thread would
# be SIGKILLed once the request is answered (a provider's "start a command,
# fetch its result later" API). Every child is forked from this one thread,
# which lives as long as the emulator.
SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="emu-spawner")

# identity "replay": the recorded probe output (a path), and where each
# sandbox keeps its copy (inside its own /tmp, so the answer comes from inside).
REPLAY = None
REPLAY_GUEST = "/tmp/.emu-replay.json"
# "replay" with --attest (attest_authority.py): the test authority, its mode,
# and the one report_id every guest shares under "shared".
ATTEST = None
ATTEST_MODE = None
SHARED_REPORT_ID = os.urandom(32)


# The host's challenge lock (reference/evidence/host_watch.c lock_path): a task-count
# pattern isotier plays on this host runs only while its process holds it. A
# real provider's sandboxes are on other hosts; these are on this one, so a
# pattern played in one (the cross challenge's --pattern, sampled by another's
# --challenge) would blur a local verification's challenge running beside it,
# and theirs it. So the emulator holds the same lock while any such command
# runs in any of its sandboxes: the two halves of one cross challenge share one
# hold, and a local challenge never overlaps them.
PATTERN_ARG = re.compile(r"(?:^|[\s'\"])--(?:pattern|challenge)(?:[\s'\"=]|$)")
PATTERN_HOLD_MAX_S = 15  # a pattern lasts ~1 s: one still running then is killed, the lock let go
_hold = {"fd": None, "n": 0}
_hold_take = threading.Lock()  # one thread waits for the flock; the others wait for it
_hold_count = threading.Lock()


def _challenge_lock_path():
    env = os.environ.get("ISOTIER_CHALLENGE_LOCK")
    if env:
        if not env.startswith("/"):
            raise ValueError("ISOTIER_CHALLENGE_LOCK must be absolute, as isotier requires")
        return env
    if os.geteuid() == 0:
        os.makedirs("/run/isotier", exist_ok=True)
        return "/run/isotier/challenge.lock"
    state = os.environ.get("ISOTIER_STATE_DIR")
    if not state:
        xdg = os.environ.get("XDG_STATE_HOME", "")
        base = xdg if xdg.startswith("/") else os.path.join(os.path.expanduser("~"), ".local/state")
        state = os.path.join(base, "isotier")
    os.makedirs(state, mode=0o700, exist_ok=True)
    return os.path.join(state, "challenge.lock")


def _pattern_hold():
    """Takes the host's challenge lock for one more pattern command (the first waits for it, up
    to a minute; then it runs unguarded, said on stderr)."""
    with _hold_take:
        with _hold_count:
            if _hold["n"] > 0:
                _hold["n"] += 1
                return
        fd = os.open(_challenge_lock_path(), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        deadline = time.monotonic() + 60
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    print("emu_sandbox: the host's challenge lock stayed held: a pattern runs unguarded",
                          file=sys.stderr)
                    break
                time.sleep(0.02)
        with _hold_count:
            _hold["fd"], _hold["n"] = fd, 1


def _pattern_release():
    with _hold_count:
        _hold["n"] -= 1
        if _hold["n"] == 0:
            os.close(_hold["fd"])  # the flock goes with its only fd
            _hold["fd"] = None


def _release_when_done(p):
    try:
        p.wait(timeout=PATTERN_HOLD_MAX_S)
    except subprocess.TimeoutExpired:
        Sandbox.kill(p)  # a pattern past its time plays for nobody: never unguarded
        p.wait()
    _pattern_release()


def _btime():
    with open("/proc/stat") as f:
        m = re.search(r"^btime (\d+)$", f.read(), flags=re.M)
    return int(m.group(1))


class Sandbox:
    def __init__(self, state_dir, sid, kind="bwrap", identity="host", seq=0):
        self.id = sid
        self.kind = kind
        self.identity = identity
        self.dir = os.path.join(state_dir, sid)
        self.procs = set()
        os.makedirs(os.path.join(self.dir, "tmp"))
        if identity == "fake":
            with open(os.path.join(self.dir, "boot_id"), "w") as f:
                f.write(str(uuid.uuid4()) + "\n")
            with open("/proc/stat") as f:
                stat = f.read()
            stat = re.sub(r"^btime (\d+)$", lambda m: "btime %d" % (int(m.group(1)) + 1000 + seq),
                          stat, flags=re.M)
            with open(os.path.join(self.dir, "stat"), "w") as f:
                f.write(stat)
        elif identity == "replay":
            if not REPLAY:
                raise ValueError("identity replay needs --replay FILE")
            with open(REPLAY) as f:
                doc = json.load(f)
            # A fresh boot each: two sandboxes must not give the replay away
            # by one shared identity.
            doc["kernel"]["boot_id"] = str(uuid.uuid4())
            doc["kernel"]["btime"] = _btime() + 1000 + seq
            if isinstance(doc["kernel"].get("identity"), dict):
                doc["kernel"]["identity"] = {"trusted": True, "problems": []}
            self.recording = doc
            self.report_id = SHARED_REPORT_ID if ATTEST_MODE == "shared" else os.urandom(32)

    def write(self, path, data):
        """Writes a file at an absolute guest path under /tmp."""
        if not path.startswith("/tmp/") or ".." in path:
            raise ValueError("this emulator keeps files under /tmp only")
        dst = os.path.join(self.dir, path[1:])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)

    def argv(self, argv, cwd="/"):
        if self.kind == "runsc":
            argv = [a.replace("/tmp/isotier", os.path.join(self.dir, "tmp/isotier")) for a in argv]
            return ["runsc", "--network=none", "--ignore-cgroups", "--platform=ptrace", "do"] + argv
        cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session",
               "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
               "--bind", os.path.join(self.dir, "tmp"), "/tmp"]
        if ATTEST_MODE == "refusing":
            # A configfs-tsm tree the guest cannot make an entry in.
            tsm = os.path.join(self.dir, "tsm-report")
            os.makedirs(tsm, exist_ok=True)
            cmd += ["--tmpfs", "/sys/kernel", "--ro-bind", tsm, "/sys/kernel/config/tsm/report"]
        if self.identity == "fake":
            cmd += ["--ro-bind", os.path.join(self.dir, "boot_id"), "/proc/sys/kernel/random/boot_id",
                    "--ro-bind", os.path.join(self.dir, "stat"), "/proc/stat"]
        return cmd + ["--chdir", cwd, "--"] + argv

    def answer(self, argv):
        """The command this sandbox really runs for argv: under "replay" the
        probe's run (any command naming isotier-probe) prints the recording,
        its capture directory made as the probe would; the rest runs as asked."""
        if self.identity == "replay" and any("isotier-probe" in a for a in argv):
            doc = json.loads(json.dumps(self.recording))
            m = re.search(r"--nonce'?\s+'?([0-9a-f]{16,64})", " ".join(argv))
            if m:
                doc.setdefault("run", {})["nonce"] = m.group(1)
            name = REPLAY_GUEST.replace(".json", "-%s.json" % uuid.uuid4().hex)
            if ATTEST and m and re.search(r"--attest\b", " ".join(argv)):
                # The evidence a confidential host's TSM would give this run.
                if ATTEST_MODE == "container":
                    # A container inside a real confidential VM answers the
                    # attested runs; the first run stays the replay.
                    doc["observed_tier"] = "CONTAINER"
                    doc["layers"].append({"kind": "container", "vendor": "runc",
                                          "confidence": "high", "evidence": "behaviour",
                                          "signals": ["container.ns_pid"]})
                elif ATTEST_MODE == "elsewhere":
                    # Another kernel (a real confidential guest) answers them.
                    doc["kernel"]["boot_id"] = str(uuid.uuid4())
                    doc["kernel"]["btime"] = doc["kernel"]["btime"] + 7
                with open(os.path.join(self.dir, name.lstrip("/")), "wb") as f:
                    f.write(ATTEST.attested_output(doc, m.group(1), self.report_id, ATTEST_MODE))
            else:
                with open(os.path.join(self.dir, name.lstrip("/")), "w") as f:
                    json.dump(doc, f)
            return ["/bin/sh", "-c", "mkdir -p /tmp/isotier/capture && exec cat " + name]
        return argv

    def popen(self, argv, cwd="/", merge=False):
        asked = argv
        argv = self.answer(argv)
        # A replayed answer (identity "replay") plays no pattern: no hold.
        pattern = argv is asked and bool(PATTERN_ARG.search(" ".join(argv)))
        if pattern:
            _pattern_hold()
        p = None
        try:
            p = SPAWNER.submit(subprocess.Popen, self.argv(argv, cwd), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                               stdin=subprocess.DEVNULL, start_new_session=True).result()
            if pattern:
                threading.Thread(target=_release_when_done, args=(p,), daemon=True).start()
        except BaseException:
            if pattern:
                if p:
                    self.kill(p)
                _pattern_release()
            raise
        self.procs.add(p)
        return p

    def wait(self, p, timeout):
        """(stdout, stderr, returncode, killed); the group is killed on timeout."""
        killed = False
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill(p)
            out, err = p.communicate()
            killed = True
        self.procs.discard(p)
        return out or b"", err or b"", p.returncode, killed

    @staticmethod
    def kill(p):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def destroy(self):
        for p in list(self.procs):
            self.kill(p)
        shutil.rmtree(self.dir, ignore_errors=True)
