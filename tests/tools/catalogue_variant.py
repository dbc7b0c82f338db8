#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Copies the real catalogue into DEST and rewrites one provider entry, for
tests that need a deliberately stale, unsourced or wrong claim.

usage: catalogue_variant.py SRC DEST ID MODE
  MODE: stale          every source retrieved 2020-01-01
        third-party    every source published by a third party
        claim=TIER/MECHANISM   the entry claims another tier and mechanism
        quote-edit     the first source's quote gains a word (same tier and mechanism)
        attestation=WORD   the entry documents hardware attestation (sev-snp, tdx)
"""
import json, os, shutil, sys

src, dest, pid, mode = sys.argv[1:5]
shutil.copytree(src, dest)
path = os.path.join(dest, pid + ".json")
with open(path) as f:
    doc = json.load(f)
if mode == "stale":
    for s in doc["sources"]:
        s["retrieved"] = "2020-01-01"
elif mode == "third-party":
    for s in doc["sources"]:
        s["publisher"] = "third-party"
elif mode.startswith("claim="):
    tier, mech = mode[len("claim="):].split("/")
    doc["tier"], doc["mechanism"] = tier, mech
elif mode == "quote-edit":
    doc["sources"][0]["quote"] += " (edited)"
elif mode.startswith("attestation="):
    doc["attestation"] = mode[len("attestation="):]
else:
    sys.exit("unknown mode " + mode)
with open(path, "w") as f:
    json.dump(doc, f, indent=2)
