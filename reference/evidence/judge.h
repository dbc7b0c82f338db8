/* SPDX-License-Identifier: Apache-2.0 */
/*
 * judge.h - the verdict on one backend: its catalogue claim (tier +
 * mechanism) against what the probe observed inside it, and how the
 * sandbox's kernel relates to the host's (kernel_id.h).
 *
 * A vm layer counts as the sandbox's own boundary only when its kernel is
 * shown to be its own (DEDICATED, or SELF for a backend that observes the host
 * itself) and, for a local sandbox, the host saw a VMM run it; a gvisor layer
 * only when the host saw runsc run it and none of its own kernel inside. A
 * claimed VMM must be named by the probe exactly: an unnamed or unknown VMM
 * confirms no VMM. A vm layer around a sandbox that runs on the host's kernel is the
 * host's VM, shared by everything on it; one whose kernel could not be
 * compared proves nothing. Under gVisor the kernel identity is the Sentry's
 * own and says nothing about a VM outside it.
 *
 *   CONFIRMED     the sandbox's own innermost boundary is of the claimed tier
 *                 (and for a VM mechanism the probe's VMM does not contradict it)
 *   CONSISTENT    the claimed mechanism is present but not innermost, and proven
 *                 the sandbox's own: a container inside a VM whose kernel is
 *                 shown dedicated (Kata-like), or a container inside gVisor
 *   EXCEEDS       the sandbox's own boundary is stronger than claimed
 *   CONTRADICTED  the claimed mechanism is absent, or the VM it rests on is the
 *                 host's (the sandbox runs on the host's kernel)
 *   INCONCLUSIVE  probe UNKNOWN or confidence not high, no usable probe output,
 *                 no claim that can be judged, or a VM that cannot be shown to
 *                 be the sandbox's own (identity not comparable, or gVisor inside)
 *   UNAVAILABLE   the backend cannot run here (decided by the caller)
 */
#ifndef ISOTIER_JUDGE_H
#define ISOTIER_JUDGE_H

#include "../../base/verdict.h"
#include "host_watch.h"
#include "probe_result.h"

/* The verdict vocabulary is base/verdict.h's one table. */
typedef isotier_verdict judge_verdict;

typedef struct judge_claim {
	bool present; /* false: no catalogue entry applies */
	isotier_tier tier;
	const char *mechanism; /* catalogue vocabulary; NULL/"" when none */
	/* The hardware attestation the entry documents ("sev-snp", "tdx");
	 * NULL: none. Read by testimony_judge_attested only: it lowers nothing,
	 * it says when what was offered was not given. */
	const char *attestation;
} judge_claim;

/* How the observed sandbox's kernel relates to the host's (kernel_id.h). */
typedef struct judge_kernel {
	isotier_kernel_relation relation;
	const char *detail; /* the comparison in words; NULL: none */
	/* What the verifier's host itself saw (observe.h): NONE where it has no
	 * view (the host backend, a remote provider). With a view, a gvisor
	 * layer is the sandbox's own only when the host saw runsc run it and
	 * its kernel does not show inside (CLEAR), a vm layer only when the
	 * host saw a VMM run it. */
	isotier_host_evidence host;
	unsigned host_saw; /* ISOTIER_HOST_SAW_* (host_watch.h) */
} judge_kernel;

#define JUDGE_REASON_MAX 768

typedef struct judge_result {
	judge_verdict verdict;
	/*
	 * The most this observation lets anyone defend for the sandbox, whatever
	 * the claim: the tier of its own innermost boundary (a VM around it
	 * only when proven its own). PROBE_TIER_UNKNOWN: the observation shows
	 * nothing trustworthy (no cap); PROBE_TIER_NONE: no boundary of its own.
	 */
	probe_tier ceiling;
	/* A claim above what was shown that could not be proven: INCONCLUSIVE
	 * against a real claim with a usable probe output. Alerts like
	 * CONTRADICTED (verify's exit status, the report, the runbook job). */
	bool unproven;
	/* CONFIRMED by hardware attestation (testimony_judge_attested, ADR-0020):
	 * what verify stores with the observation and every report shows, so
	 * nothing has to read it back out of the reason's words. */
	bool attested;
	char reason[JUDGE_REASON_MAX];
} judge_result;

/*
 * The probe layer kind a mechanism stands for: 0 and *kind set, or
 * ISOTIER_EINVAL for mechanisms outside the four tiers (webassembly, unknown,
 * anything not in the vocabulary).
 */
int isotier__judge_mechanism_kind(probe_layer_kind *kind, const char *mechanism);

/*
 * Judges claim against probe (NULL: no usable probe output) given the kernel
 * relation (NULL: UNCOMPARED). Never yields VERDICT_UNAVAILABLE.
 */
void isotier__judge(judge_result *out, const judge_claim *claim, const probe_result *probe,
                    const judge_kernel *kernel);

/* The isotier tier a ceiling allows (NONE and UNKNOWN: ISOTIER_UNKNOWN). */
isotier_tier isotier__judge_ceiling_tier(probe_tier ceiling);

#endif
