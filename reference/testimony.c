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
