/* testimony.c - a remote backend's observation is testimony (testimony.h). */
#include "testimony.h"

#include <stdio.h>
#include <string.h>

bool testimony_judge(judge_result *jr, const judge_claim *claim)
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
	         isotier_verdict_name(jr->verdict), seen, isotier_tier_name(claim->tier));
	jr->verdict = VERDICT_NOT_CONTRADICTED;
	jr->unproven = false;
	return true;
}

bool testimony_judge_attested(judge_result *jr, const judge_claim *claim, const attest_pair *pair)
{
	bool above = claim && claim->present && claim->tier > ISOTIER_CONTAINER;
	char seen[JUDGE_REASON_MAX];
	snprintf(seen, sizeof seen, "%s", jr->reason);
	if (pair && pair->outcome == ATTEST_PAIR_ATTESTED && above &&
	    claim->tier == ISOTIER_MICROVM && jr->verdict == VERDICT_CONFIRMED) {
		snprintf(jr->reason, sizeof jr->reason, "attested: %.380s; %.370s", pair->detail,
		         seen);
		return false;
	}
	if (pair && pair->outcome == ATTEST_PAIR_ONE_GUEST && pair->v[0].has_guest_id && above) {
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
	bool changed = testimony_judge(jr, claim);
	size_t n = strlen(jr->reason);
	if (pair && pair->detail[0] && n + 3 < sizeof jr->reason)
		snprintf(jr->reason + n, sizeof jr->reason - n, "; %s", pair->detail);
	return changed;
}
