#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# manpages.sh ISOTIER VERSION DIR [HEADER] - writes isotier(1), isotier-COMMAND(1) and
# isotier-probe(1) into DIR/man1 from the programs' own --help texts, so the pages cannot drift
# from what the commands say, and libisotier(3) into DIR/man3 from the public header (its
# comments are the API's documentation). Plain roff: every line verbatim in a no-fill block,
# with backslashes and leading dots escaped. Every page's SEE ALSO names all the others.
set -euo pipefail
bin=$1 version=$2 dir=$3 header=${4:-}
mkdir -p "$dir/man1"
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
page() { # page NAME SECTION SUMMARY TEXT [HEADING TEXT]...: more sections after DESCRIPTION
  local name=$1 sect=$2 summary=$3 others=()
  for s in "${see[@]}"; do [ "$s" = "$name($sect)" ] || others+=("$s"); done
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
    printf '.SH SEE ALSO\n%s\n' "$(IFS=,; sed 's/,/, /g' <<<"${others[*]}")"
  } >"$dir/man$sect/$name.$sect"
}
page isotier 1 "sandbox isolation tiers as checkable claims" "$top"
# The extension points' tables, as the program holds them: report formats, backends.
extra() {
  case $1 in
    report) printf '%s\n%s\n' FORMATS "$("$bin" report --list-formats |
      awk -F'\t' '{ printf "%-6s %-5s %s\n", $1, $2, $3 }')" ;;
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
[ -z "$header" ] || page libisotier 3 "create sandboxes whose isolation tier is a verified claim" \
  "#include <isotier.h>   /* cc ... \$(pkg-config --cflags --libs isotier) */

$(cat "$header")"
echo "man pages: $(find "$dir" -name '*.[13]' | wc -l) in $dir"
