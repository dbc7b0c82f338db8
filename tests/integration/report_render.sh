#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# report_render.sh - the HTML report in a real browser: headless Chromium
# renders it (a catalogue quote is Japanese), takes a screenshot, logs no
# console message, and fetches nothing: every request the page could make
# goes through a logging proxy on 127.0.0.1, which must see none. A control
# page that does fetch and does log proves both checks can fail.
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
BIN=$ISOTIER_BIN
FIX=$R/tests/fixtures/report
[ -x "$BIN" ] || fail "no $BIN (build first)"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || skip "chromium is not installed (scripts/deps.sh installs the Debian package)"
# Can it run here at all? (no display needed; --no-sandbox for root in CI)
echo '<!DOCTYPE html><html><body><p>probe</p></body></html>' >"$TMP/probe.html"
if ! timeout 60 "$browser" --headless=new --no-sandbox --disable-gpu --user-data-dir="$TMP/p0" \
    --screenshot="$TMP/probe.png" --window-size=400,300 "file://$TMP/probe.html" >"$TMP/probe.err" 2>&1 ||
   [ ! -s "$TMP/probe.png" ]; then
  skip "chromium cannot run here: $(tail -n 3 "$TMP/probe.err" | tr '\n' ' ')"
fi

# shellcheck disable=SC2046 # pkg-config prints several flags
cc -std=gnu11 -D_GNU_SOURCE -I"$R/include" -I"$R/reference" -o "$TMP/mkdb" "$FIX/mkdb.c" \
  "$R/$BUILD/libisotier-tool.a" $(pkg-config --libs libcurl libxml-2.0 libcjson sqlite3 libpq libcrypto libgit2) -lpthread -lm
"$TMP/mkdb" "$TMP/h.db" </dev/null
python3 "$FIX/alerts.py" "$TMP/h.db" "$TMP/cat" full
"$BIN" report --db "$TMP/h.db" --catalogue "$TMP/cat" --today 2026-12-02 --format html --out "$TMP/r.html" ||
  fail "report: exit $?"
grep -q 'コンテナのように軽量で' "$TMP/r.html" || fail "the Japanese quote is not in the report"
grep -q "'Noto Sans CJK JP'" "$TMP/r.html" || fail "no CJK font in the font stack"

# A proxy that logs every request and answers 404.
python3 - "$TMP/proxy.log" >"$TMP/proxy.port" <<'EOF' &
import http.server, socketserver, sys
log = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.command + " " + self.path + "\n")
        self.send_response(404)
        self.end_headers()
    do_POST = do_HEAD = do_CONNECT = do_GET
    def log_message(self, *a):
        pass
s = socketserver.TCPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
EOF
proxy=$!
trap 'kill $proxy 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$TMP/proxy.port" ] && break; sleep 0.1; done
port=$(cat "$TMP/proxy.port")
[ -n "$port" ] || fail "the logging proxy did not start"

# Chromium's own background traffic (updates, time, accounts) is switched off
# where it can be and ignored below; the page's requests are what counts.
render() { # HTML PNG LOG
  : >"$TMP/proxy.log"
  timeout 90 "$browser" --headless=new --no-sandbox --disable-gpu --user-data-dir="$TMP/prof.$(basename "$1")" \
    --proxy-server="127.0.0.1:$port" --proxy-bypass-list="<-loopback>" \
    --disable-background-networking --disable-component-update --disable-sync --no-first-run \
    --disable-default-apps --disable-extensions --enable-logging=stderr --v=0 \
    --window-size=1280,2400 --screenshot="$2" "file://$1" >"$3" 2>&1
}
page_requests() { grep -vE 'google|gvt1\.com|gstatic' "$TMP/proxy.log" || true; }

# The control: a page that fetches and logs must be caught.
cat >"$TMP/bad.html" <<'EOF'
<!DOCTYPE html><html><body><p>control</p><img src="http://isotier-control.invalid/x.png"/>
<script>console.error("control error");</script></body></html>
EOF
render "$TMP/bad.html" "$TMP/bad.png" "$TMP/bad.log" || fail "chromium on the control page: exit $?"
grep -q 'CONSOLE' "$TMP/bad.log" || fail "the console check cannot fail: no CONSOLE line for the control page"
page_requests | grep -q 'isotier-control.invalid' || fail "the fetch check cannot fail: the proxy saw $(cat "$TMP/proxy.log")"

# The report.
render "$TMP/r.html" "$TMP/r.png" "$TMP/r.log" || fail "chromium on the report: exit $? ($(tail -5 "$TMP/r.log"))"
[ -s "$TMP/r.png" ] || fail "no screenshot"
python3 - "$TMP/r.png" <<'EOF' || fail "screenshot"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (1280, 2400), (w, h)
# Not a blank page: decompress and look for more than one pixel value.
idat, pos = b"", 8
while pos < len(data):
    n, = struct.unpack(">I", data[pos:pos + 4]); kind = data[pos + 4:pos + 8]
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
assert len(set(raw[:200000])) > 8, "the screenshot is blank"
EOF
! grep 'CONSOLE' "$TMP/r.log" || fail "the report logged to the console"
req=$(page_requests)
[ -z "$req" ] || fail "the report fetched: $req"
echo "report render: chromium drew the report (screenshot $(stat -c %s "$TMP/r.png") bytes), no console message, no fetch"
