#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""vercel_emulator.py - TEST FIXTURE, not part of isotier: a Vercel Sandbox
API stand-in on 127.0.0.1 for tests/integration/remote_vercel.sh (stdlib only).

Speaks what isotier's vercel backend uses of the API as the vercel/sandbox
client calls it (packages/vercel-sandbox/src/api-client at 81d725b7) and
rejects what does not match (Bearer token, ?teamId=, content types, closed
request bodies, a tarball that does not gunzip and untar):

  POST /v3/sandboxes                              -> 200 SandboxAndSessionResponse
  GET  /v2/sandboxes?project=                     -> 200 {"sandboxes", "pagination"}
  POST /v2/sandboxes/sessions/{sid}/fs/write      application/gzip, x-cwd -> 200 {}
  POST /v2/sandboxes/sessions/{sid}/cmd           -> 200 {"command": Command}
  GET  /v2/sandboxes/sessions/{sid}/cmd/{cid}?wait=true -> 200 {"command": {.., exitCode}}
  GET  /v2/sandboxes/sessions/{sid}/cmd/{cid}/logs -> 200 application/x-ndjson LogLines
  POST /v2/sandboxes/sessions/{sid}/stop          -> 200 {"session": Session}, 404 unknown

Behind every create is a real local sandbox (emu_sandbox.py); the tarball is
extracted into it. Faults: create-500 (second create makes it, then 500),
stop-fail (500, Retry-After: 0), exit-wide (emu_common.exit_code). --ledger appends "create ID" / "delete ID".
"""
import gzip
import io
import json
import os
import sys
import tarfile
import time
import uuid
from urllib.parse import parse_qs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emu_common import LOCK, ledger  # noqa: E402
import emu_common  # noqa: E402
from emu_sandbox import Sandbox  # noqa: E402

ARGS = None
SESSIONS = {}  # session id -> {"box", "name", "tags", "cmds": {id: {...}}}
COUNT = [0]
CREATE_FIELDS = {"projectId", "ports", "source", "timeout", "resources", "runtime", "image",
                 "name", "persistent", "networkPolicy", "env", "tags", "snapshotExpiration",
                 "keepLastSnapshots", "region", "failoverRegions"}
CMD_FIELDS = {"command", "args", "cwd", "env", "sudo", "wait", "logs", "timeout"}


def now_ms():
    return int(time.time() * 1000)


class Handler(emu_common.Handler):
    bad_request = (ValueError, KeyError, TypeError, tarfile.TarError, OSError)
    empty_json = b"{}"

    def error(self, code, msg, headers=()):
        self.reply(code, {"error": {"code": "emulated", "message": msg}}, headers)

    def session(self, sid):
        s = SESSIONS[sid]
        return {"id": sid, "memory": 2048, "vcpus": 1, "region": "iad1", "timeout": s["timeout"],
                "status": s["status"], "requestedAt": s["t"], "createdAt": s["t"], "cwd": "/",
                "updatedAt": now_ms()}

    def sandbox(self, sid):
        s = SESSIONS[sid]
        return {"name": s["name"], "persistent": False, "createdAt": s["t"], "updatedAt": now_ms(),
                "currentSessionId": sid, "status": s["status"], "tags": s["tags"]}

    def route(self):
        u, parts = self.start("Authorization", "Bearer " + ARGS.key)
        if u is None:
            return
        q = parse_qs(u.query)
        if q.get("teamId") != [ARGS.team]:
            return self.error(403, "teamId missing or not this token's")
        fault = ARGS.fault or []
        if parts == ["v3", "sandboxes"] and self.command == "POST":
            req = self.json_body(CREATE_FIELDS)
            if req.get("projectId") != ARGS.project:
                return self.error(404, "project not found")
            with LOCK:
                COUNT[0] += 1
                n = COUNT[0]
            sid = "sbx_" + uuid.uuid4().hex[:16]
            SESSIONS[sid] = {"box": Sandbox(ARGS.state, sid, ARGS.sandbox, ARGS.identity, n),
                             "name": req.get("name", sid), "tags": req.get("tags", {}),
                             "timeout": req.get("timeout", 300000), "status": "running",
                             "t": now_ms(), "cmds": {}}
            ledger("create " + sid)
            if "create-500" in fault and n == 2:
                return self.error(500, "internal error")
            return self.reply(200, {"sandbox": self.sandbox(sid), "session": self.session(sid),
                                    "routes": []})
        if parts == ["v2", "sandboxes"] and self.command == "GET":
            if q.get("project") != [ARGS.project]:
                return self.error(400, "project is required")
            live = [self.sandbox(s) for s in list(SESSIONS) if SESSIONS[s]["status"] == "running"]
            return self.reply(200, {"sandboxes": live, "pagination": {"count": len(live), "next": None}})
        if parts[:3] == ["v2", "sandboxes", "sessions"] and len(parts) == 4 and self.command == "GET":
            if parts[3] not in SESSIONS:
                return self.error(404, "session not found")
            if SESSIONS[parts[3]]["status"] != "running":
                return self.error(410, "session stopped")
            return self.reply(200, {"session": self.session(parts[3])})
        if parts[:3] != ["v2", "sandboxes", "sessions"] or len(parts) < 5 or parts[3] not in SESSIONS:
            return self.error(404, "not found")
        sid, s, rest = parts[3], SESSIONS[parts[3]], parts[4:]
        if s["status"] != "running":
            return self.error(410 if rest != ["stop"] else 404, "session stopped")
        if rest == ["fs", "write"] and self.command == "POST":
            if self.headers.get("Content-Type") != "application/gzip":
                return self.error(400, "application/gzip expected")
            cwd = self.headers.get("x-cwd", "/")
            with tarfile.open(fileobj=io.BytesIO(gzip.decompress(self.body())), mode="r:") as t:
                for m in t.getmembers():
                    if m.isfile():
                        s["box"].write(os.path.join(cwd, m.name), t.extractfile(m).read())
                        if m.mode != 0o755:
                            return self.error(400, "mode %o" % m.mode)
            return self.reply(200, {})
        if rest == ["cmd"] and self.command == "POST":
            req = self.json_body(CMD_FIELDS)
            argv = [req["command"]] + list(req.get("args", []))
            cid = "cmd_" + uuid.uuid4().hex[:16]
            p = s["box"].popen(argv, req.get("cwd", "/"))
            c = {"id": cid, "name": req["command"], "args": req.get("args", []), "cwd": "/",
                 "sessionId": sid, "exitCode": None, "startedAt": now_ms(), "proc": p}
            s["cmds"][cid] = c
            return self.reply(200, {"command": {k: v for k, v in c.items() if k not in ("proc", "out", "err")}})
        if len(rest) >= 2 and rest[0] == "cmd" and rest[1] in s["cmds"]:
            c = s["cmds"][rest[1]]
            if rest[2:] == [] and self.command == "GET" and q.get("wait") == ["true"]:
                if c["exitCode"] is None:
                    out, err, rc, _ = s["box"].wait(c["proc"], 60)
                    argv = [c["name"]] + list(c["args"])
                    c.update(out=out, err=err, exitCode=emu_common.exit_code(argv, rc))
                return self.reply(200, {"command": {k: v for k, v in c.items() if k not in ("proc", "out", "err")}})
            if rest[2:] == ["logs"] and self.command == "GET":
                if c["exitCode"] is None:
                    return self.error(409, "this emulator serves logs of finished commands only")
                lines = [json.dumps({"stream": "stdout", "data": c["out"].decode("utf-8", "replace")}),
                         json.dumps({"stream": "stderr", "data": c["err"].decode("utf-8", "replace")})]
                return self.reply(200, None, ctype="application/x-ndjson",
                                  raw=("\n".join(lines) + "\n").encode())
        if rest == ["stop"] and self.command == "POST":
            if "stop-fail" in fault:
                return self.error(500, "could not stop", [("Retry-After", "0")])
            s["status"] = "stopped"
            s["box"].destroy()
            ledger("delete " + sid)
            return self.reply(200, {"session": self.session(sid)})
        return self.error(404, "no such route")


def main():
    global ARGS
    ARGS = emu_common.parse(emu_common.parser("--team", "--project"))
    emu_common.serve(Handler, SESSIONS)


if __name__ == "__main__":
    sys.exit(main())
