/* SPDX-License-Identifier: Apache-2.0 */
/* testimony.c - a remote backend's observation is testimony (testimony.h). */
#include "testimony.h"

#include <stdio.h>
#include <string.h>

bool isotier__testimony_judge(judge_result *jr, const judge_claim *claim)
{
	/* No cap for UNKNOWN (nothing trustworthy was shown: no ceiling at
	 * all); GVISOR and MICROVM are only what the provider printed. */
	if (jr->ceiling > PROBE_TIER_CONTAINER)
		jr->ceiling = PROBE_TIER_CONTAINER;
	bool favourable = jr->verdict == VERDICT_CONFIRMED || jr->verdict == VERDICT_CONSISTENT ||
	                  jr->verdict == VERDICT_EXCEEDS;
	if (!favourable || !claim || !claim->present || claim->tier <= ISOTIER_CONTAINER)
		return false;
	char seen[JUDGE_REASON_MAX];
	snprintf(seen, sizeof seen, "%s", jr->reason);
	snprintf(jr->reason, sizeof jr->reason,
	         "not contradicted, not proven: no hardware attestation; what the provider's "
	         "sandboxes showed would be %s (%.420s), but their probe output, boot_id and btime "
	         "are the provider's own testimony, which two containers on one kernel or a "
	         "replayed microVM output can give, so they prove no %s of their own",
	         isotier__verdict_name(jr->verdict), seen, isotier_tier_name(claim->tier));
	jr->verdict = VERDICT_NOT_CONTRADICTED;
	jr->unproven = false;
	return true;
}

/* Whether attested (the output a report is bound to) is judged's own
 * kernel's, and CONFIRMS the claim on its own; why not in why. */
static bool attested_is_judged(const probe_result *judged, const probe_result *attested,
                               const judge_claim *claim, const judge_kernel *kernel, int i,
                               char *why, size_t len)
{
	if (!judged || !attested) {
		snprintf(why, len, "sandbox %d: no attested output beside the judged one", i + 1);
		return false;
	}
	if (!attested->boot_id[0] || !judged->boot_id[0] || attested->btime <= 0 ||
	    judged->btime <= 0) {
		snprintf(why, len, "sandbox %d: a kernel identity (boot_id, btime) is missing",
		         i + 1);
		return false;
	}
	if (strcmp(attested->boot_id, judged->boot_id) != 0 || attested->btime != judged->btime) {
		snprintf(why, len,
		         "sandbox %d: the attested output's kernel (boot_id %.40s, btime %lld) is "
		         "not the judged run's (boot_id %.40s, btime %lld)",
		         i + 1, attested->boot_id, (long long)attested->btime, judged->boot_id,
		         (long long)judged->btime);
		return false;
	}
	judge_result own;
	isotier__judge(&own, claim, attested, kernel);
	if (own.verdict != VERDICT_CONFIRMED) {
		snprintf(why, len, "sandbox %d: the attested output itself is %s (%.200s)", i + 1,
		         isotier__verdict_name(own.verdict), own.reason);
		return false;
	}
	return true;
}

bool isotier__testimony_judge_attested(judge_result *jr, const judge_claim *claim,
                                       const judge_kernel *kernel, const attest_pair *pair,
                                       const testimony_outputs *outputs)
{
	bool above = claim && claim->present && claim->tier > ISOTIER_CONTAINER;
	jr->attested = false;
	char seen[JUDGE_REASON_MAX];
	snprintf(seen, sizeof seen, "%s", jr->reason);
	/* The reports attest the outputs they are bound to: they raise nothing
	 * unless those outputs are the ones judged, and CONFIRM on their own. */
	char unjudged[300] = "";
	if (pair && pair->outcome == ATTEST_PAIR_ATTESTED && above &&
	    claim->tier == ISOTIER_MICROVM && jr->verdict == VERDICT_CONFIRMED) {
		bool ok = outputs != NULL;
		if (!ok)
			snprintf(unjudged, sizeof unjudged, "no attested output to judge");
		for (int i = 0; ok && i < 2; i++)
			ok = attested_is_judged(outputs->judged[i], outputs->attested[i], claim,
			                        kernel, i, unjudged, sizeof unjudged);
		if (ok) {
			snprintf(jr->reason, sizeof jr->reason, "%s: %.380s; %.340s",
			         isotier__attest_judged_phrase(pair->v, 2), pair->detail, seen);
			jr->attested = true;
			return false;
		}
	}
	if (pair && pair->outcome == ATTEST_PAIR_ONE_GUEST && pair->v[0].has_guest_id &&
	    pair->v[1].has_guest_id && pair->v[0].tech == pair->v[1].tech && above) {
		snprintf(jr->reason, sizeof jr->reason,
		         "attested one guest for two sandboxes: %.400s; so no %s of their own "
		         "(%.200s)",
		         pair->detail, isotier_tier_name(claim->tier), seen);
		jr->verdict = VERDICT_CONTRADICTED;
		if (jr->ceiling > PROBE_TIER_CONTAINER)
			jr->ceiling = PROBE_TIER_CONTAINER;
		jr->unproven = false;
		return true;
	}
	bool changed = isotier__testimony_judge(jr, claim);
	size_t n = strlen(jr->reason);
	if (unjudged[0] && n + 3 < sizeof jr->reason)
		snprintf(jr->reason + n, sizeof jr->reason - n,
		         "; not attested: the reports are bound to outputs that are not the ones "
		         "judged (%s)",
		         unjudged);
	else if (pair && pair->detail[0] && n + 3 < sizeof jr->reason)
		snprintf(jr->reason + n, sizeof jr->reason - n, "; %s", pair->detail);
	/* The catalogue documents attestation for this offering and none came:
	 * offered, not given (the provider's own documentation, unmet). */
	n = strlen(jr->reason);
	if (claim && claim->attestation && pair && pair->outcome == ATTEST_PAIR_NONE &&
	    n + 3 < sizeof jr->reason)
		snprintf(jr->reason + n, sizeof jr->reason - n,
		         "; the catalogue documents %s attestation for this offering, but its "
		         "sandboxes gave none",
		         claim->attestation);
	return changed;
}
