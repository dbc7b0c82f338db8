#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""daytona_emulator.py - TEST FIXTURE, not part of isotier: a Daytona stand-in
on 127.0.0.1 for tests/integration/remote_daytona.sh (Python 3 stdlib only).

Speaks what isotier's daytona backend uses of Daytona's published API
(daytonaio/daytona at b5a5d9e78d76c8bcf351f2049620250e0f34eea4:
libs/api-client-go/api/openapi.yaml and the toolbox's
apps/daemon/pkg/toolbox/docs/swagger.json) and rejects what does not match:

  POST   /api/sandbox            Bearer; application/json CreateSandbox (closed set) -> 200 Sandbox
                                 (state "creating"; "started" from the first GET on)
  GET    /api/sandbox/{id}       -> 200 Sandbox
  GET    /api/sandbox?labels=    -> 200 {"items": [Sandbox], "nextCursor": null}
  DELETE /api/sandbox/{id}       -> 200 Sandbox, 404 unknown
  POST   /toolbox/{id}/files/upload?path=   Bearer; multipart field "file" -> 200 {}
  POST   /toolbox/{id}/process/execute      Bearer; ExecuteRequest (closed) ->
                                 200 {"exitCode", "result": stdout and stderr together}

The command is split into words (shlex: the daemon runs no shell). Behind
every create is a real local sandbox (emu_sandbox.py). Faults: create-500
(second create makes the sandbox, then 500), delete-fail (500 always),
exec-500, exit-wide (emu_common.exit_code). delete-fail answers Retry-After: 0 (retried at once). --ledger appends "create ID" / "delete ID".
"""
import json
import os
import shlex
import sys
import uuid
from urllib.parse import parse_qs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emu_common import LOCK, ledger  # noqa: E402
import emu_common  # noqa: E402
from emu_sandbox import Sandbox  # noqa: E402

ARGS = None
BOXES = {}
COUNT = [0]
CREATE_FIELDS = {"name", "snapshot", "user", "env", "labels", "public", "networkBlockAll",
                 "networkAllowList", "domainAllowList", "target", "cpu", "gpu", "gpuType",
                 "memory", "disk", "autoStopInterval", "autoArchiveInterval",
                 "autoDeleteInterval", "volumes", "buildInfo", "linkedSandbox"}
EXEC_FIELDS = {"command", "cwd", "envs", "timeout"}


class Handler(emu_common.Handler):

    def error(self, code, msg, headers=()):
        self.reply(code, {"statusCode": code, "message": msg, "error": "emulated"}, headers)

    def sandbox(self, sid):
        b = BOXES[sid]
        return {"id": sid, "organizationId": "org", "name": sid, "user": "daytona", "env": {},
                "labels": b["labels"], "public": False, "networkBlockAll": False, "target": "us",
                "cpu": 1, "gpu": 0, "memory": 1, "disk": 3, "state": b["state"],
                "sandboxClass": "container", "snapshot": b.get("snapshot"),
                "toolboxProxyUrl": "http://127.0.0.1:%d/toolbox" % self.server.server_address[1]}

    def route(self):
        u, parts = self.start("Authorization", "Bearer " + ARGS.key)
        if u is None:
            return
        fault = ARGS.fault or []
        if parts[:2] == ["api", "sandbox"]:
            if self.command == "POST" and len(parts) == 2:
                req = self.json_body(CREATE_FIELDS)
                with LOCK:
                    COUNT[0] += 1
                    n = COUNT[0]
                sid = str(uuid.uuid4())
                BOXES[sid] = {"box": Sandbox(ARGS.state, sid, ARGS.sandbox, ARGS.identity, n),
                              "labels": req.get("labels", {}), "state": "creating",
                              "snapshot": req.get("snapshot", "daytona-small")}
                ledger("create " + sid)
                if "create-500" in fault and n == 2:
                    return self.error(500, "internal error")
                return self.reply(200, self.sandbox(sid))
            if self.command == "GET" and len(parts) == 2:
                want = json.loads(parse_qs(u.query).get("labels", ["{}"])[0])
                items = [self.sandbox(sid) for sid, b in list(BOXES.items())
                         if all(b["labels"].get(k) == v for k, v in want.items())]
                return self.reply(200, {"items": items, "nextCursor": None})
            if len(parts) == 3 and parts[2] in BOXES:
                sid = parts[2]
                if self.command == "GET":
                    BOXES[sid]["state"] = "started"
                    return self.reply(200, self.sandbox(sid))
                if self.command == "DELETE":
                    if "delete-fail" in fault:
                        return self.error(500, "could not delete", [("Retry-After", "0")])
                    doc = self.sandbox(sid)
                    BOXES.pop(sid)["box"].destroy()
                    ledger("delete " + sid)
                    return self.reply(200, doc)
            return self.error(404, "Sandbox not found")
        if parts[:1] == ["toolbox"] and len(parts) >= 3 and parts[1] in BOXES:
            b = BOXES[parts[1]]
            if b["state"] != "started":
                return self.error(409, "sandbox is not started")
            rest = "/".join(parts[2:])
            if self.command == "POST" and rest == "files/upload":
                boundary = self.form_boundary()
                if not boundary:
                    return self.error(400, "multipart/form-data expected")
                data = self.form_file(boundary)
                path = parse_qs(u.query).get("path", [""])[0]
                if data is None or not path:
                    return self.error(400, "path and file are required")
                b["box"].write(path, data)
                return self.reply(200, {})
            if self.command == "POST" and rest == "process/execute":
                req = self.json_body(EXEC_FIELDS)
                if not isinstance(req.get("command"), str):
                    return self.error(400, "command is required")
                if "exec-500" in fault:
                    return self.error(500, "exec failed")
                argv = shlex.split(req["command"])
                p = b["box"].popen(argv, req.get("cwd", "/"), merge=True)
                out, _, rc, killed = b["box"].wait(p, req.get("timeout", 10))
                return self.reply(200, {"exitCode": -1 if killed else emu_common.exit_code(argv, rc),
                                        "result": out.decode("utf-8", "replace")})
        return self.error(404, "no such route")


def main():
    global ARGS
    ARGS = emu_common.parse(emu_common.parser())
    emu_common.serve(Handler, BOXES)


if __name__ == "__main__":
    sys.exit(main())
