/* SPDX-License-Identifier: Apache-2.0 */
/* check_run.h - what every Check suite shares: running the suite, and
 * asserting what a writer function puts on a stream. */
#ifndef ISOTIER_CHECK_RUN_H
#define ISOTIER_CHECK_RUN_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static inline int run_suite(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Captures what put() writes for s; the caller frees it. */
static inline char *render(void (*put)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	put(f, s);
	fclose(f);
	return buf;
}

#define ASSERT_RENDER(put, in, want)                                                               \
	do {                                                                                       \
		char *got_ = render(put, in);                                                      \
		ck_assert_str_eq(got_, want);                                                      \
		free(got_);                                                                        \
	} while (0)

#endif
