# SPDX-License-Identifier: Apache-2.0
"""emu_common.py - TEST FIXTURE, not part of isotier: what the provider
emulators (tests/tools/*_emulator.py) share: the common command line, the
request log (--log) and ledger (--ledger), the handler's plumbing (JSON
replies, bodies, a 400 for a request that does not parse), and serving on
127.0.0.1 until --lifetime ends, destroying every sandbox left.
"""
import argparse
import json
import os
import re
import shlex
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import emu_sandbox

ARGS = None
LOCK = threading.Lock()


def parser(*required):
    """The options every emulator takes, and its own required ones (required)."""
    ap = argparse.ArgumentParser()
    for name in required:
        ap.add_argument(name, required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--state", required=True)
    ap.add_argument("--sandbox", choices=["bwrap", "runsc"], default="bwrap")
    # Lying modes (emu_sandbox.py): fake, replay (which needs --replay, a
    # recorded probe output).
    ap.add_argument("--identity", choices=["host", "fake", "replay"], default="host")
    ap.add_argument("--replay")
    # Hardware attestation served with the replay (emu_sandbox.py, ADR-0020):
    # a test authority's SEV-SNP reports, honest or made as a dishonest
    # provider would; its roots written to --attest-roots. "refusing": the
    # real probe in a real sandbox, a configfs-tsm tree it cannot write.
    # "container" and "elsewhere": honest reports, but bound to outputs that
    # are not the ones judged (the attested runs show a container in a
    # confidential VM, or another kernel than the sandbox's first run).
    ap.add_argument("--attest", choices=["honest", "tampered", "replayed", "foreign", "shared",
                                         "debug", "migrate", "oldtcb", "refusing", "container",
                                         "elsewhere"])
    ap.add_argument("--attest-roots")
    ap.add_argument("--fault", action="append")
    ap.add_argument("--lifetime", type=float, default=120)
    ap.add_argument("--ledger")
    ap.add_argument("--log")
    return ap


def parse(ap):
    global ARGS
    ARGS = ap.parse_args()
    if ARGS.identity == "replay" and not ARGS.replay:
        ap.error("--identity replay needs --replay FILE")
    emu_sandbox.REPLAY = ARGS.replay
    emu_sandbox.ATTEST_MODE = ARGS.attest
    if ARGS.attest and ARGS.attest != "refusing":
        if ARGS.identity != "replay" or not ARGS.attest_roots:
            ap.error("--attest needs --identity replay and --attest-roots DIR")
        import attest_authority
        emu_sandbox.ATTEST = attest_authority.Authority(ARGS.attest_roots)
    return ARGS


def exit_code(argv, rc):
    """The exit code to report for a command that exited rc. --fault exit-wide
    is a provider that lies outside 0-255 (no process can: sh cannot exit 256):
    `true` is reported as 256 and `/bin/true` as -256, both 0 once reduced
    with & 0xff, so only a client that takes the code whole refuses them;
    `false` as 0.5 (0 once truncated to an integer) and `/bin/false` as -1
    (255 once reduced: a failure misreported, not refused).
    isotier runs every command as `sh -c '... && exec CMD ARGS'`: CMD is the
    word after the script's last exec."""
    if "exit-wide" not in (ARGS.fault or []) or not argv:
        return rc
    words = list(argv)
    if len(argv) == 3 and argv[1] == "-c":
        words = shlex.split(argv[2])
        if "exec" in words:
            words = words[len(words) - words[::-1].index("exec"):]
    return {"true": 256, "/bin/true": -256, "false": 0.5,
            "/bin/false": -1}.get(words[0] if words else "", rc)


def ledger(line):
    if ARGS.ledger:
        with LOCK, open(ARGS.ledger, "a") as f:
            f.write(line + "\n")


def request_log(command, path):
    """One "METHOD path" line in --log (header values never)."""
    if ARGS.log:
        with LOCK, open(ARGS.log, "a") as f:
            f.write("%s %s\n" % (command, path))


def serve(handler, boxes):
    """Serves until --lifetime ends; the port goes to --port-file once
    listening. boxes: id -> {"box": Sandbox, ...}, each destroyed at the end."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    srv.daemon_threads = True
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, ARGS.port_file)
    threading.Timer(ARGS.lifetime, srv.shutdown).start()
    try:
        srv.serve_forever(poll_interval=0.1)
    finally:
        for b in list(boxes.values()):
            b["box"].destroy()


class Handler(BaseHTTPRequestHandler):
    """An emulator's handler defines route() and error(code, msg, headers)."""
    protocol_version = "HTTP/1.1"
    bad_request = (ValueError,)  # what route() raises for a 400
    max_body = None              # a larger request body is a 400
    empty_json = b""             # what json_body() reads for an empty body

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, obj=None, headers=(), ctype="application/json", raw=None):
        """obj as JSON, or raw bytes of type ctype; neither: an empty body."""
        body = raw if raw is not None else b"" if obj is None else json.dumps(obj).encode()
        self.send_response(code)
        if raw is not None or obj is not None:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if self.max_body is not None and n > self.max_body:
            raise ValueError("body too large")
        return self.rfile.read(n) if n else b""

    def json_body(self, fields):
        """An application/json object with no field outside fields."""
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            raise ValueError("Content-Type must be application/json")
        req = json.loads(self.body() or self.empty_json)
        if not isinstance(req, dict) or set(req) - fields:
            raise ValueError("unknown fields")
        return req

    def form_boundary(self):
        """The multipart/form-data boundary of the request, None when it is not one."""
        m = re.match(r'multipart/form-data;\s*boundary="?([^";]+)"?',
                     self.headers.get("Content-Type", ""))
        return m.group(1) if m else None

    def form_file(self, boundary):
        """Reads the body: its form field "file", None when it has none."""
        data = None
        for part in self.body().split(b"--" + boundary.encode())[1:]:
            head, _, content = part.partition(b"\r\n\r\n")
            if b'name="file"' in head:
                data = content[:-2] if content.endswith(b"\r\n") else content
        return data

    do_GET = do_POST = do_DELETE = lambda self: self.safe()

    def start(self, header, want):
        """The request's URL and path segments, logged; (None, None), answered 401, unless its
        credential's header is want."""
        u = urlsplit(self.path)
        request_log(self.command, u.path)
        if self.headers.get(header) != want:
            self.error(401, "unauthorized")
            return None, None
        return u, [p for p in u.path.split("/") if p]

    def safe(self):
        try:
            self.route()
        except (BrokenPipeError, ConnectionResetError):
            pass
        except self.bad_request as e:
            self.error(400, str(e))
