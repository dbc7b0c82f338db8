/* SPDX-License-Identifier: Apache-2.0 */
/* test_testimony.c - a remote backend's observation is the provider's
 * testimony (reference/attestation/testimony.h): real captures replayed through the probe
 * and the judge, then weighed as a remote backend's. What a local backend
 * would prove becomes NOT_CONTRADICTED above CONTAINER; a contradiction and a
 * CONTAINER claim stand; no ceiling above CONTAINER survives. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../reference/attestation/testimony.h"

#define FIXTURES ISOTIER_SOURCE_DIR "/tests/fixtures/probe/"

char *support_probe_replay_json(const char *root, size_t *len); /* support_probe_replay.c */

static void replay(probe_result *out, const char *name)
{
	char root[512];
	snprintf(root, sizeof root, FIXTURES "%s", name);
	size_t len = 0;
	char *json = support_probe_replay_json(root, &len);
	ck_assert_msg(json != NULL, "%s: no replay", name);
	isotier_error err = {0};
	ck_assert_msg(isotier__probe_result_parse(out, json, len, &err) == 0, "%s: %s", name,
	              err.message);
	free(json);
}

static const struct testimony_case {
	const char *fixture;
	isotier_tier tier;
	const char *mechanism;
	isotier_kernel_relation rel;
	judge_verdict local;  /* what isotier__judge() gives, as for a local backend */
	judge_verdict remote; /* after isotier__testimony_judge() */
	probe_tier ceiling;   /* after isotier__testimony_judge() */
} cases[] = {
    /* A replayed genuine microVM output, two sandboxes with two boot_ids:
     * a local backend would be CONFIRMED, a provider only not contradicted. */
    {"real-qemu-microvm-tcg", ISOTIER_MICROVM, "qemu", ISOTIER_KERNEL_DEDICATED, VERDICT_CONFIRMED,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER},
    /* Fake identity: a container each, boot_ids forged distinct (Kata-like
     * on paper): CONSISTENT locally, not proven remotely. */
    {"syn-kata-qemu", ISOTIER_MICROVM, "kata", ISOTIER_KERNEL_DEDICATED, VERDICT_CONSISTENT,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER},
    /* GVISOR is above CONTAINER too. */
    {"real-runsc-ptrace", ISOTIER_GVISOR, "gvisor", ISOTIER_KERNEL_UNCOMPARED, VERDICT_CONFIRMED,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER},
    /* Stronger than a GVISOR claim: still only testimony. */
    {"real-qemu-microvm-tcg", ISOTIER_GVISOR, "gvisor", ISOTIER_KERNEL_DEDICATED, VERDICT_EXCEEDS,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER},
    /* Claiming CONTAINER is no threat: it stays CONFIRMED (or EXCEEDS). */
    {"real-runc", ISOTIER_CONTAINER, "runc", ISOTIER_KERNEL_SHARED, VERDICT_CONFIRMED,
     VERDICT_CONFIRMED, PROBE_TIER_CONTAINER},
    {"real-qemu-microvm-tcg", ISOTIER_CONTAINER, "runc", ISOTIER_KERNEL_DEDICATED, VERDICT_EXCEEDS,
     VERDICT_EXCEEDS, PROBE_TIER_CONTAINER},
    /* Testimony against the claim stands: two sandboxes on one kernel. */
    {"real-runc", ISOTIER_MICROVM, "firecracker", ISOTIER_KERNEL_SHARED, VERDICT_CONTRADICTED,
     VERDICT_CONTRADICTED, PROBE_TIER_CONTAINER},
    /* Nothing shown: left as it was (unproven, an alert). */
    {"real-qemu-microvm-tcg", ISOTIER_MICROVM, "qemu", ISOTIER_KERNEL_UNCOMPARED,
     VERDICT_INCONCLUSIVE, VERDICT_INCONCLUSIVE, PROBE_TIER_NONE},
};

START_TEST(remote_evidence_is_testimony)
{
	const struct testimony_case *c = &cases[_i];
	probe_result p;
	replay(&p, c->fixture);
	judge_claim claim = {.present = true, .tier = c->tier, .mechanism = c->mechanism};
	judge_kernel kernel = {.relation = c->rel, .detail = "replayed"};
	judge_result r;
	isotier__judge(&r, &claim, &p, &kernel);
	ck_assert_msg(r.verdict == c->local, "%s %s: judge gave %s: %s", c->fixture,
	              isotier_tier_name(c->tier), isotier__verdict_name(r.verdict), r.reason);
	bool unproven = r.unproven;
	bool changed = isotier__testimony_judge(&r, &claim);
	ck_assert_msg(r.verdict == c->remote && r.ceiling == c->ceiling,
	              "%s %s: want %s/%s, got %s/%s: %s", c->fixture, isotier_tier_name(c->tier),
	              isotier__verdict_name(c->remote), isotier__probe_tier_name(c->ceiling),
	              isotier__verdict_name(r.verdict), isotier__probe_tier_name(r.ceiling),
	              r.reason);
	ck_assert_int_eq(changed, c->local != c->remote);
	if (changed) {
		/* Says what was seen, and that it is not proven. */
		ck_assert_ptr_nonnull(strstr(r.reason, "not contradicted, not proven: no hardware "
		                                       "attestation"));
		ck_assert_ptr_nonnull(strstr(r.reason, isotier__verdict_name(c->local)));
		ck_assert(!r.unproven);
		ck_assert(!isotier__verdict_is(r.verdict, VERDICT_PROVES));
		ck_assert(!isotier__verdict_is(r.verdict, VERDICT_ATTESTS));
		ck_assert(!isotier__verdict_is(r.verdict, VERDICT_JUDGES));
	} else {
		ck_assert_int_eq(r.unproven, unproven);
	}
	isotier__probe_result_clear(&p);
}
END_TEST

/* No claim, or an unknown one: nothing to weigh, the ceiling still capped. */
START_TEST(no_claim_left_alone)
{
	judge_result r = {.verdict = VERDICT_CONFIRMED, .ceiling = PROBE_TIER_MICROVM};
	judge_claim none = {.present = false};
	ck_assert(!isotier__testimony_judge(&r, &none));
	ck_assert_int_eq(r.verdict, VERDICT_CONFIRMED);
	ck_assert_int_eq(r.ceiling, PROBE_TIER_CONTAINER);
	r = (judge_result){.verdict = VERDICT_INCONCLUSIVE, .ceiling = PROBE_TIER_UNKNOWN};
	ck_assert(!isotier__testimony_judge(&r, NULL));
	ck_assert_int_eq(r.ceiling, PROBE_TIER_UNKNOWN); /* unknown: no cap at all */
	/* A reason at its longest still ends in a terminated string. */
	judge_claim micro = {.present = true, .tier = ISOTIER_MICROVM, .mechanism = "firecracker"};
	r = (judge_result){.verdict = VERDICT_CONSISTENT, .ceiling = PROBE_TIER_MICROVM};
	memset(r.reason, 'x', sizeof r.reason - 1);
	ck_assert(isotier__testimony_judge(&r, &micro));
	ck_assert_uint_lt(strlen(r.reason), sizeof r.reason);
	ck_assert_int_eq(r.verdict, VERDICT_NOT_CONTRADICTED);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("testimony");
	TCase *tc = tcase_create("testimony");
	tcase_add_loop_test(tc, remote_evidence_is_testimony, 0,
	                    (int)(sizeof cases / sizeof *cases));
	tcase_add_test(tc, no_claim_left_alone);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
