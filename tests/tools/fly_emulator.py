#!/usr/bin/env python3
"""fly_emulator.py - TEST FIXTURE, not part of isotier: a Fly Machines API
stand-in on 127.0.0.1 for tests/integration/remote_fly.sh (stdlib only).

Speaks what isotier's fly backend uses of the Machines API
(superfly/fly-openapi-sdk go/api/openapi.yaml at f0c59fb5) and rejects what
does not match it (Bearer token, application/json, closed CreateMachineRequest
and MachineExecRequest, an app it knows):

  POST   /v1/apps/{app}/machines                  -> 200 Machine (config.files written)
  GET    /v1/apps/{app}/machines                  -> 200 [Machine]
  GET    /v1/apps/{app}/machines/{id}/wait?state=started -> 200 {"ok": true}
  POST   /v1/apps/{app}/machines/{id}/exec        -> 200 {"exit_code", "stdout", "stderr"}
  DELETE /v1/apps/{app}/machines/{id}?force=true  -> 200 {"ok": true}, 404 unknown

Behind every create is a real local sandbox (emu_sandbox.py). Faults:
create-500 (second create makes the machine, then 500), delete-fail
(500, Retry-After: 0). --ledger appends "create ID" / "delete ID".
"""
import argparse
import base64
import json
import os
import socket
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emu_sandbox import Sandbox  # noqa: E402

ARGS = None
LOCK = threading.Lock()
MACHINES = {}
COUNT = [0]
CREATE_FIELDS = {"config", "lease_ttl", "lsvd", "name", "region", "skip_launch",
                 "skip_service_registration"}
EXEC_FIELDS = {"cmd", "command", "timeout"}


def ledger(line):
    if ARGS.ledger:
        with LOCK, open(ARGS.ledger, "a") as f:
            f.write(line + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, obj, headers=()):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def error(self, code, msg, headers=()):
        self.reply(code, {"error": msg}, headers)

    def json_body(self, fields):
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            raise ValueError("Content-Type must be application/json")
        n = int(self.headers.get("Content-Length") or 0)
        req = json.loads(self.rfile.read(n))
        if not isinstance(req, dict) or set(req) - fields:
            raise ValueError("unknown fields")
        return req

    def machine(self, mid):
        m = MACHINES[mid]
        return {"id": mid, "name": mid, "state": m["state"], "region": "emu",
                "instance_id": "01EMU", "config": m["config"]}

    do_GET = do_POST = do_DELETE = lambda self: self.safe()

    def safe(self):
        try:
            self.route()
        except (BrokenPipeError, ConnectionResetError):
            pass
        except (ValueError, KeyError, TypeError) as e:
            self.error(400, str(e))

    def route(self):
        u = urlsplit(self.path)
        parts = [p for p in u.path.split("/") if p]
        if ARGS.log:
            with LOCK, open(ARGS.log, "a") as f:
                f.write("%s %s\n" % (self.command, u.path))
        if self.headers.get("Authorization") != "Bearer " + ARGS.key:
            return self.error(401, "unauthorized")
        if parts[:2] != ["v1", "apps"] or len(parts) < 4 or parts[3] != "machines":
            return self.error(404, "not found")
        if parts[2] != ARGS.app:
            return self.error(404, "app not found")
        fault = ARGS.fault or []
        rest = parts[4:]
        if not rest and self.command == "POST":
            req = self.json_body(CREATE_FIELDS)
            cfg = req.get("config")
            if not isinstance(cfg, dict) or not isinstance(cfg.get("image"), str):
                return self.error(400, "config.image is required")
            with LOCK:
                COUNT[0] += 1
                n = COUNT[0]
            mid = uuid.uuid4().hex[:14]
            box = Sandbox(ARGS.state, mid, ARGS.sandbox, ARGS.identity, n)
            for f in cfg.get("files", []):
                box.write(f["guest_path"], base64.b64decode(f["raw_value"], validate=True))
            MACHINES[mid] = {"box": box, "config": cfg, "state": "created"}
            ledger("create " + mid)
            if "create-500" in fault and n == 2:
                return self.error(500, "internal error")
            return self.reply(200, self.machine(mid))
        if not rest and self.command == "GET":
            return self.reply(200, [self.machine(m) for m in list(MACHINES)])
        if not rest or rest[0] not in MACHINES:
            return self.error(404, "machine not found")
        mid, m = rest[0], MACHINES[rest[0]]
        if rest[1:] == ["wait"] and self.command == "GET":
            if parse_qs(u.query).get("state") != ["started"]:
                return self.error(400, "state=started expected")
            m["state"] = "started"
            return self.reply(200, {"ok": True})
        if rest[1:] == ["exec"] and self.command == "POST":
            req = self.json_body(EXEC_FIELDS)
            if m["state"] != "started":
                return self.error(412, "machine not started")
            cmd = req.get("command")
            if not isinstance(cmd, list) or not all(isinstance(c, str) for c in cmd):
                return self.error(400, "command: an array of strings")
            p = m["box"].popen(cmd)
            out, err, rc, killed = m["box"].wait(p, req.get("timeout", 30))
            res = {"stdout": out.decode("utf-8", "replace"), "stderr": err.decode("utf-8", "replace")}
            if killed or rc:
                res["exit_code"] = 137 if killed else rc
            return self.reply(200, res)
        if not rest[1:] and self.command == "DELETE":
            if "delete-fail" in fault:
                return self.error(500, "could not destroy", [("Retry-After", "0")])
            MACHINES.pop(mid)["box"].destroy()
            ledger("delete " + mid)
            return self.reply(200, {"ok": True})
        return self.error(404, "no such route")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--app", required=True)
    ap.add_argument("--state", required=True)
    ap.add_argument("--sandbox", choices=["bwrap", "runsc"], default="bwrap")
    ap.add_argument("--identity", choices=["host", "fake"], default="host")
    ap.add_argument("--fault", action="append")
    ap.add_argument("--lifetime", type=float, default=120)
    ap.add_argument("--ledger")
    ap.add_argument("--log")
    ARGS = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(ARGS.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(ARGS.port_file + ".tmp", ARGS.port_file)
    threading.Timer(ARGS.lifetime, srv.shutdown).start()
    try:
        srv.serve_forever(poll_interval=0.1)
    finally:
        for m in list(MACHINES.values()):
            m["box"].destroy()


if __name__ == "__main__":
    sys.exit(main())
