#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# licence.sh - the project's licence is stated where each reader looks: LICENSE (Apache-2.0,
# the full text), one SPDX-License-Identifier line at the top of every tracked C, shell and
# Python source (scripts/spdx.py --check), and debian/copyright in Debian's machine-readable
# form (DEP-5): its header names the format, every Files paragraph has a Copyright and a
# License, and every licence named has its text (a stand-alone License paragraph) that nothing
# leaves unused. The checks are lintian's where it has one too (package_test.sh runs lintian).
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
grep -q 'Apache License' "$R/LICENSE" && grep -q 'Version 2.0, January 2004' "$R/LICENSE" ||
  fail "LICENSE is not the Apache License 2.0"
cmp -s "$R/LICENSE" /usr/share/common-licenses/Apache-2.0 2>/dev/null ||
  [ ! -e /usr/share/common-licenses/Apache-2.0 ] || fail "LICENSE differs from the Apache-2.0 text Debian ships"
(cd "$R" && git ls-files >/dev/null 2>&1) || skip "not a git checkout: the sources are the tracked files"
(cd "$R" && python3 scripts/spdx.py --check) 2>"$TMP/spdx.err" || fail "$(cat "$TMP/spdx.err")"
python3 - "$R/debian/copyright" <<'PY' || fail "debian/copyright is not DEP-5"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
paras = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
def fields(p):
    out, key = {}, None
    for line in p.split("\n"):
        if line.startswith((" ", "\t")):
            if key is None:
                sys.exit("continuation line before any field: %r" % line)
            out[key] += "\n" + line
        else:
            m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
            if not m:
                sys.exit("not a field: %r" % line)
            key = m.group(1)
            if key in out:
                sys.exit("field %s twice in one paragraph" % key)
            out[key] = m.group(2)
    return out
ps = [fields(p) for p in paras]
head = ps[0]
if head.get("Format") != "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/":
    sys.exit("the header paragraph names no DEP-5 Format")
used, texts = set(), set()
files = [p for p in ps[1:] if "Files" in p]
if not files or files[0]["Files"].strip() != "*":
    sys.exit("the first Files paragraph is not Files: *")
for p in files:
    for f in ("Copyright", "License"):
        if not p.get(f, "").strip():
            sys.exit("Files: %s has no %s" % (p["Files"].split()[0], f))
    lic = p["License"].split("\n")[0].strip()
    used.update(x.strip() for x in re.split(r"\bor\b|\band\b", lic))
    if "\n" in p["License"]:
        texts.add(lic)
for p in ps[1:]:
    if "Files" not in p:
        if "License" not in p:
            sys.exit("a paragraph with neither Files nor License")
        name, _, body = p["License"].partition("\n")
        if not body.strip():
            sys.exit("License: %s has no text" % name)
        texts.add(name.strip())
if used - texts:
    sys.exit("licences without their text: %s" % ", ".join(sorted(used - texts)))
for t in texts - used:
    if not re.search(r"License: %s\b" % re.escape(t), head.get("Comment", "") + "\n" + text.split("\n\n")[0]) \
            and t not in head.get("License", ""):
        # a stand-alone text is there for something: the header's Comment names what
        if t not in head.get("Comment", ""):
            sys.exit("License: %s is not used by any Files paragraph" % t)
print("copyright: %d Files paragraphs, licences %s" % (len(files), ", ".join(sorted(texts))))
PY
echo "ok: LICENSE Apache-2.0, SPDX lines in every tracked source, debian/copyright DEP-5"
