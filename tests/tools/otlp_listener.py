#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A real OTLP/HTTP listener on 127.0.0.1 for tests: accepts POST /v1/traces
with isotier's User-Agent, appends each body as one line to OUT, answers 200
(400 to anything else, whose body is not kept). Prints its port on stdout,
exits by itself after LIFETIME seconds.

usage: otlp_listener.py OUT [LIFETIME]
"""
import http.server, sys, threading

out, lifetime = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 120

class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(min(n, 1 << 20))
        # Only what isotier's one HTTP client sends is kept: the path, the
        # content type and its User-Agent.
        ok = (self.path == "/v1/traces" and self.headers.get("Content-Type") == "application/json"
              and self.headers.get("User-Agent", "").startswith("isotier/"))
        if ok:
            with open(out, "ab") as f:
                f.write(body.replace(b"\n", b" ") + b"\n")
        self.send_response(200 if ok else 400)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(srv.server_address[1], flush=True)
threading.Timer(lifetime, srv.shutdown).start()
srv.serve_forever()
