/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_worddiff.c - the word diff a changed passage is shown with
 * (verify/sources/worddiff.h): what was removed and added, nothing for the same
 * words, bounded output for huge or hostile inputs, valid UTF-8 always.
 */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../base/base.h"
#include "../../verify/sources/worddiff.h"

START_TEST(same_words_no_change)
{
	size_t k = 99;
	char *d = isotier_word_diff("each sandbox runs  in a microvm.",
	                            "each sandbox runs in a microvm.", 4096, &k);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(k, 0);
	ck_assert_str_eq(d, "each sandbox runs in a microvm.");
	free(d);
}
END_TEST

START_TEST(replaced_word_marked)
{
	size_t k = 0;
	char *d =
	    isotier_word_diff("the container class shares the kernel of the host.",
	                      "the container class has its own kernel of the host.", 4096, &k);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d,
	                 "the container class [-shares the-] {+has its own+} kernel of the host.");
	ck_assert_uint_eq(k, 2);
	free(d);
}
END_TEST

START_TEST(insert_and_delete)
{
	size_t k = 0;
	char *d = isotier_word_diff("a b c", "a x b", 4096, &k);
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d, "a {+x+} b [-c-]");
	ck_assert_uint_eq(k, 2);
	free(d);
	d = isotier_word_diff("", "new words", 4096, &k);
	ck_assert_str_eq(d, "{+new words+}");
	ck_assert_uint_eq(k, 1);
	free(d);
	d = isotier_word_diff("old words", "", 4096, &k);
	ck_assert_str_eq(d, "[-old words-]");
	free(d);
	d = isotier_word_diff(NULL, NULL, 4096, &k);
	ck_assert_str_eq(d, "");
	ck_assert_uint_eq(k, 0);
	free(d);
}
END_TEST

START_TEST(invalid_utf8_scrubbed)
{
	size_t k = 0;
	char *d = isotier_word_diff("caf\xc3\xa9 ok", "caf\xc3 \xff\xfe ok", 4096, &k);
	ck_assert_ptr_nonnull(d);
	ck_assert(isotier__utf8_valid(d, strlen(d)));
	ck_assert_uint_gt(k, 0);
	ck_assert_ptr_nonnull(strstr(d, "\xef\xbf\xbd")); /* U+FFFD */
	free(d);
}
END_TEST

/* Many words either side: bounded output, the middle shown as one removal
 * and one addition past the word limit, no quadratic blow-up. */
START_TEST(huge_inputs_bounded)
{
	size_t n = 200000;
	char *a = malloc(n * 2 + 1), *b = malloc(n * 2 + 1);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < n; i++) {
		a[2 * i] = 'a' + (char)(i % 7);
		b[2 * i] = 'a' + (char)(i % 5);
		a[2 * i + 1] = b[2 * i + 1] = ' ';
	}
	a[2 * n] = b[2 * n] = '\0';
	size_t k = 0;
	char *d = isotier_word_diff(a, b, 512, &k);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_le(strlen(d), 512);
	ck_assert_ptr_nonnull(strstr(d, "[...]"));
	ck_assert_uint_gt(k, 0);
	free(d);
	/* One long word, no spaces: cut at a character boundary. */
	memset(a, 'x', n * 2);
	for (size_t i = 0; i + 1 < n * 2; i += 2) {
		a[i] = '\xc3';
		a[i + 1] = '\xa9';
	}
	d = isotier_word_diff("", a, 100, &k);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_le(strlen(d), 100);
	ck_assert(isotier__utf8_valid(d, strlen(d)));
	free(d);
	free(a);
	free(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("worddiff");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, same_words_no_change);
	tcase_add_test(tc, replaced_word_marked);
	tcase_add_test(tc, insert_and_delete);
	tcase_add_test(tc, invalid_utf8_scrubbed);
	tcase_add_test(tc, huge_inputs_bounded);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
