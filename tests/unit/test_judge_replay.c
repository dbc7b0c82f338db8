/* SPDX-License-Identifier: Apache-2.0 */
/* test_judge_replay.c - the judge end to end from replayed captures: the
 * probe classifies a replay root, prints its report, the library parses it
 * and judges a claim under each kernel relation verify can find. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../reference/evidence/judge.h"

#define FIXTURES ISOTIER_SOURCE_DIR "/tests/fixtures/probe/"

char *support_probe_replay_json(const char *root, size_t *len); /* support_probe_replay.c */

/* Replays fixture `name` through the probe and the library's parser. */
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

static const struct replay_case {
	const char *fixture;
	isotier_tier tier;
	const char *mechanism;
	isotier_kernel_relation rel;
	judge_verdict want;
	probe_tier ceiling;
} cases[] = {
    /* runc on a Firecracker host, claimed MICROVM: the kernel decides. */
    {"real-runc", ISOTIER_MICROVM, "firecracker", ISOTIER_KERNEL_SHARED, VERDICT_CONTRADICTED,
     PROBE_TIER_CONTAINER},
    {"real-runc", ISOTIER_MICROVM, "vm", ISOTIER_KERNEL_UNCOMPARED, VERDICT_INCONCLUSIVE,
     PROBE_TIER_CONTAINER},
    {"real-runc", ISOTIER_CONTAINER, "runc", ISOTIER_KERNEL_SHARED, VERDICT_CONFIRMED,
     PROBE_TIER_CONTAINER},
    /* A dedicated kernel (qemu-microvm's guest). */
    {"real-qemu-microvm-tcg", ISOTIER_MICROVM, "qemu", ISOTIER_KERNEL_DEDICATED, VERDICT_CONFIRMED,
     PROBE_TIER_MICROVM},
    {"real-qemu-microvm-tcg", ISOTIER_MICROVM, "qemu", ISOTIER_KERNEL_UNCOMPARED,
     VERDICT_INCONCLUSIVE, PROBE_TIER_NONE},
    {"real-qemu-microvm-tcg", ISOTIER_MICROVM, "qemu", ISOTIER_KERNEL_SHARED, VERDICT_CONTRADICTED,
     PROBE_TIER_NONE},
    /* gVisor in a VM: the identity is the Sentry's, whatever it says. */
    {"real-runsc-ptrace", ISOTIER_MICROVM, "vm", ISOTIER_KERNEL_DEDICATED, VERDICT_INCONCLUSIVE,
     PROBE_TIER_GVISOR},
    {"real-runsc-ptrace", ISOTIER_GVISOR, "gvisor", ISOTIER_KERNEL_UNCOMPARED, VERDICT_CONFIRMED,
     PROBE_TIER_GVISOR},
    /* Kata-like: a container inside a VM whose kernel is its own. */
    {"syn-kata-qemu", ISOTIER_MICROVM, "kata", ISOTIER_KERNEL_DEDICATED, VERDICT_CONSISTENT,
     PROBE_TIER_MICROVM},
    {"syn-kata-qemu", ISOTIER_MICROVM, "kata", ISOTIER_KERNEL_UNCOMPARED, VERDICT_INCONCLUSIVE,
     PROBE_TIER_CONTAINER},
};

START_TEST(replayed_verdicts)
{
	const struct replay_case *c = &cases[_i];
	probe_result p;
	replay(&p, c->fixture);
	judge_claim claim = {.present = true, .tier = c->tier, .mechanism = c->mechanism};
	judge_kernel kernel = {.relation = c->rel, .detail = "replayed"};
	judge_result r;
	isotier__judge(&r, &claim, &p, &kernel);
	ck_assert_msg(r.verdict == c->want && r.ceiling == c->ceiling,
	              "%s (%s) %s: want %s/%s, got %s/%s: %s", c->fixture, c->mechanism,
	              isotier__kernel_relation_name(c->rel), isotier__verdict_name(c->want),
	              isotier__probe_tier_name(c->ceiling), isotier__verdict_name(r.verdict),
	              isotier__probe_tier_name(r.ceiling), r.reason);
	isotier__probe_result_clear(&p);
}
END_TEST

/* A low-confidence observation confirms nothing, and attests nothing: its
 * ceiling is unknown unless the kernel is the host's. syn-weak-markers-qemu is
 * documented low (SIGNALS.md: two agreeing markers, nothing stronger);
 * syn-weak-only-qemu's DMI tuple became firmware evidence, i.e. high. */
START_TEST(low_confidence_replay)
{
	probe_result p;
	replay(&p, "syn-weak-markers-qemu");
	ck_assert_int_ne(p.confidence, PROBE_CONFIDENCE_HIGH);
	judge_claim claim = {.present = true, .tier = ISOTIER_MICROVM, .mechanism = "qemu"};
	judge_kernel dedicated = {.relation = ISOTIER_KERNEL_DEDICATED};
	judge_result r;
	isotier__judge(&r, &claim, &p, &dedicated);
	ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
	ck_assert(r.unproven);
	ck_assert_int_eq(r.ceiling, PROBE_TIER_UNKNOWN);
	judge_kernel shared = {.relation = ISOTIER_KERNEL_SHARED};
	isotier__judge(&r, &claim, &p, &shared);
	ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(r.ceiling, PROBE_TIER_CONTAINER);
	isotier__probe_result_clear(&p);
}
END_TEST

/* The comparison itself: fail closed on everything but two differing ids and boot times. */
START_TEST(kernel_compare_table)
{
	static const char A[] = "7f068cd3-2369-44c4-a6e1-a0862d82789c";
	static const char B[] = "043b0b32-d227-49d7-a8e5-115cc056ad7a";
	static const struct {
		const char *host_id, *sandbox_id;
		int64_t host_bt, sandbox_bt;
		isotier_kernel_relation want;
	} rows[] = {
	    {A, A, 100, 100, ISOTIER_KERNEL_SHARED},
	    {A, A, 100, 200, ISOTIER_KERNEL_SHARED}, /* same boot_id wins */
	    {A, B, 100, 200, ISOTIER_KERNEL_DEDICATED},
	    {A, B, 0, 0, ISOTIER_KERNEL_UNCOMPARED},     /* no btime: never a kernel of its own */
	    {A, B, 100, 0, ISOTIER_KERNEL_UNCOMPARED},   /* a /proc/stat without btime */
	    {A, B, 100, 100, ISOTIER_KERNEL_UNCOMPARED}, /* contradicts itself */
	    {A, "", 100, 100, ISOTIER_KERNEL_SHARED},    /* no id: same boot time */
	    {A, "", 100, 200, ISOTIER_KERNEL_UNCOMPARED},
	    {"", B, 100, 200, ISOTIER_KERNEL_UNCOMPARED},
	    {A, "not-a-uuid", 100, 200, ISOTIER_KERNEL_UNCOMPARED},
	    {A, "7F068CD3-2369-44C4-A6E1-A0862D82789C", 100, 200, ISOTIER_KERNEL_UNCOMPARED},
	    {"", "", 0, 0, ISOTIER_KERNEL_UNCOMPARED},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		isotier_kernel_id h = {.btime = rows[i].host_bt}, s = {.btime = rows[i].sandbox_bt};
		snprintf(h.boot_id, sizeof h.boot_id, "%s", rows[i].host_id);
		snprintf(s.boot_id, sizeof s.boot_id, "%s", rows[i].sandbox_id);
		char detail[300];
		isotier_kernel_relation r = isotier__kernel_compare(&h, &s, detail, sizeof detail);
		ck_assert_msg(r == rows[i].want, "row %zu: want %s, got %s (%s)", i,
		              isotier__kernel_relation_name(rows[i].want),
		              isotier__kernel_relation_name(r), detail);
		ck_assert(detail[0]);
	}
	isotier_kernel_id self;
	isotier__kernel_id_self(&self);
	ck_assert(isotier__boot_id_valid(self.boot_id)); /* Linux always has one */
	ck_assert(self.btime > 0);
}
END_TEST

/* A probe document whose kernel identity is malformed is rejected, not
 * silently compared as unknown. */
START_TEST(malformed_identity_rejected)
{
	static const char *bad[] = {"\"boot_id\": \"x\"", "\"boot_id\": 7", "\"btime\": -1",
	                            "\"btime\": \"1\"", "\"btime\": 1.5"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char json[512];
		snprintf(
		    json, sizeof json,
		    "{\"schema\":\"isotier.probe/1\",\"probe_version\":\"t\",\"observed_tier\":"
		    "\"NONE\",\"confidence\":\"high\",\"layers\":[],\"signals\":[],"
		    "\"conflicts\":[],\"kernel\":{%s},\"duration_us\":1}",
		    bad[i]);
		probe_result p;
		isotier_error err = {0};
		ck_assert_msg(isotier__probe_result_parse(&p, json, strlen(json), &err) ==
		                  ISOTIER_EDATA,
		              "%s", bad[i]);
		ck_assert_ptr_nonnull(strstr(err.message, "kernel."));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("judge_replay");
	TCase *tc = tcase_create("judge_replay");
	tcase_add_loop_test(tc, replayed_verdicts, 0, (int)(sizeof cases / sizeof *cases));
	tcase_add_test(tc, low_confidence_replay);
	tcase_add_test(tc, kernel_compare_table);
	tcase_add_test(tc, malformed_identity_rejected);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
