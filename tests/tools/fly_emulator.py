#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
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
(500, Retry-After: 0), exit-wide (emu_common.exit_code). --ledger appends "create ID" / "delete ID".
"""
import base64
import os
import sys
import uuid
from urllib.parse import parse_qs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emu_common import LOCK, ledger  # noqa: E402
import emu_common  # noqa: E402
from emu_sandbox import Sandbox  # noqa: E402

ARGS = None
MACHINES = {}
COUNT = [0]
CREATE_FIELDS = {"config", "lease_ttl", "lsvd", "name", "region", "skip_launch",
                 "skip_service_registration"}
EXEC_FIELDS = {"cmd", "command", "timeout"}


class Handler(emu_common.Handler):
    bad_request = (ValueError, KeyError, TypeError)

    def error(self, code, msg, headers=()):
        self.reply(code, {"error": msg}, headers)

    def machine(self, mid):
        m = MACHINES[mid]
        return {"id": mid, "name": mid, "state": m["state"], "region": "emu",
                "instance_id": "01EMU", "config": m["config"]}

    def route(self):
        u, parts = self.start("Authorization", "Bearer " + ARGS.key)
        if u is None:
            return
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
            rc = emu_common.exit_code(cmd, rc)
            if killed or rc:
                res["exit_code"] = 137 if killed else rc
            return self.reply(200, res)
        if not rest[1:] and self.command == "GET":
            return self.reply(200, self.machine(mid))
        if not rest[1:] and self.command == "DELETE":
            if "delete-fail" in fault:
                return self.error(500, "could not destroy", [("Retry-After", "0")])
            MACHINES.pop(mid)["box"].destroy()
            ledger("delete " + mid)
            return self.reply(200, {"ok": True})
        return self.error(404, "no such route")


def main():
    global ARGS
    ARGS = emu_common.parse(emu_common.parser("--app"))
    emu_common.serve(Handler, MACHINES)


if __name__ == "__main__":
    sys.exit(main())
