#!/usr/bin/env bash
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
page() { # page NAME SECTION SUMMARY TEXT
  local name=$1 sect=$2 summary=$3 others=()
  for s in "${see[@]}"; do [ "$s" = "$name($sect)" ] || others+=("$s"); done
  {
    printf '.TH %s %s "" "isotier %s" "isotier"\n' "$(tr a-z A-Z <<<"$name")" "$sect" "$version"
    printf '.SH NAME\n%s \\- %s\n' "$name" "$(roff_body <<<"$summary")"
    printf '.SH DESCRIPTION\n.nf\n'
    roff_body <<<"$4"
    printf '.fi\n.SH SEE ALSO\n%s\n' "$(IFS=,; sed 's/,/, /g' <<<"${others[*]}")"
  } >"$dir/man$sect/$name.$sect"
}
page isotier 1 "sandbox isolation tiers as checkable claims" "$top"
while IFS=$'\t' read -r cmd summary; do
  page "isotier-$cmd" 1 "$summary" "$("$bin" "$cmd" --help 2>&1)"
done <<<"$commands"
[ -x "$probe" ] && page isotier-probe 1 "report the isolation tier around the running process" \
  "$("$probe" --help 2>&1 || true)"
# The library: its one public header, verbatim (link with `pkg-config --libs isotier`).
[ -z "$header" ] || page libisotier 3 "create sandboxes whose isolation tier is a verified claim" \
  "#include <isotier.h>   /* cc ... \$(pkg-config --cflags --libs isotier) */

$(cat "$header")"
echo "man pages: $(find "$dir" -name '*.[13]' | wc -l) in $dir"
