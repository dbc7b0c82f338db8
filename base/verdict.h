/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verdict.h - the one verdict vocabulary: each word the judge can give, what
 * a reader may conclude from it, and how `isotier verify` exits on it. The
 * judge, resolve (its SQL binds these names), the history filter, the report
 * and create()'s attestation all read this table; none keeps its own list.
 */
#ifndef ISOTIER_VERDICT_H
#define ISOTIER_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum isotier_verdict {
	VERDICT_CONFIRMED = 0,
	VERDICT_CONSISTENT,
	VERDICT_EXCEEDS,
	VERDICT_NOT_CONTRADICTED,
	VERDICT_CONTRADICTED,
	VERDICT_INCONCLUSIVE,
	VERDICT_UNAVAILABLE,
	VERDICT_COUNT
} isotier_verdict;

/* What a verdict lets a reader conclude (flags of isotier_verdict_row). */
enum {
	/* A judgement of the claim: it replaces the previous one in resolve
	 * (an INCONCLUSIVE or UNAVAILABLE run judges nothing and clears no
	 * contradiction; nor does NOT_CONTRADICTED: a provider's testimony in
	 * its own favour cannot outweigh what its sandboxes once showed against
	 * it). */
	VERDICT_JUDGES = 1u << 0,
	/* Proves the claimed tier: what require_verified_days demands. */
	VERDICT_PROVES = 1u << 1,
	/* The sandbox's own boundary reaches at least the claim: create()'s
	 * attestation may stand (EXCEEDS too: stronger than claimed). */
	VERDICT_ATTESTS = 1u << 2,
	/* Against the claim: voids it in resolve, verify exits EXIT_FINDING. */
	VERDICT_AGAINST = 1u << 3,
	/* The claim was checked as far as its backend allows: the report's
	 * re-verification clock restarts (every judgement, and NOT_CONTRADICTED,
	 * the steady state of a remote claim: not drift, not overdue). */
	VERDICT_CHECKS = 1u << 4,
};

typedef struct isotier_verdict_row {
	isotier_verdict verdict;
	const char *name; /* "CONFIRMED": stored, printed and parsed as is */
	unsigned flags;
	const char *meaning; /* one line, for help texts and reports */
} isotier_verdict_row;

extern const isotier_verdict_row isotier__verdicts[VERDICT_COUNT];

/* "CONFIRMED"...; "?" for a value outside the table. */
const char *isotier__verdict_name(isotier_verdict v);
/* Case-insensitive; 0 or ISOTIER_EINVAL (NULL, or a word not in the table). */
int isotier__verdict_parse(isotier_verdict *out, const char *name);
/* Whether v carries every flag in flags; false outside the table. */
bool isotier__verdict_is(isotier_verdict v, unsigned flags);

#endif
