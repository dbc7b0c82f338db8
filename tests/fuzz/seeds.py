#!/usr/bin/env python3
"""tests/fuzz/seeds.py OUT PROBE - seed corpora for every harness, from the
test fixtures (never hand-written copies that drift): OUT/<harness>/ gets one
file per seed. PROBE is the built isotier-probe, used to turn each probe
fixture (a capture directory) into the JSON it reports."""
import hashlib
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out, probe = sys.argv[1], sys.argv[2]
fx = os.path.join(root, "tests", "fixtures")

# The file index of fuzz_probe_replay.c's paths[] (keep in step).
REPLAY_PATHS = [
    "/.probe/ns", "/proc/version", "/.probe/uname", "/.probe/timing", "/.probe/cpuid",
    "/proc/cmdline", "/.probe/syscalls", "/proc/self/uid_map", "/proc/self/status",
    "/proc/self/mountinfo", "/proc/self/cgroup", "/proc/1/comm", "/.probe/pid", "/.probe/kmsg",
    "/sys/class/dmi/id/sys_vendor", "/.probe/virtio", "/.dockerenv",
    "/sys/class/dmi/id/product_name", "/proc/cpuinfo", "/proc/1/environ",
    "/sys/bus/pci/devices/0000:00:00.0/vendor", "/sys/bus/pci/devices/0000:00:00.0/device",
    "/sys/firmware/acpi/tables/DSDT", "/sys/class/dmi/id/bios_vendor",
    "/sys/bus/virtio/devices/virtio0/vendor", "/run/systemd/container", "/proc/stat",
    "/proc/sys/kernel/random/boot_id", "/sys/hypervisor/type", "/sys/firmware/acpi/tables/FACP",
    "/sys/firmware/acpi/tables/APIC"]


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
    for path in files_under(cap):
        live = path[len(cap):]
        if live in REPLAY_PATHS:
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
