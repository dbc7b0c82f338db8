#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""fixture_server.py - a real HTTP server on 127.0.0.1 for `isotier sources check`
tests and benches (Python 3 stdlib only).

  fixture_server.py --root DIR --port-file FILE [--lifetime S] [--latency-ms N] [--log FILE]

Binds a random free port, writes it to --port-file (atomically), serves until
--lifetime seconds have passed (default 120), then stops itself. Routes:
  /page/NAME          the file DIR/NAME as text/html; charset=utf-8
  /text/NAME          the file DIR/NAME as text/plain; charset=utf-8
  /pdf/NAME           the file DIR/NAME as application/pdf
  /status/CODE        that HTTP status with a small HTML body
  /loop               302 to itself (a redirect loop)
  /redirect/NAME      302 to /page/NAME
  /slow/SECONDS/NAME  waits, then serves /page/NAME
  /big                6 MiB body with a Content-Length
  /big-chunked        6 MiB body, chunked (no length announced)
  /flaky/KEY/NAME     503 on the first request for KEY, then /page/NAME
  /bench/N            a small page containing "bench quote number N"
Every response waits --latency-ms first. --log appends "METHOD PATH UA" lines.
"""
import argparse
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
FLAKY = {}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # Headers and body go out in separate writes: without TCP_NODELAY,
        # Nagle plus the client's delayed ACK add 40 ms to every reused connection.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):  # quiet; --log records requests
        pass

    def send_body(self, code, body, ctype="text/html; charset=utf-8", headers=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def page(self, name, ctype="text/html; charset=utf-8"):
        safe = os.path.basename(name)
        path = os.path.join(ARGS.root, safe)
        if not safe or not os.path.isfile(path):
            return self.send_body(404, b"<html><body>no such fixture</body></html>")
        with open(path, "rb") as f:
            return self.send_body(200, f.read(), ctype)

    def do_GET(self):
        if ARGS.log:
            with LOCK, open(ARGS.log, "a") as f:
                f.write("%s %s %s\n" % (self.command, self.path, self.headers.get("User-Agent", "")))
        if ARGS.latency_ms:
            time.sleep(ARGS.latency_ms / 1000.0)
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        try:
            self.route(parts)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def route(self, parts):
        if len(parts) == 2 and parts[0] == "page":
            return self.page(parts[1])
        if len(parts) == 2 and parts[0] == "text":
            return self.page(parts[1], "text/plain; charset=utf-8")
        if len(parts) == 2 and parts[0] == "pdf":
            return self.page(parts[1], "application/pdf")
        if len(parts) == 2 and parts[0] == "status":
            code = int(parts[1])
            return self.send_body(code, b"<html><body>status %d</body></html>" % code)
        if parts == ["loop"]:
            return self.send_body(302, b"", headers=[("Location", "/loop")])
        if len(parts) == 2 and parts[0] == "redirect":
            return self.send_body(302, b"", headers=[("Location", "/page/" + parts[1])])
        if len(parts) == 3 and parts[0] == "slow":
            deadline = time.time() + float(parts[1])
            while time.time() < deadline:
                time.sleep(0.05)
            return self.page(parts[2])
        if parts == ["big"]:
            return self.send_body(200, b"<html><body>" + b"x" * (6 << 20) + b"</body></html>")
        if parts == ["big-chunked"]:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"y" * 65536
            for _ in range(100):  # 6.25 MiB
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
            return None
        if len(parts) == 3 and parts[0] == "flaky":
            with LOCK:
                n = FLAKY.get(parts[1], 0)
                FLAKY[parts[1]] = n + 1
            if n == 0:
                return self.send_body(503, b"<html><body>try again</body></html>")
            return self.page(parts[2])
        if len(parts) == 2 and parts[0] == "bench":
            body = ("<html><head><title>bench</title></head><body><main><p>Filler text."
                    "</p><p>This is the <b>bench quote number %s</b>, served over loopback."
                    "</p></main></body></html>" % parts[1]).encode()
            return self.send_body(200, body)
        return self.send_body(404, b"<html><body>unknown route</body></html>")

    do_HEAD = do_GET


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # Clients that give up (timeouts, aborted oversized bodies) are expected.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--lifetime", type=float, default=120.0)
    ap.add_argument("--latency-ms", type=float, default=0.0)
    ap.add_argument("--log")
    ARGS = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, ARGS.port_file)
    timer = threading.Timer(ARGS.lifetime, srv.shutdown)
    timer.daemon = True
    timer.start()
    try:
        srv.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
