#!/usr/bin/env bash
# The layers of HACKING.md hold: include/ < base/ < catalogue/ < reference/ <
# verify/, the CLI through reference/isotier_tool.h only, the probe on its
# own; no include or call cycle between folders or files (tests/tools/layers.py).
# Then the check must catch a planted violation of each kind.
. "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
compile_probes() { # SRC_ROOT OUT: one object per probe file, as the static probe is built
  mkdir -p "$2"
  for f in "$1"/probes/*.c; do
    cc -std=gnu11 -D_GNU_SOURCE -Os -c -o "$2/$(basename "${f%.c}").o" "$f" || fail "compile $f"
  done
}
compile_probes "$R" "$TMP/probe-obj"
python3 "$R/tests/tools/layers.py" "$R" "$BUILD" "$TMP/probe-obj" >"$TMP/out" 2>&1 \
  || fail "layers: $(cat "$TMP/out")"
tail -1 "$TMP/out"

# Planted violations, in a copy of the tree (objects copied, one rebuilt).
copy=$TMP/tree
mkdir -p "$copy"
(cd "$R" && cp -r include base catalogue reference verify probes "$copy/")
mkdir -p "$copy/$BUILD" && cp -r "$R/$BUILD/obj" "$copy/$BUILD/"
# 1. the CLI reaching past the tool header; 2. the base including the library;
# 3. an include through -I; 4. a base file calling the library.
echo '#include "../reference/history.h"' >>"$copy/verify/cmd_run.c"
echo '#include "../reference/proc.h"' >>"$copy/base/tier.c"
echo '#include "backend.h"' >>"$copy/catalogue/lookup.c"
cat >>"$copy/base/tier.c" <<'C'
int64_t isotier_now_ms(void);
int64_t isotier_layers_planted(void) { return isotier_now_ms(); }
C
cc -std=gnu11 -D_GNU_SOURCE -I"$copy/include" -I"$copy/base" -I"$copy/reference" $(pkg-config --cflags libcjson) \
  -c -o "$copy/$BUILD/obj/base/tier.o" "$copy/base/tier.c" || fail "compile the planted tier.c"
compile_probes "$copy" "$TMP/probe-obj2"
# 5. a probe file calling back into the one that calls it (input.c <-> live.c).
printf 'struct probe_input;\nvoid probe_input_free(struct probe_input *);\nvoid probe_layers_planted(void) { probe_input_free(0); }\n' >"$TMP/planted.c"
cat "$copy/probes/live.c" "$TMP/planted.c" >"$TMP/live.c"
grep -q 'probe_live_' "$copy/probes/input.c" || fail "input.c no longer calls live.c: plant another cycle"
cc -std=gnu11 -D_GNU_SOURCE -Os -I"$copy/probes" -c -o "$TMP/probe-obj2/live.o" "$TMP/live.c" || fail "compile planted live.c"
if python3 "$R/tests/tools/layers.py" "$copy" "$BUILD" "$TMP/probe-obj2" >"$TMP/bad" 2>&1; then
  fail "planted violations passed: $(cat "$TMP/bad")"
fi
out=$(cat "$TMP/bad")
assert_contains "$out" "verify/cmd_run.c: the CLI includes reference/history.h"
assert_contains "$out" "base/tier.c (base) includes reference/proc.h from the higher layer reference"
assert_contains "$out" 'catalogue/lookup.c: #include "backend.h" does not name its folder'
assert_contains "$out" "base/tier.c (base) calls reference/proc.c in the higher layer reference"
assert_contains "$out" "call cycle between files: probes/input.c, probes/live.c"
echo "ok: layers hold, and each planted violation is caught"
