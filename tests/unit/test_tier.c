/* SPDX-License-Identifier: Apache-2.0 */
/* test_tier.c - the rank of ADR-0018 over all 16 pairs, names and parsing. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>

#include "isotier.h"

/* expected[have][required]: UNKNOWN satisfies nothing but "no requirement";
 * a requirement of UNKNOWN is no requirement. */
static const bool expected[4][4] = {
    /* required:          UNKNOWN CONTAINER GVISOR MICROVM */
    [ISOTIER_UNKNOWN] = {true, false, false, false},
    [ISOTIER_CONTAINER] = {true, true, false, false},
    [ISOTIER_GVISOR] = {true, true, true, false},
    [ISOTIER_MICROVM] = {true, true, true, true},
};

START_TEST(rank_all_pairs)
{
	int have = _i / 4, required = _i % 4;
	ck_assert_msg(isotier_tier_satisfies((isotier_tier)have, (isotier_tier)required) ==
	                  expected[have][required],
	              "satisfies(%s, %s)", isotier_tier_name((isotier_tier)have),
	              isotier_tier_name((isotier_tier)required));
}
END_TEST

START_TEST(names_round_trip)
{
	for (int t = ISOTIER_UNKNOWN; t <= ISOTIER_MICROVM; t++) {
		isotier_tier parsed = ISOTIER_UNKNOWN;
		ck_assert_int_eq(isotier_tier_parse(&parsed, isotier_tier_name((isotier_tier)t)),
		                 0);
		ck_assert_int_eq(parsed, t);
	}
	isotier_tier p;
	ck_assert_int_eq(isotier_tier_parse(&p, "microvm"), 0);
	ck_assert_int_eq(p, ISOTIER_MICROVM);
	ck_assert_int_eq(isotier_tier_parse(&p, "VM"), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier_tier_parse(&p, ""), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier_tier_parse(&p, NULL), ISOTIER_EINVAL);
	ck_assert_str_eq(isotier_tier_name((isotier_tier)42), "UNKNOWN");
	ck_assert_str_eq(isotier_strerror(ISOTIER_ECONFIG), "ECONFIG");
	ck_assert_str_eq(isotier_strerror(-999), "EUNKNOWN");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tier");
	TCase *tc = tcase_create("rank");
	tcase_add_loop_test(tc, rank_all_pairs, 0, 16);
	tcase_add_test(tc, names_round_trip);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
