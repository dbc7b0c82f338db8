/* test_attest_verdict.c - what two sandboxes' attestation does to a remote
 * verdict (testimony_judge_attested, ADR-0020): real captures replayed
 * through the probe and the judge, then weighed with each pair outcome. An
 * attested pair keeps a microVM CONFIRMED ("attested:"); a container inside
 * a VM (a confidential node's container) is not raised; a shared kernel
 * stays CONTRADICTED; one guest for two sandboxes is CONTRADICTED; a refusal
 * or no evidence leaves NOT_CONTRADICTED with the reason saying why; a TDX
 * pair (no guest id) is not two guests. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../reference/testimony.h"

#define FIXTURES ISOTIER_SOURCE_DIR "/tests/fixtures/probe/"

char *support_probe_replay_json(const char *root, size_t *len); /* support_probe_replay.c */

static attest_pair pair_of(attest_pair_outcome outcome, bool ids, const char *detail)
{
	attest_pair p = {.outcome = outcome};
	for (int i = 0; i < 2; i++) {
		p.v[i].valid = outcome != ATTEST_PAIR_REJECTED;
		p.v[i].has_guest_id = ids;
	}
	snprintf(p.detail, sizeof p.detail, "%s", detail);
	return p;
}

static const struct verdict_case {
	const char *fixture;
	const char *mechanism;
	isotier_kernel_relation rel;
	attest_pair_outcome outcome;
	bool ids;
	judge_verdict want;
	probe_tier ceiling;
	const char *reason; /* the reason starts with (^) or contains this */
} cases[] = {
    /* Two microVM guests, each attested: CONFIRMED, attested. */
    {"real-qemu-microvm-tcg", "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ATTESTED, true,
     VERDICT_CONFIRMED, PROBE_TIER_MICROVM, "^attested: PAIR"},
    /* A container in a VM: the report attests the VM, not the sandbox. */
    {"syn-kata-qemu", "kata", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ATTESTED, true,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "not contradicted, not proven"},
    /* One kernel under both: the kernel-sharing rule stands. */
    {"real-runc", "firecracker", ISOTIER_KERNEL_SHARED, ATTEST_PAIR_ATTESTED, true,
     VERDICT_CONTRADICTED, PROBE_TIER_CONTAINER, "PAIR"},
    /* Kernels not compared: nothing CONFIRMED to keep. */
    {"real-qemu-microvm-tcg", "qemu", ISOTIER_KERNEL_UNCOMPARED, ATTEST_PAIR_ATTESTED, true,
     VERDICT_INCONCLUSIVE, PROBE_TIER_NONE, "PAIR"},
    /* One report id in both sandboxes: one guest. */
    {"real-qemu-microvm-tcg", "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ONE_GUEST, true,
     VERDICT_CONTRADICTED, PROBE_TIER_CONTAINER, "^attested one guest for two sandboxes"},
    /* TDX: no guest id, two guests not shown, nothing contradicted either. */
    {"real-qemu-microvm-tcg", "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ONE_GUEST, false,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "not contradicted, not proven"},
    /* Refused or absent evidence: as without attestation, saying why. */
    {"real-qemu-microvm-tcg", "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_REJECTED, true,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "PAIR"},
    {"real-qemu-microvm-tcg", "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_NONE, false,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "PAIR"},
};

START_TEST(attestation_weighs_remote_verdicts)
{
	const struct verdict_case *c = &cases[_i];
	char root[512];
	snprintf(root, sizeof root, FIXTURES "%s", c->fixture);
	size_t len = 0;
	char *json = support_probe_replay_json(root, &len);
	ck_assert_ptr_nonnull(json);
	probe_result p;
	isotier_error err = {0};
	ck_assert_msg(probe_result_parse(&p, json, len, &err) == 0, "%s", err.message);
	free(json);
	judge_claim claim = {.present = true, .tier = ISOTIER_MICROVM, .mechanism = c->mechanism};
	judge_kernel kernel = {.relation = c->rel, .detail = "replayed"};
	judge_result r;
	judge(&r, &claim, &p, &kernel);
	attest_pair pair = pair_of(c->outcome, c->ids, "PAIR");
	testimony_judge_attested(&r, &claim, &pair);
	ck_assert_msg(r.verdict == c->want && r.ceiling == c->ceiling, "case %d: %s/%s: %s", _i,
	              isotier_verdict_name(r.verdict), probe_tier_name(r.ceiling), r.reason);
	if (c->reason[0] == '^')
		ck_assert_msg(!strncmp(r.reason, c->reason + 1, strlen(c->reason + 1)), "%s",
		              r.reason);
	else
		ck_assert_msg(strstr(r.reason, c->reason) != NULL, "%s", r.reason);
	ck_assert_uint_lt(strlen(r.reason), sizeof r.reason);
	probe_result_clear(&p);
}
END_TEST

/* A GVISOR claim is never raised by attestation (a report shows a VM). */
START_TEST(gvisor_claim_not_raised)
{
	judge_result r = {.verdict = VERDICT_CONFIRMED, .ceiling = PROBE_TIER_GVISOR};
	judge_claim claim = {.present = true, .tier = ISOTIER_GVISOR, .mechanism = "gvisor"};
	attest_pair pair = pair_of(ATTEST_PAIR_ATTESTED, true, "PAIR");
	testimony_judge_attested(&r, &claim, &pair);
	ck_assert_int_eq(r.verdict, VERDICT_NOT_CONTRADICTED);
	ck_assert_int_eq(r.ceiling, PROBE_TIER_CONTAINER);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attest_verdict");
	TCase *tc = tcase_create("verdict");
	tcase_add_loop_test(tc, attestation_weighs_remote_verdicts, 0,
	                    (int)(sizeof cases / sizeof *cases));
	tcase_add_test(tc, gvisor_claim_not_raised);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
