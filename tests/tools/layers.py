#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""layers.py ROOT BUILD PROBE_OBJ_DIR [TOOL_OBJ_DIR] - the layers of HACKING.md, checked.

Includes: every `#include "x"` resolves from the including file's folder or
include/ (never through -I), a folder includes only its own layer and those
below (reference/'s concern folders ranked among themselves: CONCERNS), the
CLI reaches the library only through reference/api/isotier_tool.h,
the probe only itself; no include cycle. Calls: from each object's defined
and undefined symbols (nm), no folder calls a higher one and no two files
call each other, directly or round a cycle. The seam, by symbol: every
library function a program outside the library calls (the CLI's objects;
the test tools' and bench programs' objects in TOOL_OBJ_DIR, named after
their sources) is declared in a header that program may use (SEAMS), so a
hand-written prototype of an internal function does not pass. Prints what
is wrong; exit 1.
"""
import collections, glob, os, re, subprocess, sys

root, build, probe_objs = sys.argv[1], sys.argv[2], sys.argv[3]
RANK = {"include": 0, "base": 1, "catalogue": 2, "reference": 3, "verify": 4}
# reference/ by concern, each folder using only those before it (HACKING.md's layers): the
# building blocks (processes, paths, HTTP); what the probe reports and the host sees, judged;
# the history; the backends (which watch the host's side: evidence/host_watch.h); hardware
# attestation and signed statements (over the history; the host's own attestation runs the host
# backend); one observation (backends, evidence, attestation); the library's entry points.
# A file of a folder below one of these (reference/backends/remote/) is that concern's.
CONCERNS = ["core", "evidence", "history", "backends", "attestation", "observation", "api"]
# A file directly under reference/ belongs to a concern by its name (the remote backends' files).
TOP_FILES = {"backend_": "backends"}
# Programs of their own that live in reference/, not the library.
NOT_LIBRARY = ("reference/examples/", "reference/guest/")
TOOL_HEADER = "reference/api/isotier_tool.h"
problems = []


def folder(rel):
    return rel.split("/")[0]


def concern(rel):
    """The concern of a file of reference/ (None: in none, or not reference/'s)."""
    parts = rel.split("/")
    if parts[0] != "reference":
        return None
    if len(parts) > 2:
        return parts[1] if parts[1] in CONCERNS else None
    return next((c for prefix, c in TOP_FILES.items() if parts[1].startswith(prefix)), None)


def layer(rel):
    """The layer a file is in: its top folder; a file of reference/, its concern's folder."""
    c = concern(rel)
    return f"reference/{c}" if c else folder(rel)


def ranked(rel):
    """False for a file of reference/ in no concern (a problem of its own, said once)."""
    return folder(rel) != "reference" or concern(rel) is not None


def rank(rel):
    c = concern(rel)
    return (RANK[folder(rel)], CONCERNS.index(c) + 1 if c else 0)


def sources():
    for top in list(RANK) + ["probes"]:
        # verify/ has a folder per concern (verify/cmd, verify/report...), reference/ too (and a
        # concern may have sub-folders); the others are flat.
        if top == "reference":
            found = glob.glob(os.path.join(root, top, "**", "*.[ch]"), recursive=True)
        elif top == "verify":
            found = glob.glob(os.path.join(root, top, "*", "*.[ch]"))
        else:
            found = glob.glob(os.path.join(root, top, "*.[ch]"))
        for path in sorted(found):
            rel = os.path.relpath(path, root)
            if not rel.startswith(NOT_LIBRARY):
                yield rel


for rel in sources():
    if not ranked(rel):
        problems.append(f"{rel}: in no concern of reference/ ({', '.join(CONCERNS)}: CONCERNS in layers.py)")
for c in CONCERNS:
    if not any(concern(rel) == c for rel in sources()):
        problems.append(f"reference/{c}/: no file of that concern (CONCERNS in layers.py is stale)")


def resolve(rel, inc):
    for base in (os.path.dirname(rel), "include"):
        cand = os.path.normpath(os.path.join(base, inc))
        if os.path.exists(os.path.join(root, cand)):
            return cand
    return None


includes = collections.defaultdict(set)
for rel in sources():
    src = open(os.path.join(root, rel), encoding="utf-8").read()
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', src, re.M):
        target = resolve(rel, inc)
        if target is None:
            problems.append(f'{rel}: #include "{inc}" does not name its folder (found only through -I)')
            continue
        includes[rel].add(target)
        mine, theirs = folder(rel), folder(target)
        if mine == "probes" or theirs == "probes":
            if mine != theirs:
                problems.append(f"{rel} includes {target}: the probe shares no code with isotier")
            continue
        if ranked(rel) and ranked(target) and rank(target) > rank(rel):
            problems.append(f"{rel} ({layer(rel)}) includes {target} from the higher layer {layer(target)}")
        if mine == "verify" and theirs not in ("verify", "include") and target != TOOL_HEADER:
            problems.append(f"{rel}: the CLI includes {target}; it may use only include/isotier.h "
                            f"and {TOOL_HEADER}")


def cycles(graph, nodes):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


for comp in cycles(includes, list(includes)):
    problems.append("include cycle: " + " -> ".join(comp))


_symbols = {}
UNDEFINED_TYPES = {"U", "w", "v"}  # what `nm -u` lists: undefined, weak undefined


def load_symbols(objs):
    """Reads the global symbols of every object not read yet with one nm run a batch (one run an
    object spent most of this check's time starting nm)."""
    todo = sorted({o for o in objs if o not in _symbols})
    for i in range(0, len(todo), 200):
        batch = todo[i:i + 200]
        for o in batch:
            _symbols[o] = (set(), set())
        out = subprocess.run(["nm", "-A", "-g", "--format=posix", *batch], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            # "OBJ: NAME TYPE [VALUE SIZE]"; OBJ is one of ours, so ": " splits it off
            obj, _, rest = line.partition(": ")
            f = rest.split()
            if obj not in _symbols or len(f) < 2:
                continue
            _symbols[obj][1 if f[1] in UNDEFINED_TYPES else 0].add(f[0])


def symbols(obj):
    """(defined, undefined) global symbols of one object."""
    if obj not in _symbols:
        load_symbols([obj])
    return _symbols[obj]


def call_graph(objects):
    """objects: {source rel: object path} -> {source: set of sources it calls}."""
    defs, undefs = {}, {}
    for rel, obj in objects.items():
        d, u = symbols(obj)
        undefs[rel] = u
        for s in d:
            defs[s] = rel
    graph = collections.defaultdict(set)
    for rel, us in undefs.items():
        for s in us:
            if s in defs and defs[s] != rel:
                graph[rel].add(defs[s])
    return graph


lib_objects = {}
for rel in sources():
    if rel.endswith(".c") and folder(rel) in RANK:
        obj = os.path.join(root, build, "obj", rel[:-2] + ".o")
        if not os.path.exists(obj):
            problems.append(f"{rel}: no object {obj} (build first)")
            continue
        lib_objects[rel] = obj
probe_objects = {}
for rel in sources():
    if rel.endswith(".c") and folder(rel) == "probes":
        probe_objects[rel] = os.path.join(probe_objs, os.path.basename(rel)[:-2] + ".o")

load_symbols(list(lib_objects.values()) + list(probe_objects.values()))
n_edges = 0
for objects in (lib_objects, probe_objects):
    graph = call_graph(objects)
    for a, bs in graph.items():
        for b in bs:
            n_edges += 1
            if folder(a) in RANK and ranked(a) and ranked(b) and rank(b) > rank(a):
                problems.append(f"{a} ({layer(a)}) calls {b} in the higher layer {layer(b)}")
    for comp in cycles(graph, list(objects)):
        problems.append("call cycle between files: " + ", ".join(comp))

# ---- the seam, by symbol ------------------------------------------------------------------
# What each program outside the library may call of it: the functions declared in these headers
# and the headers they include (from the tree). The CLI: the public header and the documented
# tool header (reference/api/isotier_tool.h); an application of the public API (the example, the
# API test tools, the bench program): the public header only; backend-run, the backend test
# driver: the tool header and the CLI's cancellation (verify/run/cancel.h, linked from verify/).
PUBLIC = ["include/isotier.h"]
TOOL = PUBLIC + [TOOL_HEADER]
SEAMS = {
    "verify/": TOOL,
    "tests/tools/backend-run.c": TOOL + ["verify/run/cancel.h"],
    "tests/tools/challenge-trials.c": TOOL + ["reference/evidence/host_watch.h"],
    "tests/tools/": PUBLIC,
    "bench/": PUBLIC,
    "reference/examples/": PUBLIC,
}


def seam_for(rel):
    for prefix in sorted(SEAMS, key=len, reverse=True):
        if rel == prefix or (prefix.endswith("/") and rel.startswith(prefix)):
            return SEAMS[prefix]
    return None


def header_closure(headers):
    seen, todo = set(), list(headers)
    while todo:
        h = todo.pop()
        if h in seen or not os.path.exists(os.path.join(root, h)):
            continue
        seen.add(h)
        src = open(os.path.join(root, h), encoding="utf-8").read()
        for inc in re.findall(r'^\s*#\s*include\s+[<"]([^">]+)[">]', src, re.M):
            for base in (os.path.dirname(h), "include"):
                cand = os.path.normpath(os.path.join(base, inc))
                if os.path.exists(os.path.join(root, cand)):
                    todo.append(cand)
                    break
    return seen


def declared_in(headers):
    """Names declared as functions or objects (extern or const) in the headers, comments out."""
    names = set()
    for h in headers:
        src = open(os.path.join(root, h), encoding="utf-8").read()
        src = re.sub(r"/\*.*?\*/|//[^\n]*", " ", src, flags=re.S)
        names.update(re.findall(r"\b([A-Za-z_]\w*)\s*\(", src))
        for decl in re.findall(r"\bextern\b[^;]*;", src):
            names.update(re.findall(r"\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?;", decl))
    return names


lib_defined = {}
for rel, obj in lib_objects.items():
    if folder(rel) != "verify":
        for sym in symbols(obj)[0]:
            lib_defined[sym] = rel
seam_objects = {rel: obj for rel, obj in lib_objects.items() if folder(rel) == "verify"}
tool_objs = sys.argv[4] if len(sys.argv) > 4 else None
if tool_objs:
    for obj in sorted(glob.glob(os.path.join(tool_objs, "**", "*.o"), recursive=True)):
        seam_objects[os.path.relpath(obj, tool_objs)[:-2] + ".c"] = obj
load_symbols(seam_objects.values())
seam_calls = collections.defaultdict(set)
for rel, obj in sorted(seam_objects.items()):
    allowed = seam_for(rel)
    if allowed is None:
        problems.append(f"{rel}: no seam says which library headers it may use (SEAMS in layers.py)")
        continue
    own = {h for h in sources() if folder(h) == folder(rel) and h.endswith(".h")} if folder(rel) == "verify" else set()
    names = declared_in(header_closure(allowed) | own)
    for sym in sorted(symbols(obj)[1]):
        if sym in lib_defined:
            seam_calls[folder(rel)].add(sym)
            if sym not in names:
                problems.append(f"{rel} calls {sym} ({lib_defined[sym]}), declared in no header it may "
                                f"use ({', '.join(allowed)} and what they include)")
if len(seam_calls["verify"]) < 20:
    problems.append(f"the CLI calls only {len(seam_calls['verify'])} library functions: the seam "
                    f"check no longer sees its objects")

if n_edges < 100:
    problems.append(f"only {n_edges} calls between files found: the check no longer sees the objects")
for p in problems:
    print(p)
print(f"layers: reference/ {' < '.join(CONCERNS)}; {len(includes)} files with includes, {n_edges} calls between files, "
      f"{sum(len(v) for v in seam_calls.values())} library functions called across the seam "
      f"(the CLI: {len(seam_calls['verify'])}), {len(problems)} problems")
sys.exit(1 if problems else 0)
