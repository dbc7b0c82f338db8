#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/tools/docker_info_daemon.py SOCKET MODE - a stand-in Docker daemon on a Unix socket
that answers GET /info as MODE says (and every other request with 404), for the docker
backend's availability over the Engine API (reference/backends/engine_cli.c):
  ok        a real daemon's shape, its runtimes' names and paths hostile for a terminal
  status    HTTP 500
  garbage   a body that is not JSON
  dupkey    JSON with a duplicate key (the strict reader refuses it)
  noruntimes  JSON without a Runtimes object
  huge      a body of 2 MiB (over the reader's bound)
  hang      accepts and never answers
Writes its pid into SOCKET.pid once it listens; runs until killed."""
import http.server
import json
import os
import socketserver
import sys
import time

sock, mode = sys.argv[1], sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, code, body, ctype="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except BrokenPipeError:
            pass  # the reader stopped at its bound: what the huge answer is for

    def do_GET(self):
        if self.path.rstrip("/").split("/")[-1] != "info":
            return self.answer(404, b'{"message":"page not found"}')
        if mode == "hang":
            time.sleep(3600)
        if mode == "status":
            return self.answer(500, b'{"message":"this test\'s daemon refuses"}')
        if mode == "garbage":
            return self.answer(200, b"<html>not a daemon</html>", "text/html")
        if mode == "dupkey":
            return self.answer(200, b'{"Runtimes": {"runc": {"path": "runc"}}, "Runtimes": {}}')
        if mode == "noruntimes":
            return self.answer(200, b'{"ID": "x", "Runtimes": ["runc"]}')
        if mode == "huge":
            return self.answer(200, b'{"Pad": "' + b"x" * (2 << 20) + b'"}')
        rts = {"runc": {"path": "runc"},
               "runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace"]},
               "evil\x1b[31m": {"path": "/opt/\x1b]0;pwned\x07bin", "runtimeArgs": ["a b"]}}
        return self.answer(200, json.dumps({"ID": "stand-in", "Runtimes": rts}).encode())


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class UnixHandler(Handler):
    def address_string(self):
        return "unix"


if os.path.exists(sock):
    os.unlink(sock)
srv = Server(sock, UnixHandler)
with open(sock + ".pid", "w") as f:
    f.write(str(os.getpid()))
srv.serve_forever()
