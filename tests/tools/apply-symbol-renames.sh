#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# apply-symbol-renames.sh - give the library's internal functions their
# isotier__ names (HACKING.md: every global symbol of libisotier-tool.a is
# isotier__* or the public isotier_*; tests/integration/symbol_names.sh).
#
# Rewrites every C source and header the checkout tracks (the probe, which
# shares no code with the library, is left alone) from the OLD -> NEW list
# below. Only a name followed by "(" (a call, a declaration, a comment's
# "judge()") is renamed, so prose that says "the judge" and file names such as
# attest_verify.c stay as they are. None of these functions is passed as a
# value; one that is fails to link under its old name, which is then renamed
# by hand.
# Idempotent: a name already renamed no longer matches (it is preceded by
# "isotier__"). Rerun it on a branch merged after the renames.
#
# usage: tests/tools/apply-symbol-renames.sh [FILE...]   (default: git ls-files)
set -euo pipefail
cd "$(dirname "$0")/../.."

# Old name, one a line; each becomes isotier__<old>.
RENAMES='
attest_binding
attest_default_roots_dir
attest_hex_bytes
attest_host
attest_judged_phrase
attest_output_clear
attest_output_parse
attest_output_verify
attest_pair_judge
attest_policy_from_env
attest_snp_appraise
attest_snp_ek_parse
attest_snp_ek_read
attest_snp_ek_tcb
attest_snp_parse
attest_snp_tcb_split
attest_snp_verify
attest_tdx_appraise
attest_tdx_pck_check
attest_tdx_qe_match
attest_tdx_qe_status
attest_tdx_signed_json
attest_tdx_tcb_status
attest_tdx_verify
attest_verify
history_db_error
history_migration
hq_exec
hq_prepare
judge
judge_ceiling_tier
judge_mechanism_kind
probe_layer_kind_name
probe_layer_tier
probe_result_clear
probe_result_parse
probe_result_vendor
probe_run_clear
probe_run_parse
probe_tier_name
probe_tier_rank
testimony_judge
testimony_judge_attested
'

if [ $# -eq 0 ]; then
	mapfile -t files < <(git ls-files '*.c' '*.h' | grep -v '^probes/')
else
	files=("$@")
fi
names=$(echo "$RENAMES" | grep -v '^$' | paste -sd'|')
# Only the files that still hold an old name are rewritten: the others keep
# their timestamps, so a rerun rebuilds nothing.
mapfile -t stale < <(grep -lP '(?<![\w./-])('"$names"')\(' -- "${files[@]}" || true)
[ "${#stale[@]}" -eq 0 ] && exit 0
perl -pi -e 's/(?<![\w.\/-])('"$names"')(?=\()/isotier__$1/g' "${stale[@]}"
