#!/usr/bin/env bash
# isotier-test: fast
# SPDX-License-Identifier: Apache-2.0
# cli_help.sh - a CLI that helps: `isotier help CMD`, a complete --help for
# every command, the usage on an unknown option, "did you mean" for commands,
# options, subcommands, backends, verdicts and provider ids, --version;
# `history` filters, run column, 100-column fit and --wide, `history show ID`,
# `history --sources`, unknown backends as usage errors; `isotier-probe --tier`
# and `--quiet`.
source "$ISOTIER_ROOT/tests/lib.sh"
R=$ISOTIER_ROOT
BIN=$ISOTIER_BIN
PROBE=$ISOTIER_PROBE
FIX=$R/tests/fixtures/report
[ -x "$BIN" ] || fail "no $BIN (build first)"
[ -x "$PROBE" ] || fail "no $PROBE (build first)"
set +e
run() { "$@" >"$TMP/out" 2>"$TMP/err"; echo $? >"$TMP/rc"; }
rc() { cat "$TMP/rc"; }
out() { cat "$TMP/out"; }
err() { cat "$TMP/err"; }

# --- top level ---------------------------------------------------------------
run "$BIN" --version; assert_eq "$(rc)" 0 "--version"
assert_eq "$(out)" "isotier $(sed -n 's/^#define ISOTIER_VERSION[[:space:]]*"\(.*\)"/\1/p' "$R/include/isotier.h")" "--version output"
run "$BIN" --help; assert_contains "$(out)" "--version" "--version listed in --help"
assert_contains "$(out)" "isotier help COMMAND"
run "$BIN" histroy; assert_eq "$(rc)" 64 "unknown command"
assert_contains "$(err)" "unknown command 'histroy' (did you mean 'history'?)"
run "$BIN" help nosuch; assert_eq "$(rc)" 64 "help for an unknown command"

# --- every command: help CMD = CMD --help, complete, and usage on a bad option -
for cmd in verify history catalogue sources backends run churn report; do
  run "$BIN" help $cmd; assert_eq "$(rc)" 0 "help $cmd"
  help=$(out)
  run "$BIN" $cmd --help; assert_eq "$(rc)" 0 "$cmd --help"
  assert_eq "$(out)" "$help" "help $cmd and $cmd --help differ"
  assert_contains "$help" "usage: isotier $cmd" "$cmd help has its usage"
  [ "$(grep -c -- '^ *--' <<<"$help")" -ge 2 ] || [ $cmd = catalogue ] || [ $cmd = sources ] ||
    fail "$cmd --help does not describe its options: $help"
  [ "$(wc -l <<<"$help")" -ge 5 ] || fail "$cmd --help is too short to be complete: $help"
  # Its options come from its table (cli_options.h prints "--help  this text" last), and every
  # option its synopsis names is described there.
  grep -q -- '^  --help  *this text$' <<<"$help" || fail "$cmd --help is not its option table's"
  for o in $(sed -n '1,/^$/p' <<<"$help" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "^  $o\\b" <<<"$help" || fail "$cmd --help: $o is in the synopsis, not described"
  done
done
for sub in "catalogue check" "sources check"; do
  run "$BIN" help $sub; assert_eq "$(rc)" 0 "help $sub"
  [ "$(grep -c -- '^ *--' <<<"$(out)")" -ge 2 ] || fail "$sub --help does not describe its options: $(out)"
done
# An unknown option: named, with the closest one, then the usage; exit 64.
for c in "verify --bakend x:--backend" "history --limt 3:--limit" "backends --jsno:--json" \
         "report --formt md:--format" "churn --sinec HEAD:--since" "run --hlp:--help" \
         "catalogue check --jsn:--json" "sources check --jbos 2:--jobs"; do
  args=${c%%:*} want=${c##*:}
  # shellcheck disable=SC2086 # words on purpose
  run "$BIN" $args
  assert_eq "$(rc)" 64 "$args"
  assert_contains "$(err)" "(did you mean '$want'?)" "$args"
  assert_contains "$(err)" "usage: isotier" "$args prints the usage"
done
run "$BIN" catalogue chek; assert_contains "$(err)" "unknown subcommand 'chek' (did you mean 'check'?)"
run "$BIN" verify --backend bwarp --db "$TMP/v.db"; assert_eq "$(rc)" 64 "verify an unknown backend"
assert_contains "$(err)" "unknown backend 'bwarp' (did you mean 'bwrap'?)"
run "$BIN" sources check --provider e2c --db "$TMP/s.db"; assert_eq "$(rc)" 64 "an unknown provider id"
assert_contains "$(err)" "no provider 'e2c'"
assert_contains "$(err)" "(did you mean 'e2b'?)"
# No error ends in ": " with nothing after.
! grep -q ': $' "$TMP/err" || fail "an error ends in ': ': $(err)"

# `history --help` builds its verdict words from the verdict table (base/verdict.c), as the
# refusal of an unknown word does: the two must agree.
run "$BIN" history --db "$TMP/none.db" --verdict zzzzzzzzzz; assert_eq "$(rc)" 64 "an unknown verdict"
table=$(sed -n "s/.*no verdict 'zzzzzzzzzz' (\(.*\)).*/\1/p" "$TMP/err" | tr -c 'A-Z_\n' ' ' | tr -s ' ' '\n' | grep -v '^$' | sort | tr '\n' ' ')
[ "$(wc -w <<<"$table")" -ge 7 ] || fail "no verdict list in: $(err)"
run "$BIN" history --help
helped=$(sed -n '/^  --verdict WORD/,/^  --run/p' "$TMP/out" | sed '$d' | sed 's/.*only this verdict://' | tr -c 'A-Z_\n' ' ' | tr -s ' ' '\n' | grep -v '^$' | sort | tr '\n' ' ')
assert_eq "$helped" "$table" "history --help's verdicts and the verdict table"

# --- history ---------------------------------------------------------------------
# shellcheck disable=SC2046 # pkg-config prints several flags
cc -std=gnu11 -D_GNU_SOURCE -I"$R/include" -I"$R/reference" -o "$TMP/mkdb" "$FIX/mkdb.c" \
  "$R/$BUILD/libisotier-tool.a" $(pkg-config --libs libcurl libxml-2.0 libcjson sqlite3 libpq libcrypto libgit2) -lpthread -lm
"$TMP/mkdb" "$TMP/h.db" </dev/null && python3 "$FIX/fill.py" "$TMP/h.db"
db=(--db "$TMP/h.db")
run "$BIN" history "${db[@]}"; assert_eq "$(rc)" 0 "history"
head -1 "$TMP/out" | grep -q '^ID  *TIME  *RUN  *BACKEND  *CLAIMED  *OBSERVED  *VERDICT  *REASON$' || fail "header: $(head -1 "$TMP/out")"
awk 'length($0) > 100 { exit 1 }' "$TMP/out" || fail "a line is wider than 100 columns: $(awk 'length($0) > 100' "$TMP/out" | head -2)"
assert_eq "$(wc -l <"$TMP/out")" 6 "five observations and a header"
assert_contains "$(out)" "~" "long reasons are cut, visibly"
! grep -q $'\x1b' "$TMP/out" || fail "a terminal escape reached the table"
run "$BIN" history "${db[@]}" --wide; assert_eq "$(rc)" 0 "--wide"
assert_contains "$(out)" "a verdict word this build does not know" "--wide shows the reason in full"
head -1 "$TMP/out" | grep -q 'PROVIDER.*HOST.*ISOTIER.*CATALOGUE' || fail "--wide header: $(head -1 "$TMP/out")"
run "$BIN" history "${db[@]}" --verdict contradicted; assert_eq "$(rc)" 0 "--verdict"
assert_eq "$(awk 'NR > 1 { print $1 }' "$TMP/out")" "3" "--verdict CONTRADICTED: observation 3"
run "$BIN" history "${db[@]}" --run 1; assert_eq "$(awk 'NR > 1 { print $1 }' "$TMP/out" | tr '\n' ' ')" "2 1 " "--run 1"
assert_eq "$(awk 'NR > 1 { print $3 }' "$TMP/out" | sort -u)" "1" "the RUN column"
run "$BIN" history "${db[@]}" --until 2026-11-20; assert_eq "$(awk 'NR > 1 { print $1 }' "$TMP/out" | tr '\n' ' ')" "2 1 " "--until a day includes it"
run "$BIN" history "${db[@]}" --since 2026-11-27T08:00:02Z; assert_eq "$(awk 'NR > 1 { print $1 }' "$TMP/out" | tr '\n' ' ')" "5 4 " "--since"
run "$BIN" history "${db[@]}" --limit 1; assert_eq "$(wc -l <"$TMP/out")" 2 "--limit 1"
run "$BIN" history "${db[@]}" --since 2030-01-01; assert_eq "$(out)" "(no observations match)" "nothing matched"
run "$BIN" history "${db[@]}" --verdict confirmd; assert_eq "$(rc)" 64 "an unknown verdict"
assert_contains "$(err)" "(did you mean 'CONFIRMED'?)"
run "$BIN" history "${db[@]}" --backend bwarp; assert_eq "$(rc)" 64 "an unknown backend is a usage error"
assert_contains "$(err)" "no backend 'bwarp' (did you mean 'bwrap'?)"
run "$BIN" history "${db[@]}" --backend runc; assert_eq "$(rc)" 0 "a known backend never observed"
assert_eq "$(out)" "(no observations match)"
run "$BIN" history "${db[@]}" --since yesterday; assert_eq "$(rc)" 64 "--since yesterday"
# history show ID: provenance and evidence, terminal-safe.
run "$BIN" history show 3 "${db[@]}"; assert_eq "$(rc)" 0 "history show 3"
assert_contains "$(out)" "observation 3 (run 2)"
assert_contains "$(out)" "run          \`verify\`, ok; isotier 0.1.0; catalogue abc; host not recorded"
assert_contains "$(out)" "layer 1 (outermost first): vm firecracker / kvm"
assert_contains "$(out)" "virt.cpuid_vendor (virt, strong) from cpuid 0x40000000: KVMKVMKVM -> vm"
assert_contains "$(out)" "conflict: "
! grep -q $'\x1b' "$TMP/out" || fail "a terminal escape reached history show"
run "$BIN" history show 3 --json "${db[@]}"; assert_eq "$(rc)" 0 "history show --json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["id"] == 3 and d["verdict"] == "CONTRADICTED" and d["probe"]["schema"] == "isotier.probe/1", d' "$TMP/out" || fail "show --json"
run "$BIN" history show 99 "${db[@]}"; assert_eq "$(rc)" 66 "no such observation"
run "$BIN" history show x "${db[@]}"; assert_eq "$(rc)" 64 "a non-number id"
run "$BIN" history show; assert_eq "$(rc)" 64 "show without an id"
# history --sources
run "$BIN" history --sources "${db[@]}"; assert_eq "$(rc)" 0 "--sources"
assert_eq "$(awk 'NR > 1 { print $4 "=" $5 }' "$TMP/out" | tr '\n' ' ')" "qemu-microvm=UNREACHABLE runsc=GONE ember=CHANGED bubblewrap=PRESENT " "--sources rows"
awk 'length($0) > 100 { exit 1 }' "$TMP/out" || fail "--sources wider than 100 columns"
run "$BIN" history --sources --provider ember --json "${db[@]}"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [c["status"] for c in d["source_checks"]] == ["CHANGED"], d' "$TMP/out" || fail "--sources --json"
run "$BIN" history --sources --verdict CONFIRMED "${db[@]}"; assert_eq "$(rc)" 64 "--sources with --verdict"

# --- isotier-probe --tier / --quiet ------------------------------------------------
PF=$R/tests/fixtures/probe
for c in real-runsc-ptrace:GVISOR:0 real-bwrap:CONTAINER:0 real-firecracker-native:MICROVM:0 \
         syn-bare-host:NONE:1 syn-empty:UNKNOWN:2; do
  IFS=: read -r fx word code <<<"$c"
  run "$PROBE" --tier --root "$PF/$fx"
  assert_eq "$(out)" "$word" "--tier on $fx"
  assert_eq "$(rc)" "$code" "--tier exit on $fx"
  run "$PROBE" --quiet --root "$PF/$fx"
  assert_eq "$(out)" "" "--quiet prints nothing ($fx)"
  assert_eq "$(rc)" "$code" "--quiet exit on $fx"
done
run "$PROBE" --tier --json; assert_eq "$(rc)" 64 "--tier with --json"
run "$PROBE" --help; assert_contains "$(out)" "--tier"
# --list-signals prints the table SIGNALS.md holds (test_probe_classify checks the writer).
run "$PROBE" --list-signals; assert_eq "$(rc)" 0 "--list-signals"
assert_eq "$(out)" "$(sed -n '/signal-table:begin/,/signal-table:end/p' "$R/probes/SIGNALS.md" | sed '1d;$d')" \
  "--list-signals and SIGNALS.md's table"
assert_contains "$(out)" '| `virt.attestation` |' "--list-signals lists the attestation status"
echo "cli: help everywhere, suggestions, history filters/show/sources, probe --tier/--quiet/--list-signals"
