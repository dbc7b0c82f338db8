#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/fuzz/seeds.py OUT PROBE - seed corpora for every harness, from the
test fixtures (never hand-written copies that drift): OUT/<harness>/ gets one
file per seed. PROBE is the built isotier-probe, used to turn each probe
fixture (a capture directory) into the JSON it reports."""
import hashlib
import os
import subprocess
import sys
import zlib

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out, probe = sys.argv[1], sys.argv[2]
fx = os.path.join(root, "tests", "fixtures")

import re


def replay_paths():
    """fuzz_probe_replay.c's paths[], in order (a record's first byte indexes
    it). Every literal path a reader in probes/ hands to probe_read or
    probe_read_head must be there: a file the harness cannot feed is code it
    never reaches."""
    src = open(os.path.join(root, "tests", "fuzz", "fuzz_probe_replay.c")).read()
    body = src[src.index("paths[] = {"):]
    body = re.sub(r"/\*.*?\*/", "", body[:body.index("};")], flags=re.S)
    paths = re.findall(r'"([^"]+)"', body)
    read = set()
    pdir = os.path.join(root, "probes")
    for n in sorted(os.listdir(pdir)):
        if n.endswith(".c") and n != "input.c":
            text = open(os.path.join(pdir, n)).read()
            read |= set(re.findall(r'probe_read(?:_head)?\(in, "(/[^"]+)"', text))
    missing = sorted(read - set(paths))
    if missing:
        sys.exit("seeds.py: fuzz_probe_replay.c's paths[] lacks %s, which the probe reads"
                 % ", ".join(missing))
    return paths


REPLAY_PATHS = replay_paths()


def put(harness, data):
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def record(idx, data):
    data = data[:0xFFFF]
    return bytes([idx, len(data) >> 8, len(data) & 0xFF]) + data


def files_under(d):
    for base, _, names in os.walk(d):
        for n in sorted(names):
            yield os.path.join(base, n)


# Probe fixtures: replay records, and the JSON the probe reports from each.
probe_dir = os.path.join(fx, "probe")
for name in sorted(os.listdir(probe_dir)):
    cap = os.path.join(probe_dir, name)
    if not os.path.isdir(cap):
        continue
    recs = b""
    # What probe_path_exists would find in this capture (/proc/vz, /dev/...),
    # as the .probe/paths list a live run writes: with the capture's own list
    # first (a record's first copy wins).
    listed = []
    for base, dirs, names in os.walk(cap):
        for n in dirs + names:
            live = os.path.join(base, n)[len(cap):]
            if not live.startswith("/.probe"):
                listed.append(live)
    own = os.path.join(cap, ".probe", "paths")
    extra = "\n".join(sorted(listed)).encode() + b"\n"
    if os.path.exists(own):
        with open(own, "rb") as f:
            extra = f.read() + b"\n" + extra
    recs += record(REPLAY_PATHS.index("/.probe/paths"), extra)
    for path in files_under(cap):
        live = path[len(cap):]
        if live in REPLAY_PATHS and live != "/.probe/paths":
            with open(path, "rb") as f:
                recs += record(REPLAY_PATHS.index(live), f.read())
    put("fuzz_probe_replay", recs)
    doc = subprocess.run([probe, "--json", "--root", cap], capture_output=True).stdout
    if doc:
        put("fuzz_probe_output", doc)
        # With a run object holding a played pattern (a cross-sandbox
        # challenge's modulator): the probe plays none under --root.
        import json
        try:
            d = json.loads(doc)
            d["run"] = {"nonce": "0123456789abcdef", "pattern": {
                "bits": "01101001", "slot_ms": 50, "clock": "monotonic",
                "segments": [[1000 + 60 * i, 1050 + 60 * i, 256 * int(b)]
                             for i, b in enumerate("01101001")]}}
            put("fuzz_probe_output", json.dumps(d).encode())
        except ValueError:
            pass
        import json
        try:
            d = json.loads(doc)
            put("fuzz_evidence", json.dumps(d.get("layers", [])).encode() + b"\0" + doc)
        except ValueError:
            pass

# Catalogue files: the real catalogue and every fixture (valid and broken).
provider_files = sorted(files_under(os.path.join(root, "catalogue", "providers")))
for path in provider_files + sorted(files_under(os.path.join(fx, "catalogue"))):
    if path.endswith(".json"):
        with open(path, "rb") as f:
            put("fuzz_catalogue", f.read())

# CHURN.md and CHANGELOG.md.
md = {}
for n in ("CHURN.md", "CHANGELOG.md"):
    with open(os.path.join(root, n), "rb") as f:
        md[n] = f.read()
        put("fuzz_churn_md", md[n])

# Web pages.
for path in files_under(os.path.join(fx, "sources")):
    with open(path, "rb") as f:
        put("fuzz_htmltext", f.read())

# Git history: pairs of revisions of a few real provider files and CHURN.md.
docs = []
for path in provider_files[:8]:
    with open(path, "rb") as f:
        docs.append(f.read())
for i in range(0, len(docs) - 1, 2):
    old = record(0, docs[i]) + record(1, docs[i + 1])
    new = record(0, docs[i].replace(b'"CONTAINER"', b'"MICROVM"')) + record(1, docs[i + 1]) + \
        record(4, md["CHURN.md"])
    put("fuzz_churn_git", old + new)

# Kernel identities (fuzz_kernel_id.c): every mode (raw or canonical boot_ids,
# shared or not, equal btimes or not) over a few byte patterns.
for mode in range(16):
    for fill in (b"\x00", b"\x5a", b"\xff", bytes(range(1, 120))):
        put("fuzz_kernel_id", bytes([mode]) + (fill * 120)[:120])

# Streaming redaction (fuzz_redact_stream.c): text with the harness's planted
# secrets, cut every way from one byte to none.
SECRETS = [b"k3y-PLANTED-0123456789abcdef", b"zq9#wv", b"aaaaaaab"]
texts = [b"plain output, no secret in it\n",
         b"token=" + SECRETS[0] + b" and again " + SECRETS[0] + b"\n",
         b"a" * 20 + b"b" + SECRETS[1] + SECRETS[2] + b"zq9#w",
         SECRETS[2][:5] + SECRETS[0] + SECRETS[1] * 3]
for text in texts:
    for cuts in ([], [1], [3, 7], [0, 5], [27, 1, 2], [6, 6, 6, 6, 0]):
        put("fuzz_redact_stream", bytes([len(cuts)] + cuts) + text)


# Challenge answers (fuzz_challenge.c): a host pattern (16 slots of 50 ms,
# header bytes as the harness reads them) and a probe document whose task
# count follows it (seen), stays flat (not seen), errs, or is too sparse.
def challenge_seed(bits, counts, samples=None, error=None, extra=None):
    n, slot_us = len(bits), 50000
    header = bytes([n - 6, 50 - 20]) + bytes(
        sum(int(bits[8 * j + i]) << i for i in range(8) if 8 * j + i < n)
        for j in range((n + 7) // 8))
    start = 4900000
    end = start + 100000 + n * slot_us + 100000
    changes, last = [[start, 100]], 100
    for k, b in enumerate(bits):
        procs = counts(k, b)
        t = start + 100000 + k * slot_us + 2000
        if procs != last:
            changes.append([t, procs])
            last = procs
    ch = {"start_us": start, "end_us": end, "samples": samples or (end - start) // 1000,
          "truncated": False, "changes": changes}
    if error:
        ch["error"] = error
    run = {"nonce": "0123456789abcdef0123456789abcdef", "challenge": ch}
    if extra:
        run.update(extra)
    return header + json.dumps({"run": run}).encode()


import json  # noqa: E402
bits = "1010010100111100"
put("fuzz_challenge", challenge_seed(bits, lambda k, b: 100 + 256 * int(b)))
put("fuzz_challenge", challenge_seed(bits, lambda k, b: 100 + 130 * int(b) + k % 3))
put("fuzz_challenge", challenge_seed(bits, lambda k, b: 100))
put("fuzz_challenge", challenge_seed(bits, lambda k, b: 100 + 256 * (1 - int(b))))
put("fuzz_challenge", challenge_seed(bits, lambda k, b: 100 + 256 * int(b), samples=3))
put("fuzz_challenge", challenge_seed(bits, lambda k, b: 100, error="EPERM"))
put("fuzz_challenge", challenge_seed(bits, lambda k, b: 100 + 256 * int(b), extra={
    "pattern": {"bits": bits, "slot_ms": 50, "clock": "monotonic",
                "segments": [[1000 + 60 * i, 1050 + 60 * i, 256 * int(b)]
                             for i, b in enumerate(bits)]}}))


# Provider answers (fuzz_remote_answer.c), shaped as the emulators in
# tests/tools/ answer: mode byte 0 a Connect stream (E2B's process events),
# 1/5 a create's answer (id at the top or under "sandbox"), 2 an exec's.
def envelope(msg, flags=0):
    return bytes([flags]) + len(msg).to_bytes(4, "big") + msg


events = [{"event": {"start": {"pid": 7}}},
          {"event": {"data": {"stdout": "aGVsbG8K"}}},
          {"event": {"data": {"stderr": "b29wcwo="}}},
          {"event": {"end": {"exitCode": 3, "exited": True, "status": "exit status 3"}}}]
stream = b"".join(envelope(json.dumps(e).encode()) for e in events) + envelope(b"{}", 2)
for chunk_mode in (0, 4, 32, 252):
    put("fuzz_remote_answer", bytes([chunk_mode]) + stream)
put("fuzz_remote_answer", bytes([0]) + stream[:17])
sid = "0b9e2f4c-8a7d-4e21-9c3b-5d6f7a8b9c0d"
put("fuzz_remote_answer", b"\x01" + json.dumps({"id": sid, "state": "creating"}).encode())
put("fuzz_remote_answer", b"\x05" + json.dumps({"sandbox": {"id": "sbx_emu0123"}}).encode())
put("fuzz_remote_answer", b"\x01" + b'{"id": "a/../b"}')
for code in ("0", "1", "255", "256", "65536", "-1", "-256", "1.5", "1e300", "null"):
    put("fuzz_remote_answer", b"\x02" + ('{"exitCode": %s, "result": "out\\n"}' % code).encode())


# Whole adapters (fuzz_remote_adapters.c): one byte for the adapter (0 e2b,
# 1 daytona, 2 fly, 3 vercel), then per kind (create, upload, state, exec,
# result, logs, delete, list) a status index (0 200, 1 201, 2 204, 3 404) and
# a length-prefixed answer, shaped as the emulators in tests/tools/ answer:
# the happy path, a sandbox left for the sweep, and exit codes in and out of
# 0-255.
import base64  # noqa: E402
import struct  # noqa: E402

SWEPT = "00112233445566778899aabb"  # the harness's sweep nonce


def answers(adapter, parts):
    out = bytes([adapter])
    for status, body in parts:
        body = body if isinstance(body, bytes) else json.dumps(body).encode()
        out += bytes([status]) + struct.pack(">H", len(body)) + body
    return out


def env(msg, flags=0):
    raw = json.dumps(msg).encode()
    return bytes([flags]) + struct.pack(">I", len(raw)) + raw


PROBE_OUT = b'{"schema":"isotier-probe/1","observed_tier":"CONTAINER"}\n'
for code in (None, 3, 256, -1, 0.5):
    end = {"exited": True, "status": "exit status %s" % code}
    if code is not None:
        end["exitCode"] = code
    stream = (env({"event": {"start": {"pid": 7}}}) +
              env({"event": {"data": {"stdout": base64.b64encode(PROBE_OUT).decode()}}}) +
              env({"event": {"data": {"stderr": base64.b64encode(b"warn\n").decode()}}}) +
              env({"event": {"end": end}}) + env({}, 2))
    listed = [{"sandboxID": "sbx-left0", "templateID": "base",
               "metadata": {"isotier-nonce": SWEPT}}]
    put("fuzz_remote_adapters", answers(0, [
        (1, {"sandboxID": "sbx0123", "templateID": "base", "clientID": "c",
             "envdAccessToken": None, "domain": None}),
        (0, [{"path": "/tmp/isotier/isotier-probe", "name": "isotier-probe", "type": "file"}]),
        (3, b""), (0, stream), (3, b""), (3, b""), (2, b""), (0, listed)]))
    sandbox = {"id": "dt0123", "state": "started", "sandboxClass": "small",
               "toolboxProxyUrl": "http://toolbox.invalid/toolbox",
               "labels": {"isotier-nonce": SWEPT}}
    ex = {"result": PROBE_OUT.decode()}
    if code is not None:
        ex["exitCode"] = code
    put("fuzz_remote_adapters", answers(1, [
        (0, sandbox), (0, {}), (0, sandbox), (0, ex), (3, b""), (3, b""), (0, sandbox),
        (0, {"items": [sandbox], "nextCursor": None})]))
    fx = {"stdout": PROBE_OUT.decode(), "stderr": "warn\n"}
    if code is not None:
        fx["exit_code"] = code
    machine = {"id": "fm0123", "state": "started",
               "config": {"metadata": {"isotier-nonce": SWEPT}}}
    put("fuzz_remote_adapters", answers(2, [
        (0, machine), (3, b""), (0, {"ok": True}), (0, fx), (3, b""), (3, b""),
        (0, {"ok": True}), (0, [machine])]))
    logs = (json.dumps({"stream": "stdout", "data": PROBE_OUT.decode()}) + "\n" +
            json.dumps({"stream": "stderr", "data": "warn\n"}) + "\n").encode()
    put("fuzz_remote_adapters", answers(3, [
        (0, {"sandbox": {"id": "sbx_v0123", "name": "isotier-x"},
             "session": {"id": "sess0123"}}),
        (0, {}), (3, b""), (0, {"command": {"id": "cmd0123"}}),
        (0, {"command": {"id": "cmd0123", "exitCode": code if code is not None else 0}}),
        (0, logs), (0, {"session": {"id": "sess0123"}}),
        (0, {"sandboxes": [{"name": "isotier-" + SWEPT, "currentSessionId": "sess0456"}],
             "pagination": {}})]))
# A hostile id: "..", which a URL path resolves to the parent.
put("fuzz_remote_adapters", answers(0, [
    (1, {"sandboxID": "..", "templateID": "base"}), (0, []), (3, b""), (3, b""),
    (3, b""), (3, b""), (2, b""), (0, [{"sandboxID": ".."}])]))

# Attestation (fuzz_attest.c): the real SNP report (mode 0, auxblob split at 0x4A0
# = 74 * 16), the real TDX quote (mode 1), and a probe output with an
# "attestation" member holding the SNP report (mode 2), AMD's Milan and Turin
# VCEKs (mode 3: their TCB, hwID and product extensions), TDX collateral
# (modes 4 and 5, below).
_att = os.path.join(root, "tests", "fixtures", "attest")
_snp = open(os.path.join(_att, "snp_milan_report.bin"), "rb").read()
_tdx = open(os.path.join(_att, "tdx_spr_quote_v4.bin"), "rb").read()
_vcek = open(os.path.join(_att, "snp_milan_vcek.der"), "rb").read()
_aux = bytes.fromhex("63da758de6644564adc5f4b93be8accd") + (48).to_bytes(4, "little") + \
    len(_vcek).to_bytes(4, "little") + bytes(24) + _vcek
put("fuzz_attest", b"\x00" + bytes([74]) + _snp + _aux)
put("fuzz_attest", b"\x01" + _tdx)
put("fuzz_attest", b"\x01" + open(os.path.join(_att, "tdx_quote_v5.bin"), "rb").read())
put("fuzz_attest", b"\x03" + _vcek)
put("fuzz_attest", b"\x03" + open(os.path.join(_att, "snp_turin_vcek.der"), "rb").read())
# TDX collateral (modes 4 and 5): a TCB info and a QE identity as Intel writes
# them, for the harness's test authority's PCK (FMSPC 00906ED50000, PCE-ID
# 0000, every SGX SVN 4, PCESVN 11) and quote (TEE TCB SVN 3, its QE TD_QE
# at ISVSVN 4), valid 2020-2099: the harness signs them. Mode 4's split is in
# 16-byte units: the TCB info is padded inside its object to a multiple.
_svns = lambda first, rest: ",".join('{"svn":%d}' % (first if i == 0 else rest) for i in range(16))
_dates = '"issueDate":"2020-01-01T00:00:00Z","nextUpdate":"2099-01-01T00:00:00Z"'
_tcbinfo = ('{"id":"TDX","version":3,' + _dates + ',"fmspc":"00906ED50000","pceId":"0000",'
            '"tcbType":0,"tcbLevels":[{"tcb":{"sgxtcbcomponents":[' + _svns(4, 4) + '],'
            '"pcesvn":11,"tdxtcbcomponents":[' + _svns(3, 0) + ']},"tcbStatus":"UpToDate"}]}')
_tcbinfo = "{" + " " * (-len(_tcbinfo) % 16) + _tcbinfo[1:]
_qeid = ('{"id":"TD_QE","version":2,' + _dates + ',"tcbEvaluationDataNumber":17,'
         '"miscselect":"00000000","miscselectMask":"FFFFFFFF",'
         '"attributes":"11000000000000000000000000000000",'
         '"attributesMask":"FBFFFFFFFFFFFFFF0000000000000000",'
         '"mrsigner":"DC9E2A7C6F948F17474E34A7FC43ED030F7C1563F1BABDDF6340C82E0E54A8C5",'
         '"isvprodid":2,"tcbLevels":[{"tcb":{"isvsvn":4},"tcbDate":"2024-03-13T00:00:00Z",'
         '"tcbStatus":"UpToDate"},{"tcb":{"isvsvn":2},"tcbDate":"2023-08-09T00:00:00Z",'
         '"tcbStatus":"OutOfDate"},{"tcb":{"isvsvn":1},"tcbDate":"2023-02-15T00:00:00Z",'
         '"tcbStatus":"Revoked"}]}')
assert len(_tcbinfo) % 16 == 0 and len(_tcbinfo) // 16 < 256
put("fuzz_attest", b"\x04" + bytes([len(_tcbinfo) // 16]) + _tcbinfo.encode() + _qeid.encode())
_qe = bytearray(384)
_qe[48] = 0x11
_qe[128:160] = bytes.fromhex("DC9E2A7C6F948F17474E34A7FC43ED030F7C1563F1BABDDF6340C82E0E54A8C5")
_qe[256:260] = (2).to_bytes(2, "little") + (4).to_bytes(2, "little")
put("fuzz_attest", b"\x05" + bytes(_qe) + _qeid.encode())
put("fuzz_attest", b"\x02" + b'{\n  "schema": "isotier.probe/1",\n  "run": {"nonce": "0123456789abcdef"},\n'
    b'  "attestation": {"status": "ok", "provider": "sev_guest", "outblob": "' +
    _snp.hex().encode() + b'", "auxblob": "' + _aux.hex().encode() + b'"}\n}\n')

# The qemu guest's console (fuzz_qemu_console.c): a transcript as the guest init
# frames it (guest/init.c), its capture file by file and as one zlib stream, cut
# into reads of 1, 7 and 64 bytes.
def console_seed(records):
    def b64lines(raw, tag=""):
        return "".join("%s%s\n" % (tag, base64.b64encode(raw[i:i + 57]).decode())
                       for i in range(0, len(raw), 57))
    out = "[    0.1] noise\r\nISOTIER-START\n" + b64lines(b'{"schema": "isotier.probe/1"}\n', "ISOTIER-OUT ")
    plain = "".join("ISOTIER-CAPTURE-FILE %s %d\n" % (p, len(b)) + b64lines(b) for p, b in records)
    raw = b"".join(b"%s %d\n" % (p.encode(), len(b)) + b for p, b in records)
    z = zlib.compress(raw, 1)
    packed = "ISOTIER-CAPTURE-DEFLATE %d %d\n" % (len(raw), len(z)) + b64lines(z)
    tail = "ISOTIER-CAPTURE-END\nISOTIER-EXIT 0\n"
    for body in (plain, packed):
        for piece in (0, 6, 63):
            put("fuzz_qemu_console", bytes([piece]) + (out + body + tail).encode())

console_seed([("proc/version", b"Linux version 6.1.0\n"), (".probe/empty", b""),
              (".probe/kmsg", b"[    0.000000] Hypervisor detected: KVM\n" * 40)])
