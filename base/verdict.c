/* SPDX-License-Identifier: Apache-2.0 */
/* verdict.c - the verdict table (verdict.h). */
#include "verdict.h"

#include "isotier.h"

#include <strings.h>

const isotier_verdict_row isotier__verdicts[VERDICT_COUNT] = {
    {VERDICT_CONFIRMED, "CONFIRMED",
     VERDICT_JUDGES | VERDICT_PROVES | VERDICT_ATTESTS | VERDICT_CHECKS,
     "the sandbox's own innermost boundary is of the claimed tier"},
    {VERDICT_CONSISTENT, "CONSISTENT",
     VERDICT_JUDGES | VERDICT_PROVES | VERDICT_ATTESTS | VERDICT_CHECKS,
     "the claimed mechanism is present and proven the sandbox's own, not innermost"},
    {VERDICT_EXCEEDS, "EXCEEDS", VERDICT_JUDGES | VERDICT_ATTESTS | VERDICT_CHECKS,
     "the sandbox's own boundary is stronger than claimed"},
    /* Everything a remote provider's sandbox shows is the provider's own
     * testimony (reference/attestation/testimony.h): it can refute a claim, never prove
     * one. Not a judgement either (see VERDICT_JUDGES). */
    {VERDICT_NOT_CONTRADICTED, "NOT_CONTRADICTED", VERDICT_CHECKS,
     "not contradicted, not proven: a remote provider's evidence is its own testimony (no "
     "hardware attestation)"},
    {VERDICT_CONTRADICTED, "CONTRADICTED", VERDICT_JUDGES | VERDICT_AGAINST | VERDICT_CHECKS,
     "the claimed mechanism is absent, or the VM it rests on is the host's"},
    {VERDICT_INCONCLUSIVE, "INCONCLUSIVE", 0,
     "nothing the observation shows can be defended: the claim is neither backed nor refuted"},
    {VERDICT_UNAVAILABLE, "UNAVAILABLE", 0, "the backend cannot run here"},
};

const char *isotier__verdict_name(isotier_verdict v)
{
	return (unsigned)v < VERDICT_COUNT ? isotier__verdicts[v].name : "?";
}

int isotier__verdict_parse(isotier_verdict *out, const char *name)
{
	for (size_t i = 0; name && i < VERDICT_COUNT; i++)
		if (!strcasecmp(name, isotier__verdicts[i].name)) {
			*out = isotier__verdicts[i].verdict;
			return 0;
		}
	return ISOTIER_EINVAL;
}

bool isotier__verdict_is(isotier_verdict v, unsigned flags)
{
	return (unsigned)v < VERDICT_COUNT && (isotier__verdicts[v].flags & flags) == flags;
}
