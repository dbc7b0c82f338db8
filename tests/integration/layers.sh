#!/usr/bin/env bash
# isotier-test: slow
# SPDX-License-Identifier: Apache-2.0
# The layers of HACKING.md hold: include/ < base/ < catalogue/ < reference/ <
# verify/, and inside reference/ its concerns core/ < evidence/ < history/ <
# backends/ < attestation/ < observation/ < api/; the CLI through
# reference/api/isotier_tool.h only, the probe on its own; no include or call cycle between folders or files; and the seam by
# symbol: every library function the CLI, a test tool, the bench program or
# the example calls is declared in a header it may use (tests/tools/layers.py).
# Then the check must catch a planted violation of each kind.
. "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
compile_probes() { # SRC_ROOT OUT: one object per probe file, as the static probe is built
  mkdir -p "$2"
  for f in "$1"/probes/*.c; do
    cc -std=gnu11 -D_GNU_SOURCE -Os -c -o "$2/$(basename "${f%.c}").o" "$f" || fail "compile $f"
  done
}
# The programs outside the library that link it, one object each (named by its source), as the
# Makefile builds them.
compile_tools() { # SRC_ROOT OUT
  local f rel
  for f in "$1"/tests/tools/*.c "$1"/bench/*.c "$1"/reference/examples/*.c; do
    [ -e "$f" ] || continue
    rel=${f#"$1"/}
    mkdir -p "$2/$(dirname "$rel")"
    # shellcheck disable=SC2046 # pkg-config prints several flags
    cc -std=gnu11 -D_GNU_SOURCE -I"$1/include" -I"$1/base" -I"$1/reference" $(pkg-config --cflags libcurl libcjson sqlite3) \
      -c -o "$2/${rel%.c}.o" "$f" || fail "compile $f"
  done
}
compile_probes "$R" "$TMP/probe-obj"
compile_tools "$R" "$TMP/tool-obj"
python3 "$R/tests/tools/layers.py" "$R" "$BUILD" "$TMP/probe-obj" "$TMP/tool-obj" >"$TMP/out" 2>&1 \
  || fail "layers: $(cat "$TMP/out")"
tail -1 "$TMP/out"

# Planted violations, in a copy of the tree (objects copied, one rebuilt).
copy=$TMP/tree
mkdir -p "$copy"
(cd "$R" && cp -r include base catalogue reference verify probes "$copy/")
mkdir -p "$copy/$BUILD" && cp -r "$R/$BUILD/obj" "$copy/$BUILD/"
# 1. the CLI reaching past the tool header; 2. the base including the library;
# 3. an include through -I; 4. a base file calling the library; 8. an evidence file including
# observation's header and calling the backends' registry; 9. a file of reference/ in no concern.
echo '#include "../../reference/history/history.h"' >>"$copy/verify/cmd/cmd_run.c"
echo '#include "../reference/core/proc.h"' >>"$copy/base/tier.c"
echo '#include "backend.h"' >>"$copy/catalogue/lookup.c"
cat >>"$copy/base/tier.c" <<'C'
int64_t isotier__now_ms(void);
int64_t isotier_layers_planted(void) { return isotier__now_ms(); }
C
# shellcheck disable=SC2046 # pkg-config prints several flags
cc -std=gnu11 -D_GNU_SOURCE -I"$copy/include" -I"$copy/base" -I"$copy/reference" $(pkg-config --cflags libcjson) \
  -c -o "$copy/$BUILD/obj/base/tier.o" "$copy/base/tier.c" || fail "compile the planted tier.c"
# 8. between two concerns of reference/: evidence below observation and backends.
echo '#include "../observation/observe.h"' >>"$copy/reference/evidence/kernel_id.c"
cat >>"$copy/reference/evidence/kernel_id.c" <<'C'
const isotier_backend *isotier_layers_planted_concern(void) { return isotier__backend_lookup("bwrap"); }
C
# shellcheck disable=SC2046 # pkg-config prints several flags
cc -std=gnu11 -D_GNU_SOURCE -I"$copy/include" -I"$copy/base" -I"$copy/reference" $(pkg-config --cflags libcjson) \
  -c -o "$copy/$BUILD/obj/reference/evidence/kernel_id.o" "$copy/reference/evidence/kernel_id.c" ||
  fail "compile the planted kernel_id.c"
# 9. a header straight in reference/ that names no concern.
printf '/* planted */\n' >"$copy/reference/planted.h"
# The copy's probe files are the tree's until one is planted below: their objects are the tree's.
cp -r "$TMP/probe-obj" "$TMP/probe-obj2"
# 5. a probe file calling back into the one that calls it (input.c <-> live.c).
printf 'struct probe_input;\nvoid probe_input_free(struct probe_input *);\nvoid probe_layers_planted(void) { probe_input_free(0); }\n' >"$TMP/planted.c"
cat "$copy/probes/live.c" "$TMP/planted.c" >"$TMP/live.c"
grep -q 'probe_live_' "$copy/probes/input.c" || fail "input.c no longer calls live.c: plant another cycle"
cc -std=gnu11 -D_GNU_SOURCE -Os -I"$copy/probes" -c -o "$TMP/probe-obj2/live.o" "$TMP/live.c" || fail "compile planted live.c"
# 6. the CLI calling an internal function through a prototype of its own, not a header it may
# use (isotier__audit_emit: reference/core/telemetry.h, which the tool header does not include).
! grep -rq "telemetry.h" "$copy/reference/api/isotier_tool.h" || fail "the tool header includes telemetry.h: plant another function"
cat >>"$copy/verify/cmd/cmd_run.c" <<'C'
int isotier__audit_emit(void *t, const void *ev, isotier_error *err);
int cli_layers_planted(void) { return isotier__audit_emit(0, 0, 0); }
C
# shellcheck disable=SC2046 # pkg-config prints several flags
cc -std=gnu11 -D_GNU_SOURCE -I"$copy/include" -I"$copy/base" -I"$copy/reference" \
  $(pkg-config --cflags libcurl libcjson sqlite3 libpq libxml-2.0 libgit2) \
  -c -o "$copy/$BUILD/obj/verify/cmd/cmd_run.o" "$copy/verify/cmd/cmd_run.c" 2>"$TMP/cc.err" || fail "compile the planted cmd_run.c: $(cat "$TMP/cc.err")"
# 7. a test tool of the public API calling what only the tool header declares.
cp -r "$TMP/tool-obj" "$TMP/tool-obj2"
printf '#include "backends/backend.h"\nconst void *tool_planted(void) { return isotier__backend_lookup("bwrap"); }\n' >"$TMP/planted.c"
cc -std=gnu11 -D_GNU_SOURCE -I"$copy/include" -I"$copy/reference" -I"$copy/base" -c -o "$TMP/tool-obj2/tests/tools/planted.o" "$TMP/planted.c" ||
  fail "compile the planted tool"
if python3 "$R/tests/tools/layers.py" "$copy" "$BUILD" "$TMP/probe-obj2" "$TMP/tool-obj2" >"$TMP/bad" 2>&1; then
  fail "planted violations passed: $(cat "$TMP/bad")"
fi
out=$(cat "$TMP/bad")
assert_contains "$out" "verify/cmd/cmd_run.c: the CLI includes reference/history/history.h"
assert_contains "$out" "base/tier.c (base) includes reference/core/proc.h from the higher layer reference/core"
assert_contains "$out" 'catalogue/lookup.c: #include "backend.h" does not name its folder'
assert_contains "$out" "base/tier.c (base) calls reference/core/proc.c in the higher layer reference/core"
assert_contains "$out" "reference/evidence/kernel_id.c (reference/evidence) includes reference/observation/observe.h from the higher layer reference/observation"
assert_contains "$out" "reference/evidence/kernel_id.c (reference/evidence) calls reference/backends/backends.c in the higher layer reference/backends"
assert_contains "$out" "reference/planted.h: in no concern of reference/"
assert_contains "$out" "call cycle between files: probes/input.c, probes/live.c"
assert_contains "$out" "verify/cmd/cmd_run.c calls isotier__audit_emit (reference/history/audit.c), declared in no header it may use"
assert_contains "$out" "tests/tools/planted.c calls isotier__backend_lookup (reference/backends/backends.c), declared in no header it may use (include/isotier.h and"
echo "ok: layers hold, and each planted violation is caught"
