#!/usr/bin/env bash
# manpages.sh ISOTIER VERSION DIR - writes isotier(1) and isotier-COMMAND(1)
# into DIR from the programs' own --help texts, so the pages cannot drift from
# what the commands say. Plain roff: every help line verbatim in a no-fill
# block, with backslashes and leading dots escaped.
set -euo pipefail
bin=$1 version=$2 dir=$3
mkdir -p "$dir"
roff_body() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
page() { # page NAME SUMMARY HELP-TEXT
  local name=$1 summary=$2
  {
    printf '.TH %s 1 "" "isotier %s" "isotier"\n' "$(tr a-z A-Z <<<"$name")" "$version"
    printf '.SH NAME\n%s \\- %s\n' "$name" "$(roff_body <<<"$summary")"
    printf '.SH DESCRIPTION\n.nf\n'
    roff_body <<<"$3"
    printf '.fi\n.SH SEE ALSO\nisotier(1), isotier-probe(1)\n'
  } >"$dir/$name.1"
}
top=$("$bin" --help)
page isotier "sandbox isolation tiers as checkable claims" "$top"
# The command table of `isotier --help`: "  NAME  summary".
sed -n '/^commands:/,/^$/p' <<<"$top" | sed -n 's/^  \([a-z]*\)  *\(.*\)$/\1\t\2/p' |
  while IFS=$'\t' read -r cmd summary; do
    page "isotier-$cmd" "$summary" "$("$bin" "$cmd" --help 2>&1)"
  done
probe=$(dirname "$bin")/isotier-probe
[ -x "$probe" ] && page isotier-probe "report the isolation tier around the running process" "$("$probe" --help 2>&1 || true)"
echo "man pages: $(ls "$dir" | wc -l) in $dir"
