#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# manpages.sh ISOTIER VERSION DIR [HEADER] - writes isotier(1), isotier-COMMAND(1) and
# isotier-probe(1) into DIR/man1 from the programs' own --help texts, so the pages cannot drift
# from what the commands say, libisotier(3) into DIR/man3 from the public header (its comments
# are the API's documentation), and isotier-reverify(8) into DIR/man8 (the scheduled job).
# --help texts are verbatim in no-fill blocks, with backslashes and leading dots escaped; what no
# --help says is written as roff in docs/man/: isotier(1)'s ENVIRONMENT (with each backend's
# settings from `isotier backends --json`), FILES and EXIT STATUS, libisotier(3)'s LINKING and
# FILES, the job's page whole. Every page's SEE ALSO names all the others.
set -euo pipefail
bin=$1 version=$2 dir=$3 header=${4:-}
src=$(cd "$(dirname "$0")/.." && pwd)/docs/man
mkdir -p "$dir/man1" "$dir/man8"
[ -z "$header" ] || mkdir -p "$dir/man3"
roff_body() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
top=$("$bin" --help)
# The command table of `isotier --help`: "  NAME  summary".
commands=$(sed -n '/^commands:/,/^$/p' <<<"$top" | sed -n 's/^  \([a-z]*\)  *\(.*\)$/\1\t\2/p')
probe=$(dirname "$bin")/isotier-probe
see=("isotier(1)")
while IFS=$'\t' read -r cmd _; do see+=("isotier-$cmd(1)"); done <<<"$commands"
[ -x "$probe" ] && see+=("isotier-probe(1)")
[ -z "$header" ] || see+=("libisotier(3)")
see+=("isotier-reverify(8)")
roff=""  # roff appended to the next page before SEE ALSO
see_also() { # see_also NAME SECTION: the SEE ALSO section naming every other page
  local others=() s
  for s in "${see[@]}"; do [ "$s" = "$1($2)" ] || others+=("$s"); done
  printf '.SH SEE ALSO\n%s\n' "$(IFS=,; sed 's/,/, /g' <<<"${others[*]}")"
}
page() { # page NAME SECTION SUMMARY TEXT [HEADING TEXT]...: more sections after DESCRIPTION
  local name=$1 sect=$2 summary=$3
  {
    printf '.TH %s %s "" "isotier %s" "isotier"\n' "$(tr a-z A-Z <<<"$name")" "$sect" "$version"
    printf '.SH NAME\n%s \\- %s\n' "$name" "$(roff_body <<<"$summary")"
    printf '.SH DESCRIPTION\n.nf\n'
    roff_body <<<"$4"
    printf '.fi\n'
    shift 4
    while [ $# -ge 2 ]; do
      printf '.SH %s\n.nf\n' "$1"
      roff_body <<<"$2"
      printf '.fi\n'
      shift 2
    done
    printf '%s' "$roff"
    see_also "$name" "$sect"
  } >"$dir/man$sect/$name.$sect"
  roff=""
}
# Each backend's settings, as the backend table declares them (its settings rows).
settings=$("$bin" backends --json | python3 -c 'import json, sys
seen = {}
for b in json.load(sys.stdin):
    for s in b.get("settings") or []:
        seen.setdefault(s["env"], (s["meaning"], [], s.get("secret")))[1].append(b["backend"])
for env, (meaning, backends, secret) in sorted(seen.items()):
    text = "%s (%s%s)" % (meaning, ", ".join(backends), "; a secret, never printed" if secret else "")
    text = text.replace("\\", "\\e").replace("-", "\\-")
    print(".TP\n.B %s\n%s" % (env.replace("_", "_"), text))')
roff="$(cat "$src/isotier.1.sections")
$settings
$(cat "$src/isotier.1.after")
"
page isotier 1 "sandbox isolation tiers as checkable claims" "$top"
# The extension points' tables, as the program holds them: report formats, backends.
extra() {
  case $1 in
    report) printf '%s\n%s\n' FORMATS "$("$bin" report --list-formats |
      awk -F'\t' '{ printf "%-6s %-5s %s\n", $1, $2, $3 }')" ;;
    history) printf '%s\n%s\n' RETENTION "$("$bin" history prune --help)" ;;
    backends) printf '%s\n%s\n' BACKENDS "$("$bin" backends --names |
      awk -F'\t' '{ printf "%-13s %-6s %s\n", $1, $2, $3 }')" ;;
  esac
}
while IFS=$'\t' read -r cmd summary; do
  mapfile -t more < <(extra "$cmd")
  if [ "${#more[@]}" -gt 1 ]; then
    page "isotier-$cmd" 1 "$summary" "$("$bin" "$cmd" --help 2>&1)" "${more[0]}" \
      "$(printf '%s\n' "${more[@]:1}")"
  else
    page "isotier-$cmd" 1 "$summary" "$("$bin" "$cmd" --help 2>&1)"
  fi
done <<<"$commands"
[ -x "$probe" ] && page isotier-probe 1 "report the isolation tier around the running process" \
  "$("$probe" --help 2>&1 || true)"
# The library: its one public header, verbatim (link with `pkg-config --libs isotier`).
roff="$(cat "$src/libisotier.3.sections")
"
[ -z "$header" ] || page libisotier 3 "create sandboxes whose isolation tier is a verified claim" \
  "#include <isotier.h>   /* cc ... \$(pkg-config --cflags --libs isotier) */

$(cat "$header")"
# The scheduled job (isotier-reverify.service's Documentation=): written whole in docs/man/.
{ sed "s/@VERSION@/$version/" "$src/isotier-reverify.8.in"; see_also isotier-reverify 8; } \
  >"$dir/man8/isotier-reverify.8"
echo "man pages: $(find "$dir" -name '*.[138]' | wc -l) in $dir"
