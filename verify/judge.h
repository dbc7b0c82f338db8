/*
 * judge.h - the verdict on one backend: its catalogue claim (tier +
 * mechanism) against what the probe observed inside it.
 *
 *   CONFIRMED     the innermost layer is of the claimed tier (and for a VM
 *                 mechanism the probe's VMM does not contradict it)
 *   CONSISTENT    the claimed mechanism is present but not innermost (a claimed
 *                 microVM running the workload in a container inside it)
 *   EXCEEDS       observed stronger than claimed
 *   CONTRADICTED  the claimed mechanism is absent
 *   INCONCLUSIVE  probe UNKNOWN or low confidence, no usable probe output, or
 *                 no claim that can be judged (none, or UNKNOWN)
 *   UNAVAILABLE   the backend cannot run here (decided by the caller)
 */
#ifndef ISOTIER_JUDGE_H
#define ISOTIER_JUDGE_H

#include "probe_result.h"

typedef enum judge_verdict {
	VERDICT_CONFIRMED = 0,
	VERDICT_CONSISTENT,
	VERDICT_EXCEEDS,
	VERDICT_CONTRADICTED,
	VERDICT_INCONCLUSIVE,
	VERDICT_UNAVAILABLE,
} judge_verdict;

typedef struct judge_claim {
	bool present; /* false: no catalogue entry applies */
	isotier_tier tier;
	const char *mechanism; /* catalogue vocabulary; NULL/"" when none */
} judge_claim;

#define JUDGE_REASON_MAX 512

const char *judge_verdict_name(judge_verdict v);
/* Parses a verdict name; returns 0 or ISOTIER_EINVAL. */
int judge_verdict_parse(judge_verdict *out, const char *name);

/*
 * The probe layer kind a mechanism stands for: 0 and *kind set, or
 * ISOTIER_EINVAL for mechanisms outside the four tiers (webassembly, unknown,
 * anything not in the vocabulary).
 */
int judge_mechanism_kind(probe_layer_kind *kind, const char *mechanism);

/*
 * Judges claim against probe (NULL: no usable probe output). Never returns
 * VERDICT_UNAVAILABLE. reason (>= JUDGE_REASON_MAX bytes is plenty) always
 * gets a human-readable sentence.
 */
judge_verdict judge(const judge_claim *claim, const probe_result *probe, char *reason,
                    size_t reason_len);

#endif
