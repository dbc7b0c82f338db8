# SPDX-License-Identifier: Apache-2.0
"""emu_caller.py - TEST FIXTURE, not part of isotier: the caller's side of
`isotier verify --provider NAME --sandbox-id ID`. It creates a sandbox the way
the provider's own SDK does, through the provider emulator
(tests/tools/*_emulator.py) named by the same environment isotier reads, and
later asks whether that sandbox is still running.

  emu_caller.py create PROVIDER      prints the new sandbox's id
  emu_caller.py alive PROVIDER ID    exit 0 when it still runs, 1 when not

PROVIDER: e2b, daytona, fly, vercel.
"""
import json
import os
import sys
import urllib.error
import urllib.request


def request(method, url, headers, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        return e.code, None


def e2b():
    return os.environ["ISOTIER_E2B_API_URL"], {"X-API-Key": os.environ["E2B_API_KEY"]}


def daytona():
    return os.environ["ISOTIER_DAYTONA_API_URL"], {
        "Authorization": "Bearer " + os.environ["DAYTONA_API_KEY"]}


def fly():
    return "%s/apps/%s" % (os.environ["ISOTIER_FLY_API_URL"], os.environ["FLY_APP"]), {
        "Authorization": "Bearer " + os.environ["FLY_API_TOKEN"]}


def vercel():
    return os.environ["ISOTIER_VERCEL_API_URL"], {
        "Authorization": "Bearer " + os.environ["VERCEL_TOKEN"]}


def team():
    return "?teamId=" + os.environ["VERCEL_TEAM_ID"]


def create(provider):
    """A sandbox as the provider's SDK makes one, running when this returns."""
    if provider == "e2b":
        api, h = e2b()
        st, doc = request("POST", api + "/sandboxes", h, {"templateID": "caller-template"})
        assert st == 201, st
        return doc["sandboxID"]
    if provider == "daytona":
        api, h = daytona()
        st, doc = request("POST", api + "/sandbox", h, {"snapshot": "caller-snapshot"})
        assert st == 200, st
        st, _ = request("GET", api + "/sandbox/" + doc["id"], h)  # until started
        assert st == 200, st
        return doc["id"]
    if provider == "fly":
        api, h = fly()
        st, doc = request("POST", api + "/machines", h,
                          {"config": {"image": "registry.example/caller:1"}})
        assert st == 200, st
        st, _ = request("GET", api + "/machines/%s/wait?state=started" % doc["id"], h)
        assert st == 200, st
        return doc["id"]
    if provider == "vercel":
        api, h = vercel()
        st, doc = request("POST", api + "/v3/sandboxes" + team(), h,
                          {"projectId": os.environ["VERCEL_PROJECT_ID"]})
        assert st == 200, st
        return doc["session"]["id"]
    raise SystemExit("unknown provider " + provider)


def alive(provider, sid):
    if provider == "e2b":
        api, h = e2b()
        st, doc = request("GET", api + "/sandboxes/" + sid, h)
        return st == 200 and doc["state"] == "running"
    if provider == "daytona":
        api, h = daytona()
        st, doc = request("GET", api + "/sandbox/" + sid, h)
        return st == 200 and doc["state"] == "started"
    if provider == "fly":
        api, h = fly()
        st, doc = request("GET", api + "/machines/" + sid, h)
        return st == 200 and doc["state"] == "started"
    if provider == "vercel":
        api, h = vercel()
        st, doc = request("GET", api + "/v2/sandboxes/sessions/" + sid + team(), h)
        return st == 200 and doc["session"]["status"] == "running"
    raise SystemExit("unknown provider " + provider)


def main(argv):
    if len(argv) == 3 and argv[1] == "create":
        print(create(argv[2]))
        return 0
    if len(argv) == 4 and argv[1] == "alive":
        return 0 if alive(argv[2], argv[3]) else 1
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
