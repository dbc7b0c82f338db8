#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""e2b_emulator.py - TEST FIXTURE, not part of isotier: an E2B stand-in on
127.0.0.1 for tests/integration/remote_e2b.sh (Python 3 stdlib only).

Speaks what isotier's e2b backend uses of E2B's published API (e2b-dev/E2B
spec/openapi.yml, spec/envd/envd.yaml, spec/envd/process/process.proto at
b8029973aa7da5f741f7bb1a9f833b38a0885438) and rejects what does not match it:

  POST   /sandboxes                  X-API-Key; application/json NewSandbox (closed
                                     set of fields, templateID required) -> 201 Sandbox
  GET    /v2/sandboxes?metadata=k=v  -> 200 [ListedSandbox]
  DELETE /sandboxes/{id}             -> 204, 404 unknown
  POST   /envd/{id}/files?path=&username=   X-Access-Token; multipart/form-data
                                     field "file" -> 200 [EntryInfo]
  POST   /envd/{id}/process.Process/Start   X-Access-Token; application/connect+json,
                                     one enveloped StartRequest -> 200 stream of
                                     enveloped StartResponse events, then the
                                     end-of-stream envelope (flag 0x02)

Behind every create is a REAL local sandbox (emu_sandbox.py: bubblewrap, or
gVisor with --sandbox runsc; --identity fake gives each a kernel identity of
its own), so the probe really runs and two sandboxes really share a kernel.

  e2b_emulator.py --port-file F --key KEY --state DIR [--sandbox bwrap|runsc]
                  [--identity host|fake] [--fault NAME]... [--lifetime S] [--ledger F]

Faults: create-403, create-429 (first create: 429 Retry-After: 1),
create-429-date (the same with an HTTP-date 2 s ahead), exit-wide
(emu_common.exit_code: exit codes no process exits with), create-500
(the second create makes the sandbox, then answers 500), create-hang (the second
create makes the sandbox, then never answers), delete-404 (answers 404 but
removes), delete-fail (500 Retry-After: 0, sandbox kept), stream-cut (the
stream stops after the first data event), start-hang (the start event, then
nothing until the client goes), create-dupkey / create-huge (the second
create makes the sandbox, then answers with duplicate keys / 2 MiB). --ledger appends "create ID" / "delete ID" /
"kill ID" lines. Header values are never logged.
"""
import base64
import json
import os
import sys
import time
import uuid
from email.utils import formatdate
from urllib.parse import parse_qs, unquote, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emu_common import LOCK, ledger, request_log  # noqa: E402
import emu_common  # noqa: E402
from emu_sandbox import Sandbox  # noqa: E402

ARGS = None
SANDBOXES = {}  # id -> {"box": Sandbox, "token", "metadata", "template"}
COUNTS = {"create": 0}
NEW_SANDBOX_FIELDS = {"templateID", "timeout", "autoPause", "autoPauseMemory", "autoResume",
                      "secure", "allow_internet_access", "network", "metadata", "envVars",
                      "mcp", "iam", "volumeMounts"}
PROCESS_CONFIG_FIELDS = {"cmd", "args", "envs", "cwd"}
START_FIELDS = {"process", "pty", "tag", "stdin"}


def envelope(obj, flags=0):
    data = json.dumps(obj).encode()
    return bytes([flags]) + len(data).to_bytes(4, "big") + data


class Handler(emu_common.Handler):
    max_body = 64 << 20

    def error(self, code, msg, headers=()):
        self.reply(code, {"code": code, "message": msg}, headers)

    def fault(self, name):
        return name in (ARGS.fault or [])

    def route(self):
        u = urlsplit(self.path)
        parts = [p for p in u.path.split("/") if p]
        q = parse_qs(u.query)
        request_log(self.command, u.path)
        if parts[:1] == ["envd"] and len(parts) >= 3:
            return self.envd(parts[1], "/".join(parts[2:]), q)
        if self.headers.get("X-API-Key") != ARGS.key:
            return self.error(401, "Invalid API key")
        if self.fault("create-403") and self.command == "POST":
            return self.error(403, "forbidden: the key's team may not create sandboxes")
        if self.command == "POST" and parts == ["sandboxes"]:
            return self.create()
        if self.command == "GET" and parts == ["v2", "sandboxes"]:
            return self.list(q)
        if self.command == "GET" and len(parts) == 2 and parts[0] == "sandboxes":
            return self.get(parts[1])
        if self.command == "DELETE" and len(parts) == 2 and parts[0] == "sandboxes":
            return self.delete(parts[1])
        return self.error(404, "no such route")


    # ---- control plane ----------------------------------------------------
    def create(self):
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            return self.error(400, "Content-Type must be application/json")
        try:
            req = json.loads(self.body())
        except json.JSONDecodeError:
            return self.error(400, "body is not JSON")
        if not isinstance(req, dict) or set(req) - NEW_SANDBOX_FIELDS:
            return self.error(400, "unknown fields: %s" % sorted(set(req) - NEW_SANDBOX_FIELDS))
        if not isinstance(req.get("templateID"), str):
            return self.error(400, "templateID is required")
        md = req.get("metadata", {})
        if not isinstance(md, dict) or not all(isinstance(v, str) for v in md.values()):
            return self.error(400, "metadata: string values")
        with LOCK:
            COUNTS["create"] += 1
            n = COUNTS["create"]
        if self.fault("create-429") and n == 1:
            return self.error(429, "rate limited", [("Retry-After", "1")])
        if self.fault("create-429-date") and n == 1:
            return self.error(429, "rate limited",
                              [("Retry-After", formatdate(time.time() + 2, usegmt=True))])
        sid = "i" + uuid.uuid4().hex[:19]
        token = "envd-" + uuid.uuid4().hex
        box = Sandbox(ARGS.state, sid, ARGS.sandbox, ARGS.identity, n)
        with LOCK:
            SANDBOXES[sid] = {"box": box, "token": token, "metadata": md,
                              "template": req["templateID"]}
        ledger("create " + sid)
        if self.fault("create-500") and n == 2:
            return self.error(500, "internal error")
        if self.fault("create-hang") and n == 2:
            time.sleep(3600)
            return
        if self.fault("create-dupkey") and n == 2:  # hostile: which sandboxID is it?
            body = ('{"templateID": "base", "sandboxID": "%s", "sandboxID": "other", '
                    '"clientID": "emu", "envdVersion": "0.2.0"}' % sid).encode()
            self.send_response(201)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return self.wfile.write(body)
        if self.fault("create-huge") and n == 2:  # hostile: an unbounded answer
            return self.reply(201, {"templateID": "base", "sandboxID": sid, "clientID": "emu",
                                    "envdVersion": "0.2.0", "pad": "x" * (2 << 20)})
        self.reply(201, {"templateID": req["templateID"], "sandboxID": sid, "clientID": "emu",
                         "envdVersion": "0.2.0", "envdAccessToken": token, "domain": None})

    def list(self, q):
        want = {}
        for m in q.get("metadata", []):
            for pair in m.split("&"):
                k, _, v = pair.partition("=")
                want[unquote(k)] = unquote(v)
        with LOCK:
            out = [{"templateID": s["template"], "sandboxID": sid, "clientID": "emu",
                    "startedAt": "2026-01-01T00:00:00Z", "endAt": "2026-01-01T01:00:00Z",
                    "cpuCount": 2, "memoryMB": 512, "diskSizeMB": 1024,
                    "metadata": s["metadata"], "state": "running", "envdVersion": "0.2.0"}
                   for sid, s in SANDBOXES.items()
                   if all(s["metadata"].get(k) == v for k, v in want.items())]
        self.reply(200, out)

    def get(self, sid):
        """GET /sandboxes/{sandboxID}: SandboxDetail, its envd token included
        (what the SDK's Sandbox.connect reads)."""
        with LOCK:
            s = SANDBOXES.get(sid)
        if not s:
            return self.error(404, "sandbox \"%s\" not found" % sid)
        self.reply(200, {"templateID": s["template"], "sandboxID": sid, "clientID": "emu",
                         "startedAt": "2026-01-01T00:00:00Z", "endAt": "2026-01-01T01:00:00Z",
                         "cpuCount": 2, "memoryMB": 512, "diskSizeMB": 1024,
                         "metadata": s["metadata"], "state": "running", "envdVersion": "0.2.0",
                         "envdAccessToken": s["token"], "domain": None})

    def delete(self, sid):
        with LOCK:
            s = SANDBOXES.get(sid)
        if not s:
            return self.error(404, "sandbox not found")
        if self.fault("delete-fail"):
            return self.error(500, "could not kill", [("Retry-After", "0")])
        with LOCK:
            SANDBOXES.pop(sid, None)
        s["box"].destroy()
        ledger("delete " + sid)
        if self.fault("delete-404"):
            return self.error(404, "sandbox not found")
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    # ---- envd ---------------------------------------------------------------
    def envd(self, sid, rest, q):
        with LOCK:
            s = SANDBOXES.get(sid)
        if not s:
            return self.error(502, "sandbox not running")
        if self.headers.get("X-Access-Token") != s["token"]:
            return self.error(401, "invalid access token")
        if self.command == "POST" and rest == "files":
            return self.upload(s, q)
        if self.command == "POST" and rest == "process.Process/Start":
            return self.start(s)
        return self.error(404, "no such envd route")

    def upload(self, s, q):
        boundary = self.form_boundary()
        if not boundary:
            return self.error(400, "Content-Type must be multipart/form-data")
        path = q.get("path", [""])[0]
        if q.get("username", [""])[0] not in ("", "user"):
            return self.error(401, "this emulator has one user, the default")
        data = self.form_file(boundary)
        if data is None:
            return self.error(400, "no form field 'file'")
        s["box"].write(path, data)
        self.reply(200, [{"path": path, "name": os.path.basename(path), "type": "file"}])

    def connect_error(self, code, msg, http=400):
        self.reply(http, {"code": code, "message": msg})

    def start(self, s):
        if self.headers.get("Content-Type") != "application/connect+json":
            return self.connect_error("invalid_argument", "content type", 415)
        raw = self.body()
        if len(raw) < 5 or raw[0] != 0 or int.from_bytes(raw[1:5], "big") != len(raw) - 5:
            return self.connect_error("invalid_argument", "one enveloped message expected")
        req = json.loads(raw[5:])
        proc = req.get("process") if isinstance(req, dict) else None
        if set(req) - START_FIELDS or not isinstance(proc, dict) or set(proc) - PROCESS_CONFIG_FIELDS \
                or not isinstance(proc.get("cmd"), str):
            return self.connect_error("invalid_argument", "StartRequest does not match process.proto")
        timeout = int(self.headers.get("Connect-Timeout-Ms") or 60000) / 1000.0
        argv = [proc["cmd"]] + list(proc.get("args", []))
        box = s["box"]
        self.send_response(200)
        self.send_header("Content-Type", "application/connect+json")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        p = box.popen(argv, proc.get("cwd", "/"))
        try:
            self.wfile.write(envelope({"event": {"start": {"pid": p.pid}}}))
            self.wfile.flush()
            if self.fault("start-hang"):
                while True:  # until the client goes (BrokenPipeError)
                    time.sleep(0.2)
                    self.wfile.write(envelope({"event": {"keepalive": {}}}))
                    self.wfile.flush()
            out, err, _, killed = box.wait(p, timeout)
            chunks = [("stdout", out[i:i + 4096]) for i in range(0, len(out), 4096)]
            chunks += [("stderr", err[i:i + 4096]) for i in range(0, len(err), 4096)]
            for k, (name, c) in enumerate(chunks):
                self.wfile.write(envelope({"event": {"data": {name: base64.b64encode(c).decode()}}}))
                if self.fault("stream-cut") and k == 0:
                    self.wfile.write(envelope({"event": {"data": {"stdout": "AAAA"}}})[:7])
                    self.wfile.flush()
                    return
            rc = emu_common.exit_code(argv, p.returncode)  # --fault exit-wide lies
            end = {"exited": not killed, "status": "signal: killed" if killed else
                   "exit status %s" % rc}
            if rc and not killed:
                end["exitCode"] = rc  # proto3 JSON leaves 0 out
            self.wfile.write(envelope({"event": {"end": end}}))
            self.wfile.write(envelope({}, flags=2))
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            if p.poll() is None:
                box.kill(p)
                p.wait()
            box.procs.discard(p)


def main():
    global ARGS
    ARGS = emu_common.parse(emu_common.parser())
    emu_common.serve(Handler, SANDBOXES)


if __name__ == "__main__":
    sys.exit(main())
