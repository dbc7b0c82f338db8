#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""catalogue-counts.py - the counts and lists README.md and CHANGELOG.md state
about the catalogue, generated from it, never kept by hand.

  catalogue-counts.py [--root DIR] [--catalogue DIR] [--write] [FILE...]

A document states a catalogue fact only inside a marked region:

  <!-- catalogue:offerings -->65<!-- /catalogue:offerings -->

Keys: offerings (entries), providers (distinct `provider` groups), tiers
("N MICROVM, N GVISOR, N CONTAINER, N UNKNOWN"), unknown (the UNKNOWN
offerings' ids, sorted, each in backticks). Without --write it checks: exit 1
naming FILE:LINE when a region disagrees with the catalogue, names an unknown
key, is not closed, or when a count of offerings or providers ("55 offerings")
is written outside a region; 0 when every statement agrees. --write rewrites
every region from the catalogue. FILEs default to README.md and CHANGELOG.md
under --root (default: the checkout this script is in).
"""
import argparse
import glob
import json
import os
import re
import sys

TIERS = ("MICROVM", "GVISOR", "CONTAINER", "UNKNOWN")
REGION = re.compile(r"<!-- catalogue:([a-z-]+) -->(.*?)<!-- /catalogue:([a-z-]+) -->", re.S)
OPEN = re.compile(r"<!-- catalogue:([a-z-]+) -->")
# A count written by hand: digits, then offerings/providers (a region's
# closing marker directly after the number does not count).
LOOSE = re.compile(r"(?<![\w>])(\d+)\s+(offerings|providers|catalogue entries)\b")


def facts(catalogue):
    entries = []
    for path in sorted(glob.glob(os.path.join(catalogue, "*.json"))):
        with open(path, encoding="utf-8") as f:
            entries.append(json.load(f))
    if not entries:
        raise SystemExit("catalogue-counts: no entries in %s" % catalogue)
    groups = {e.get("provider") or e["id"] for e in entries}
    by_tier = {t: sum(1 for e in entries if e.get("tier") == t) for t in TIERS}
    unknown = sorted(e["id"] for e in entries if e.get("tier") == "UNKNOWN")
    return {
        "offerings": str(len(entries)),
        "providers": str(len(groups)),
        "tiers": ", ".join("%d %s" % (by_tier[t], t) for t in TIERS),
        "unknown": ", ".join("`%s`" % i for i in unknown),
    }


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check(path, text, want):
    problems = []
    spans = []
    for m in REGION.finditer(text):
        key, value, close = m.group(1), m.group(2), m.group(3)
        spans.append((m.start(), m.end()))
        where = "%s:%d" % (path, line_of(text, m.start()))
        if key != close:
            problems.append("%s: region catalogue:%s closed as catalogue:%s" % (where, key, close))
        elif key not in want:
            problems.append("%s: unknown key catalogue:%s (known: %s)" % (where, key, ", ".join(sorted(want))))
        elif value != want[key]:
            problems.append("%s: catalogue:%s says %r, the catalogue says %r" % (where, key, value, want[key]))
    for m in OPEN.finditer(text):
        if not any(a <= m.start() < b for a, b in spans):
            problems.append("%s:%d: catalogue:%s is never closed" % (path, line_of(text, m.start()), m.group(1)))
    for m in LOOSE.finditer(text):
        if not any(a <= m.start() < b for a, b in spans):
            problems.append("%s:%d: '%s' is a count kept by hand: put it in a <!-- catalogue:%s --> region"
                            % (path, line_of(text, m.start()), m.group(0),
                               "providers" if m.group(2) == "providers" else "offerings"))
    return problems


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=here)
    ap.add_argument("--catalogue")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    want = facts(a.catalogue or os.path.join(a.root, "catalogue", "providers"))
    files = a.files or [os.path.join(a.root, n) for n in ("README.md", "CHANGELOG.md")]
    problems = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if a.write:
            new = REGION.sub(lambda m: "<!-- catalogue:%s -->%s<!-- /catalogue:%s -->"
                             % (m.group(1), want.get(m.group(1), m.group(2)), m.group(3)), text)
            if new != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
                text = new
        problems += check(path, text, want)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
