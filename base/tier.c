/* SPDX-License-Identifier: Apache-2.0 */
/* tier.c - tier names and the rank of ADR-0018. */
#include "base.h"

#include <strings.h>

static const char *const tier_names[] = {
    [ISOTIER_UNKNOWN] = "UNKNOWN",
    [ISOTIER_CONTAINER] = "CONTAINER",
    [ISOTIER_GVISOR] = "GVISOR",
    [ISOTIER_MICROVM] = "MICROVM",
};

const char *isotier_tier_name(isotier_tier tier)
{
	if ((unsigned)tier >= sizeof tier_names / sizeof tier_names[0])
		return "UNKNOWN";
	return tier_names[tier];
}

int isotier_tier_parse(isotier_tier *out, const char *name)
{
	if (!out || !name)
		return ISOTIER_EINVAL;
	for (unsigned i = 0; i < sizeof tier_names / sizeof tier_names[0]; i++) {
		if (strcasecmp(name, tier_names[i]) == 0) {
			*out = (isotier_tier)i;
			return 0;
		}
	}
	return ISOTIER_EINVAL;
}

bool isotier_tier_satisfies(isotier_tier have, isotier_tier required)
{
	if (required == ISOTIER_UNKNOWN)
		return true; /* no requirement */
	if (have == ISOTIER_UNKNOWN)
		return false; /* an unearned claim satisfies nothing */
	return (int)have >= (int)required;
}
