/* SPDX-License-Identifier: Apache-2.0 */
/* test_attest_verdict.c - what two sandboxes' attestation does to a remote
 * verdict (testimony_judge_attested, ADR-0020): real captures replayed
 * through the probe and the judge, then weighed with each pair outcome. An
 * attested pair keeps a microVM CONFIRMED ("attested:"); a container inside
 * a VM (a confidential node's container) is not raised; a shared kernel
 * stays CONTRADICTED; one guest for two sandboxes is CONTRADICTED; a refusal
 * or no evidence leaves NOT_CONTRADICTED with the reason saying why; a TDX
 * pair (no guest id) is not two guests. The reports attest the outputs they
 * are bound to (the cross-sandbox challenge's): those outputs must CONFIRM
 * on their own and show the judged runs' kernels, or nothing is attested. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../reference/attestation/testimony.h"

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

/* What the reports were bound to, beside the judged output. */
typedef enum {
	ATT_SAME,      /* the judged output's own twin: same layers, same kernel */
	ATT_CONTAINER, /* a container (real-runc) showing the judged kernel's identity */
	ATT_REBOOT,    /* the same layers from another kernel (another boot_id) */
	ATT_BTIME,     /* the same layers, the same boot_id, another btime */
	ATT_NONE,      /* no attested output kept */
} attested_kind;

static const struct verdict_case {
	const char *fixture;
	attested_kind att;
	const char *mechanism;
	isotier_kernel_relation rel;
	attest_pair_outcome outcome;
	bool ids;
	judge_verdict want;
	probe_tier ceiling;
	const char *reason; /* the reason starts with (^) or contains this */
} cases[] = {
    /* Two microVM guests, each attested: CONFIRMED, attested. */
    {"real-qemu-microvm-tcg", ATT_SAME, "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ATTESTED,
     true, VERDICT_CONFIRMED, PROBE_TIER_MICROVM, "^attested, measurement not judged: PAIR"},
    /* A container in a VM: the report attests the VM, not the sandbox. */
    {"syn-kata-qemu", ATT_SAME, "kata", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ATTESTED, true,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "not contradicted, not proven"},
    /* One kernel under both: the kernel-sharing rule stands. */
    {"real-runc", ATT_SAME, "firecracker", ISOTIER_KERNEL_SHARED, ATTEST_PAIR_ATTESTED, true,
     VERDICT_CONTRADICTED, PROBE_TIER_CONTAINER, "PAIR"},
    /* Kernels not compared: nothing CONFIRMED to keep. */
    {"real-qemu-microvm-tcg", ATT_SAME, "qemu", ISOTIER_KERNEL_UNCOMPARED, ATTEST_PAIR_ATTESTED,
     true, VERDICT_INCONCLUSIVE, PROBE_TIER_NONE, "PAIR"},
    /* One report id in both sandboxes: one guest. */
    {"real-qemu-microvm-tcg", ATT_SAME, "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ONE_GUEST,
     true, VERDICT_CONTRADICTED, PROBE_TIER_CONTAINER, "^attested one guest for two sandboxes"},
    /* TDX: no guest id, two guests not shown, nothing contradicted either. */
    {"real-qemu-microvm-tcg", ATT_SAME, "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ONE_GUEST,
     false, VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "not contradicted, not proven"},
    /* Refused or absent evidence: as without attestation, saying why. */
    {"real-qemu-microvm-tcg", ATT_SAME, "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_REJECTED,
     true, VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "PAIR"},
    {"real-qemu-microvm-tcg", ATT_SAME, "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_NONE, false,
     VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "PAIR"},
    /* run[0] a microVM, the attested outputs a container in a confidential
     * VM showing the same kernel identity: the attested outputs are what
     * count, and they do not CONFIRM a microVM. */
    {"real-qemu-microvm-tcg", ATT_CONTAINER, "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ATTESTED,
     true, VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "the attested output itself is"},
    /* The attested outputs from other kernels than the judged runs (a
     * replayed run[0] beside two real confidential guests). */
    {"real-qemu-microvm-tcg", ATT_REBOOT, "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ATTESTED,
     true, VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "is not the judged run's"},
    {"real-qemu-microvm-tcg", ATT_BTIME, "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ATTESTED,
     true, VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER, "is not the judged run's"},
    /* No attested output kept: nothing to rest the verdict on. */
    {"real-qemu-microvm-tcg", ATT_NONE, "qemu", ISOTIER_KERNEL_DEDICATED, ATTEST_PAIR_ATTESTED,
     true, VERDICT_NOT_CONTRADICTED, PROBE_TIER_CONTAINER,
     "not attested: the reports are bound to outputs"},
};

static void parse_fixture(probe_result *p, const char *fixture)
{
	char root[512];
	snprintf(root, sizeof root, FIXTURES "%s", fixture);
	size_t len = 0;
	char *json = support_probe_replay_json(root, &len);
	ck_assert_ptr_nonnull(json);
	isotier_error err = {0};
	ck_assert_msg(isotier__probe_result_parse(p, json, len, &err) == 0, "%s", err.message);
	free(json);
}

START_TEST(attestation_weighs_remote_verdicts)
{
	const struct verdict_case *c = &cases[_i];
	probe_result p, att[2];
	parse_fixture(&p, c->fixture);
	/* The kernel identity a sandbox shows (the replays carry none). */
	snprintf(p.boot_id, sizeof p.boot_id, "%s", "5b0c3f0e-8d2a-4a51-9a57-3f1f6c2b9d01");
	p.btime = 1764750000;
	for (int i = 0; i < 2; i++) {
		parse_fixture(&att[i], c->att == ATT_CONTAINER ? "real-runc" : c->fixture);
		snprintf(att[i].boot_id, sizeof att[i].boot_id, "%s", p.boot_id);
		att[i].btime = p.btime;
		if (c->att == ATT_REBOOT)
			att[i].boot_id[0] = 'f';
		else if (c->att == ATT_BTIME)
			att[i].btime += 1000;
	}
	judge_claim claim = {.present = true, .tier = ISOTIER_MICROVM, .mechanism = c->mechanism};
	judge_kernel kernel = {.relation = c->rel, .detail = "replayed"};
	judge_result r;
	isotier__judge(&r, &claim, &p, &kernel);
	attest_pair pair = pair_of(c->outcome, c->ids, "PAIR");
	testimony_outputs outs = {.judged = {&p, &p}, .attested = {&att[0], &att[1]}};
	if (c->att == ATT_NONE)
		outs.attested[0] = outs.attested[1] = NULL;
	isotier__testimony_judge_attested(&r, &claim, &kernel, &pair, &outs);
	ck_assert(r.attested == (c->want == VERDICT_CONFIRMED));
	ck_assert_msg(r.verdict == c->want && r.ceiling == c->ceiling, "case %d: %s/%s: %s", _i,
	              isotier__verdict_name(r.verdict), isotier__probe_tier_name(r.ceiling),
	              r.reason);
	if (c->reason[0] == '^')
		ck_assert_msg(!strncmp(r.reason, c->reason + 1, strlen(c->reason + 1)), "%s",
		              r.reason);
	else
		ck_assert_msg(strstr(r.reason, c->reason) != NULL, "%s", r.reason);
	ck_assert_uint_lt(strlen(r.reason), sizeof r.reason);
	isotier__probe_result_clear(&p);
	isotier__probe_result_clear(&att[0]);
	isotier__probe_result_clear(&att[1]);
}
END_TEST

/* A GVISOR claim is never raised by attestation (a report shows a VM). */
START_TEST(gvisor_claim_not_raised)
{
	judge_result r = {.verdict = VERDICT_CONFIRMED, .ceiling = PROBE_TIER_GVISOR};
	judge_claim claim = {.present = true, .tier = ISOTIER_GVISOR, .mechanism = "gvisor"};
	attest_pair pair = pair_of(ATTEST_PAIR_ATTESTED, true, "PAIR");
	isotier__testimony_judge_attested(&r, &claim, NULL, &pair, NULL);
	ck_assert_int_eq(r.verdict, VERDICT_NOT_CONTRADICTED);
	ck_assert_int_eq(r.ceiling, PROBE_TIER_CONTAINER);
}
END_TEST

/* An SNP report (a report id) beside a TDX quote (none): neither one guest
 * nor two are shown, so nothing is contradicted (nor attested). */
START_TEST(mixed_pair_is_not_one_guest)
{
	attest_pair pair = {0};
	pair.v[0] = (attest_verdict){
	    .valid = true, .tech = ATTEST_TECH_SEV_SNP, .has_guest_id = true, .guest_id = {0x42}};
	pair.v[1] = (attest_verdict){.valid = true, .tech = ATTEST_TECH_TDX};
	isotier__attest_pair_judge(&pair, (int[2]){1, 1});
	ck_assert_msg(pair.outcome == ATTEST_PAIR_UNPAIRED, "%d: %s", pair.outcome, pair.detail);
	ck_assert_ptr_nonnull(strstr(pair.detail, "two guests are not shown"));
	/* Either order. */
	attest_verdict t = pair.v[0];
	pair.v[0] = pair.v[1];
	pair.v[1] = t;
	isotier__attest_pair_judge(&pair, (int[2]){1, 1});
	ck_assert_int_eq(pair.outcome, ATTEST_PAIR_UNPAIRED);
	/* Two report ids of two technologies: not two guests of one kind. */
	pair.v[0].has_guest_id = pair.v[1].has_guest_id = true;
	pair.v[0].guest_id[0] = 0x43;
	isotier__attest_pair_judge(&pair, (int[2]){1, 1});
	ck_assert_int_eq(pair.outcome, ATTEST_PAIR_UNPAIRED);
	ck_assert_ptr_nonnull(strstr(pair.detail, "tdx and the other sev-snp"));
	/* Both without an id (two TDX quotes): still no guest compared. */
	pair.v[0] = pair.v[1] = (attest_verdict){.valid = true, .tech = ATTEST_TECH_TDX};
	isotier__attest_pair_judge(&pair, (int[2]){1, 1});
	ck_assert_int_eq(pair.outcome, ATTEST_PAIR_UNPAIRED);

	/* The judge, even handed such a pair as ONE_GUEST (either side
	 * without an id, or two technologies), does not call it one guest. */
	const judge_claim claim = {.present = true, .tier = ISOTIER_MICROVM, .mechanism = "qemu"};
	for (int k = 0; k < 3; k++) {
		attest_pair one = pair_of(ATTEST_PAIR_ONE_GUEST, true, "PAIR");
		one.v[0].tech = one.v[1].tech = ATTEST_TECH_SEV_SNP;
		if (k == 0)
			one.v[1].has_guest_id = false, one.v[1].tech = ATTEST_TECH_TDX;
		else if (k == 1)
			one.v[0].has_guest_id = false, one.v[0].tech = ATTEST_TECH_TDX;
		else
			one.v[1].tech = ATTEST_TECH_TDX;
		judge_result r = {.verdict = VERDICT_CONFIRMED, .ceiling = PROBE_TIER_MICROVM};
		isotier__testimony_judge_attested(&r, &claim, NULL, &one, NULL);
		ck_assert_msg(r.verdict == VERDICT_NOT_CONTRADICTED, "case %d: %s: %s", k,
		              isotier__verdict_name(r.verdict), r.reason);
		ck_assert_int_eq(r.ceiling, PROBE_TIER_CONTAINER);
		ck_assert(!r.attested);
	}
	/* One technology, one id in both: one guest, CONTRADICTED. */
	attest_pair one = pair_of(ATTEST_PAIR_ONE_GUEST, true, "PAIR");
	one.v[0].tech = one.v[1].tech = ATTEST_TECH_SEV_SNP;
	judge_result r = {.verdict = VERDICT_CONFIRMED, .ceiling = PROBE_TIER_MICROVM};
	isotier__testimony_judge_attested(&r, &claim, NULL, &one, NULL);
	ck_assert_int_eq(r.verdict, VERDICT_CONTRADICTED);
}
END_TEST

/* The catalogue's "attestation" read: documented, not given, said so. */
START_TEST(offered_not_given)
{
	judge_claim claim = {.present = true,
	                     .tier = ISOTIER_MICROVM,
	                     .mechanism = "qemu",
	                     .attestation = "sev-snp"};
	attest_pair pair = pair_of(ATTEST_PAIR_NONE, false, "not attested: sandbox 1: absent");
	judge_result r = {.verdict = VERDICT_CONFIRMED, .ceiling = PROBE_TIER_MICROVM};
	isotier__testimony_judge_attested(&r, &claim, NULL, &pair, NULL);
	ck_assert_int_eq(r.verdict, VERDICT_NOT_CONTRADICTED);
	ck_assert_msg(strstr(r.reason, "the catalogue documents sev-snp attestation for this "
	                               "offering, but its sandboxes gave none"),
	              "%s", r.reason);
	/* Undocumented: nothing said; refused: the refusal says why instead. */
	claim.attestation = NULL;
	r = (judge_result){.verdict = VERDICT_CONFIRMED, .ceiling = PROBE_TIER_MICROVM};
	isotier__testimony_judge_attested(&r, &claim, NULL, &pair, NULL);
	ck_assert_ptr_null(strstr(r.reason, "catalogue documents"));
	claim.attestation = "tdx";
	pair = pair_of(ATTEST_PAIR_REJECTED, true, "attestation refused (sandbox 1): x");
	r = (judge_result){.verdict = VERDICT_CONFIRMED, .ceiling = PROBE_TIER_MICROVM};
	isotier__testimony_judge_attested(&r, &claim, NULL, &pair, NULL);
	ck_assert_ptr_null(strstr(r.reason, "catalogue documents"));
	ck_assert_ptr_nonnull(strstr(r.reason, "attestation refused"));
}
END_TEST

/* The text says whether a reference measurement was judged: only when
 * every side matched one. */
START_TEST(measurement_judged_phrase)
{
	attest_verdict v[2] = {{.measurement_judged = "matches the configured reference"},
	                       {.measurement_judged = "recorded, not judged"}};
	ck_assert_str_eq(isotier__attest_judged_phrase(v, 2), "attested, measurement not judged");
	ck_assert_str_eq(isotier__attest_judged_phrase(v, 1),
	                 "attested, measurement matches the reference");
	v[1].measurement_judged = NULL;
	ck_assert_str_eq(isotier__attest_judged_phrase(v, 2), "attested, measurement not judged");
	v[1].measurement_judged = v[0].measurement_judged;
	ck_assert_str_eq(isotier__attest_judged_phrase(v, 2),
	                 "attested, measurement matches the reference");
	ck_assert_str_eq(isotier__attest_judged_phrase(v, 0), "attested, measurement not judged");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attest_verdict");
	TCase *tc = tcase_create("verdict");
	tcase_add_loop_test(tc, attestation_weighs_remote_verdicts, 0,
	                    (int)(sizeof cases / sizeof *cases));
	tcase_add_test(tc, gvisor_claim_not_raised);
	tcase_add_test(tc, mixed_pair_is_not_one_guest);
	tcase_add_test(tc, measurement_judged_phrase);
	tcase_add_test(tc, offered_not_given);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
